/**
 * The {@code verbs} provider: DAT on RDMA hardware (InfiniBand, RoCE, iWARP) through rdma-core's
 * {@code libibverbs.so.1} and {@code librdmacm.so.1}, called with {@code java.lang.foreign}; no
 * JNI, nothing to compile in C. The NIC does what the software engine does elsewhere: placement,
 * protection and completions.
 */
module io.jdat.verbs
{
    // its public library class speaks the SPI's types
    requires transitive io.jdat.api;

    exports io.jdat.verbs;

    provides io.jdat.spi.DatProviderLibrary with io.jdat.verbs.VerbsLibrary;
}

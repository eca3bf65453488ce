/**
 * The {@code shm} transport: DAT between processes of one host, through rings in shared mapped
 * files, with a rendezvous of listening files in a directory the provider owns.
 */
module io.jdat.shm
{
    // the transport implements channel SPI types of the engine
    requires transitive io.jdat.core;

    exports io.jdat.shm;

    provides io.jdat.spi.DatProviderLibrary with io.jdat.shm.ShmLibrary;
}

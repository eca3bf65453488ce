/**
 * The DAT / uDAPL 1.2 consumer API, the registry, and the provider SPI. A consumer compiles
 * against this module alone; providers arrive at run time through {@link java.util.ServiceLoader}
 * and the static registry file.
 */
module io.jdat.api
{
    exports io.jdat;
    exports io.jdat.spi;
    // the registry is an implementation detail, open to the tools that list and reload it
    exports io.jdat.registry;

    uses io.jdat.spi.DatProviderLibrary;
}

/**
 * The DAT / uDAPL 1.2 consumer API, the registry, and the provider SPI. A consumer compiles
 * against this module alone; providers arrive at run time through {@link java.util.ServiceLoader}
 * and the static registry file.
 */
// the qualified export below names the tools' module, which is not there when this one compiles
@SuppressWarnings("module")
module io.jdat.api
{
    exports io.jdat;
    exports io.jdat.spi;
    // the registry is an implementation detail: no consumer or provider sees it, only the tools
    // that list its entries and libraries (a consumer lists IAs with Dat.registryListProviders)
    exports io.jdat.registry to io.jdat.tools;

    uses io.jdat.spi.DatProviderLibrary;
}

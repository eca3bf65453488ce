/**
 * A DAT consumer outside the jdat build: it compiles against {@code io.jdat.api} alone; the
 * providers are whatever {@code io.jdat.spi.DatProviderLibrary} implementations the module path
 * (or class path) holds when it runs.
 */
module io.jdat.example.consumer
{
    requires io.jdat.api;
}

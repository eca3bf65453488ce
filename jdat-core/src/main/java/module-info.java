/**
 * The software RDMA engine that implements DAT for every software transport, the channel SPI
 * that transports implement, and the embedded {@code loopback} transport.
 */
module io.jdat.core
{
    requires transitive io.jdat.api;
    requires org.jctools.core;
    // connections established, rejected and broken, EVD overflow, peer death (FlightEvents)
    requires jdk.jfr;

    exports io.jdat.engine;
    exports io.jdat.engine.channel;

    provides io.jdat.spi.DatProviderLibrary with io.jdat.loopback.LoopbackLibrary;
}

/**
 * The {@code tcp} transport: DAT over TCP in the iWARP wire format (MPA framing with CRC32C,
 * DDP and RDMAP headers as RFC 5044, RFC 6581, RFC 5041 and RFC 5040 lay them out).
 */
module io.jdat.tcp
{
    // the codecs' public methods take and return channel SPI types (ChannelHandler, TerminateInfo, ...)
    requires transitive io.jdat.core;
    requires org.jctools.core;
    // TCP keepalive timing (TCP_KEEPIDLE, TCP_KEEPINTERVAL, TCP_KEEPCOUNT)
    requires jdk.net;

    exports io.jdat.tcp;
    exports io.jdat.tcp.channel;

    provides io.jdat.spi.DatProviderLibrary with io.jdat.tcp.channel.TcpLibrary;
}

/**
 * The {@code tcp} transport: DAT over TCP in the iWARP wire format (MPA framing with CRC32C,
 * DDP and RDMAP headers as RFC 5044, RFC 6581, RFC 5041 and RFC 5040 lay them out).
 */
module io.jdat.tcp
{
    // the codecs' public methods take and return channel SPI types (ChannelHandler, TerminateInfo, ...)
    requires transitive io.jdat.core;

    exports io.jdat.tcp;
}

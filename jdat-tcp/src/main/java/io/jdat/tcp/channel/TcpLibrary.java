package io.jdat.tcp.channel;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.SoftwareLibrary;
import io.jdat.engine.channel.Transport;

/**
 * The {@code tcp} provider library: DAT between processes and hosts over TCP, in the iWARP wire
 * format. It registers the IA name {@code tcp} (bound to 127.0.0.1) in both thread-safety
 * flavours; more names (other addresses, CRC, segment sizes, the liveness bound) can be added in
 * {@code dat.conf} with library {@code tcp} and the options as instance data (see
 * {@link TcpTransport}).
 */
public final class TcpLibrary extends SoftwareLibrary
{
    /** The library name {@code dat.conf} uses. */
    public static final String NAME = "tcp";

    public TcpLibrary()
    {
        super(NAME);
    }

    /** EVD polls and waits read the IA's connections themselves when no one else is (see {@code TcpPort#poll}). */
    @Override
    protected boolean pollsInline()
    {
        return true;
    }

    @Override
    protected Transport createTransport(final String iaName, final EngineConfig config)
    {
        return new TcpTransport(config);
    }
}

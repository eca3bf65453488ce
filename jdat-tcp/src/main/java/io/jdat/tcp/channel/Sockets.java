package io.jdat.tcp.channel;

import java.io.IOException;
import java.net.NoRouteToHostException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import jdk.net.ExtendedSocketOptions;

/** Socket settings and small blocking-free helpers shared by attempts, requests and channels. */
final class Sockets
{
    /** Keepalive probes before the kernel gives up on a silent peer. */
    private static final int KEEPALIVE_PROBES = 3;

    private Sockets()
    {
    }

    /**
     * Non-blocking, no Nagle delay, and TCP keepalive timed so that an idle connection to a dead
     * peer fails within {@code livenessMillis}: first probe after idle seconds, then
     * {@value #KEEPALIVE_PROBES} probes one second apart.
     */
    static void configure(final SocketChannel s, final long livenessMillis) throws IOException
    {
        s.configureBlocking(false);
        s.setOption(StandardSocketOptions.TCP_NODELAY, true);
        s.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        final int seconds = (int) Math.max(2, livenessMillis / 1000);
        final int probes = Math.min(KEEPALIVE_PROBES, seconds - 1);
        try
        {
            s.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, seconds - probes);
            s.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 1);
            s.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, probes);
        }
        catch (final UnsupportedOperationException e)
        {
            // the platform keeps its own keepalive timing; the send stall check still applies
        }
    }

    /**
     * Whether a failed connect means that the address could not be reached (no route, or no
     * answer) rather than that nothing listens there (a TCP reset: connection refused or reset).
     */
    static boolean unreachable(final IOException e)
    {
        if (e instanceof NoRouteToHostException)
        {
            return true;
        }
        final String m = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
        return m.contains("unreachable") || m.contains("timed out") || m.contains("no route");
    }

    /**
     * Writes a small frame (an MPA Request, Reply or reject) whole. A new connection's send
     * buffer always has room for the 276 bytes an MPA frame takes at most.
     *
     * @throws IOException also if the kernel took only part of it
     */
    static void writeFully(final SocketChannel s, final ByteBuffer frame) throws IOException
    {
        for (int i = 0; i < 16 && frame.hasRemaining(); i++)
        {
            if (s.write(frame) == 0)
            {
                Thread.onSpinWait();
            }
        }
        if (frame.hasRemaining())
        {
            throw new IOException("the socket took " + frame.position() + " of " + frame.limit() + " bytes");
        }
    }

    /** Closes, ignoring errors. */
    static void close(final java.nio.channels.Channel c)
    {
        try
        {
            c.close();
        }
        catch (final IOException e)
        {
            // closing is all that was asked
        }
    }

    /** Closes with a reset (SO_LINGER 0): the peer sees its connection refused, not a graceful end. */
    static void reset(final SocketChannel s)
    {
        try
        {
            if (s.isOpen())
            {
                s.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
        }
        catch (final IOException e)
        {
            // then an ordinary close
        }
        close(s);
    }
}

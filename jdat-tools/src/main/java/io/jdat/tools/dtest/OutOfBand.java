package io.jdat.tools.dtest;

import io.jdat.tools.kit.CheckFailed;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * dtest's out-of-band step on plain TCP (port 15828 by default): the server accepts one client
 * and writes its {@link OobMessage} in one write; the client reads the 128 bytes. A dtest client
 * takes only what its first {@code read} returns, so the server must never split the message.
 */
final class OutOfBand
{
    private OutOfBand()
    {
    }

    /** The listening socket of a server, bound before the server says it listens. */
    static ServerSocket listen(final int port)
    {
        try
        {
            final ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(port), 1);
            return s;
        }
        catch (final IOException e)
        {
            throw new CheckFailed("server: cannot listen on TCP port " + port + " for dtest's out-of-band step: "
                + e.getMessage(), e);
        }
    }

    /**
     * Accepts one client on {@code listener} (waiting {@code timeoutMillis}, 0: for ever), writes
     * {@code message} to it in one write and closes both sockets.
     */
    static void serve(final ServerSocket listener, final byte[] message, final int timeoutMillis)
    {
        try (listener)
        {
            listener.setSoTimeout(timeoutMillis);
            try (Socket s = listener.accept())
            {
                s.setTcpNoDelay(true);
                final OutputStream out = s.getOutputStream();
                out.write(message);
                out.flush();
            }
        }
        catch (final SocketTimeoutException e)
        {
            throw new CheckFailed("server: no client on TCP port " + listener.getLocalPort() + " within "
                + timeoutMillis / 1000.0 + " s");
        }
        catch (final IOException e)
        {
            throw new CheckFailed("server: out-of-band step failed: " + e.getMessage(), e);
        }
    }

    /**
     * Connects to {@code host:port}, retrying until {@code timeoutMillis} has passed (a dtest
     * server under emulation may not listen yet), and reads the server's message: up to 128
     * bytes, until the server closes or {@code timeoutMillis} passes. What was read is checked by
     * {@link OobMessage#parse}. A connection closed before any byte counts as no server yet:
     * through port forwarding (qemu's user network) the connect succeeds even then.
     */
    static OobMessage fetch(final String host, final int port, final int timeoutMillis)
    {
        final long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        IOException last = null;
        while (true)
        {
            final Socket s = new Socket();
            try (s)
            {
                final int left = (int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
                s.connect(new InetSocketAddress(host, port), left);
                s.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
                final byte[] b = new byte[OobMessage.SIZE];
                final InputStream in = s.getInputStream();
                int n = 0;
                try
                {
                    while (n < b.length)
                    {
                        final int r = in.read(b, n, b.length - n);
                        if (r < 0)
                        {
                            break;
                        }
                        n += r;
                    }
                }
                catch (final SocketTimeoutException e)
                {
                    throw new CheckFailed("client: the server at " + host + ":" + port + " sent " + n + " of dtest's "
                        + OobMessage.SIZE + "-byte out-of-band message within " + timeoutMillis / 1000.0 + " s");
                }
                if (n > 0)
                {
                    return OobMessage.parse(b, n);
                }
                // closed at once: through port forwarding, that is a server not listening yet
                last = new IOException("connection closed before any byte");
            }
            catch (final IOException e)
            {
                last = e;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new CheckFailed("client: cannot reach the dtest server's out-of-band port " + host + ":" + port
                    + " within " + timeoutMillis / 1000.0 + " s: " + last.getMessage(), last);
            }
            try
            {
                Thread.sleep(200);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new CheckFailed("client: interrupted while dialling " + host + ":" + port);
            }
        }
    }
}

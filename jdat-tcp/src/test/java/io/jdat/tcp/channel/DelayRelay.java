package io.jdat.tcp.channel;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay that holds every byte it forwards for a fixed time in each direction: the fixed link
 * delay of the namespace tests on a kernel without netem (whose qdiscs can drop, duplicate and
 * reorder packets through filters, but not hold them for a time). It sits in the client's
 * namespace; the client connects to it and it connects on to the server across the veth pair,
 * so the connection sees one round trip of twice the delay more than the link's. TCP's own
 * acknowledgements stay local to each leg: this delays the byte stream, as a long path does, not
 * the packets.
 *
 * <pre>
 *   DelayRelay LISTEN_ADDRESS TARGET_ADDRESS TARGET_PORT DELAY_MS
 * </pre>
 * prints {@code READY PORT} once it listens, and relays every connection until its input closes.
 */
final class DelayRelay
{
    private static final byte[] END = new byte[0];

    private DelayRelay()
    {
    }

    /** A chunk of the stream and when it may leave. */
    private record Chunk(byte[] bytes, long due)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final InetAddress listen = InetAddress.getByName(args[0]);
        final InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(args[1]),
            Integer.parseInt(args[2]));
        final long delayNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
        final ServerSocket server = new ServerSocket(0, 64, listen);
        System.out.println("READY " + server.getLocalPort());
        final Thread acceptor = new Thread(() ->
        {
            while (true)
            {
                try
                {
                    final Socket in = server.accept();
                    final Socket out = new Socket();
                    out.connect(target, 5000);
                    in.setTcpNoDelay(true);
                    out.setTcpNoDelay(true);
                    pipe(in, out, delayNanos);
                    pipe(out, in, delayNanos);
                }
                catch (final IOException e)
                {
                    if (server.isClosed())
                    {
                        return;
                    }
                }
            }
        }, "relay-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        // runs until the test closes our input
        while (System.in.read() >= 0)
        {
            // nothing to say
        }
        server.close();
    }

    /**
     * Forwards {@code from} to {@code to}, each chunk {@code delayNanos} after it was read; an end is forwarded as an
     * end.
     */
    private static void pipe(final Socket from, final Socket to, final long delayNanos)
    {
        final LinkedBlockingQueue<Chunk> held = new LinkedBlockingQueue<>();
        final Thread reader = new Thread(() ->
        {
            final byte[] buffer = new byte[64 << 10];
            try (InputStream in = from.getInputStream())
            {
                int n;
                while ((n = in.read(buffer)) > 0)
                {
                    held.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + delayNanos));
                }
            }
            catch (final IOException e)
            {
                // reset or closed: the end goes on like a close
            }
            held.add(new Chunk(END, System.nanoTime() + delayNanos));
        }, "relay-read");
        final Thread writer = new Thread(() ->
        {
            try
            {
                final OutputStream out = to.getOutputStream();
                while (true)
                {
                    final Chunk c = held.take();
                    final long wait = c.due() - System.nanoTime();
                    if (wait > 0)
                    {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    if (c.bytes() == END)
                    {
                        to.shutdownOutput();
                        return;
                    }
                    out.write(c.bytes());
                }
            }
            catch (final IOException | InterruptedException e)
            {
                closeQuietly(to);
                closeQuietly(from);
            }
        }, "relay-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    private static void closeQuietly(final Socket s)
    {
        try
        {
            s.close();
        }
        catch (final IOException e)
        {
            // closing anyway
        }
    }
}

package io.jdat.tools.perf.baseline;

import io.jdat.IaAddress;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Message;
import io.jdat.tools.perf.RowSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The {@code tcp} baseline: the same bytes over one plain Java TCP connection between the same
 * two processes ({@code SocketChannel}, {@code TCP_NODELAY}): ping-pong for latency, a stream for
 * bandwidth. Each end waits the way jdat's thread on that side of the row does: where jdat polls
 * (the client in bandwidth rows, the server when it receives Sends, both ends of every row with
 * {@code --inline-poll}) the socket is non-blocking and busy-polled, the fastest way plain Java
 * moves bytes over TCP; where jdat's thread blocks in {@code dat_evd_wait} (latency rows without
 * {@code --inline-poll}, and without it the server of one-way RDMA Write and Read rows, which only
 * waits for the client's CHECK while the transport places the data) the socket blocks in read and
 * write.
 * The server listens on a fresh port for each measurement and tells the client in READY.
 */
public final class TcpBaseline implements Baseline
{
    private static final long ACCEPT_WAIT_NANOS = 10_000_000_000L;

    @Override
    public String name()
    {
        return "tcp";
    }

    @Override
    public String description()
    {
        return "plain Java TCP (SocketChannel, TCP_NODELAY; busy-polled where jdat polls, blocking where jdat "
            + "waits), between jdat's two ends (its two threads, or its two processes with --listen/--connect)";
    }

    @Override
    public End client(final RowSpec row, final int depth, final IaAddress server, final Message.Builder run)
    {
        final InetAddress host = server != null && server.isInet() ? server.inet() : InetAddress.getLoopbackAddress();
        return new TcpEnd(row.size(), null, host, !run.build().getFlag("poll"));
    }

    @Override
    public End server(final RowSpec row, final int depth, final Message run, final Message.Builder ready)
    {
        try
        {
            final ServerSocketChannel listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress(0));
            ready.with("port", ((InetSocketAddress) listener.getLocalAddress()).getPort());
            return new TcpEnd(row.size(), listener, null, !run.getFlag("server_poll"));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("tcp baseline: cannot listen", e);
        }
    }

    private static final class TcpEnd implements End, Sender, Receiver
    {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment src;
        private final MemorySegment dst;
        private final ByteBuffer srcBuf;
        private final ByteBuffer dstBuf;
        private final ServerSocketChannel listener;
        private final InetAddress host;
        /** Blocking reads and writes (jdat's side waits) instead of busy polling. */
        private final boolean blocking;
        private SocketChannel channel;
        private boolean sending;
        private boolean receiving;

        TcpEnd(final long size, final ServerSocketChannel listener, final InetAddress host, final boolean blocking)
        {
            this.blocking = blocking;
            this.src = arena.allocate(Math.max(8, size), 64);
            this.dst = arena.allocate(Math.max(8, size), 64);
            this.srcBuf = src.asByteBuffer();
            this.dstBuf = dst.asByteBuffer();
            this.listener = listener;
            this.host = host;
        }

        @Override
        public void ready(final Message ready)
        {
            try
            {
                if (listener != null)
                {
                    listener.configureBlocking(false);
                    final long deadline = System.nanoTime() + ACCEPT_WAIT_NANOS;
                    while ((channel = listener.accept()) == null)
                    {
                        if (System.nanoTime() - deadline > 0)
                        {
                            throw new CheckFailed("tcp baseline: the client did not connect");
                        }
                        Thread.onSpinWait();
                    }
                }
                else
                {
                    channel = SocketChannel.open(new InetSocketAddress(host, ready.getInt("port")));
                }
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.configureBlocking(blocking);
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException("tcp baseline: cannot connect", e);
            }
        }

        @Override
        public boolean trySend(final MemorySegment from, final long size)
        {
            try
            {
                if (!sending)
                {
                    srcBuf.clear().limit((int) size);
                    sending = true;
                }
                channel.write(srcBuf);
                if (srcBuf.hasRemaining())
                {
                    return false;
                }
                sending = false;
                return true;
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException("tcp baseline: write failed", e);
            }
        }

        @Override
        public boolean tryReceive(final MemorySegment into, final long size)
        {
            try
            {
                if (!receiving)
                {
                    dstBuf.clear().limit((int) size);
                    receiving = true;
                }
                if (channel.read(dstBuf) < 0)
                {
                    throw new CheckFailed("tcp baseline: the peer closed the connection");
                }
                if (dstBuf.hasRemaining())
                {
                    return false;
                }
                receiving = false;
                return true;
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException("tcp baseline: read failed", e);
            }
        }

        @Override
        public Sender out()
        {
            return this;
        }

        @Override
        public Receiver in()
        {
            return this;
        }

        @Override
        public MemorySegment src()
        {
            return src;
        }

        @Override
        public MemorySegment dst()
        {
            return dst;
        }

        @Override
        public void close()
        {
            try
            {
                if (channel != null)
                {
                    channel.close();
                }
                if (listener != null)
                {
                    listener.close();
                }
            }
            catch (final IOException e)
            {
                // closing: nothing left to do
            }
            arena.close();
        }
    }
}

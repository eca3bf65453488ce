package io.jdat.tcp.channel;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** A listening connection qualifier: a TCP server socket on the IA's address. */
final class TcpListener extends Io implements Listener
{
    /** How long a listener whose accept failed waits before it accepts again. */
    static final long PAUSE_MILLIS = 100;

    final TcpPort port;
    final ServerSocketChannel server;
    final long qual;
    final ListenHandler handler;
    volatile boolean closed;
    /**
     * Accepting failed (no descriptor left, most often): the connection stays in the kernel's
     * backlog and the socket stays ready, so the listener stops watching it until this tick
     * instead of spinning. 0 while accepting.
     */
    private long pausedUntil;

    TcpListener(final TcpPort port, final ServerSocketChannel server, final long qual, final ListenHandler handler)
    {
        this.port = port;
        this.server = server;
        this.qual = qual;
        this.handler = handler;
    }

    /**
     * A listener on TCP port {@code connQual} of the port's address, not yet registered; the
     * port is {@code DAT_CONN_QUAL_IN_USE} if another socket listens there.
     */
    static TcpListener bind(final TcpPort port, final int connQual, final ListenHandler handler)
    {
        final ServerSocketChannel s = openServer(port);
        try
        {
            s.bind(new InetSocketAddress(port.bind, connQual), port.transport.backlog);
        }
        catch (final BindException e)
        {
            Sockets.close(s);
            throw new DatException(DatReturnType.CONN_QUAL_IN_USE,
                "TCP port " + connQual + " of " + port.bind.getHostAddress() + " is in use (" + e.getMessage() + ")");
        }
        catch (final IOException e)
        {
            Sockets.close(s);
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                "cannot listen on TCP port " + connQual + ": " + e);
        }
        return new TcpListener(port, s, connQual, handler);
    }

    /** A listener on a free TCP port the kernel picks, not yet registered. */
    static TcpListener bindAny(final TcpPort port, final ListenHandler handler)
    {
        final ServerSocketChannel s = openServer(port);
        final long qual;
        try
        {
            // port 0: the kernel picks a free ephemeral port
            s.bind(new InetSocketAddress(port.bind, 0), port.transport.backlog);
            qual = ((InetSocketAddress) s.getLocalAddress()).getPort();
        }
        catch (final IOException e)
        {
            Sockets.close(s);
            throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE,
                "no free TCP port on " + port.bind.getHostAddress() + ": " + e.getMessage());
        }
        return new TcpListener(port, s, qual, handler);
    }

    private static ServerSocketChannel openServer(final TcpPort port)
    {
        try
        {
            final ServerSocketChannel s = ServerSocketChannel.open(port.family);
            s.configureBlocking(false);
            // a new listener may take over a port whose old connections linger in TIME_WAIT
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            return s;
        }
        catch (final IOException e)
        {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                "cannot open a listening socket: " + e);
        }
    }

    /** I/O thread. */
    void register()
    {
        if (closed)
        {
            return;
        }
        try
        {
            port.register(this, server, SelectionKey.OP_ACCEPT);
        }
        catch (final ClosedChannelException e)
        {
            close();
        }
    }

    @Override
    void selected(final int readyOps)
    {
        while (!closed)
        {
            final SocketChannel s;
            try
            {
                s = server.accept();
            }
            catch (final IOException e)
            {
                if (!closed)
                {
                    // counted, not logged: the first log record loads time zone data, which
                    // without a descriptor throws an Error that would end the I/O thread
                    port.acceptFailed();
                    pausedUntil = System.nanoTime() + PAUSE_MILLIS * 1_000_000L;
                    interest(0);
                }
                return;
            }
            if (s == null)
            {
                return;
            }
            if (port.accepted(s, this))
            {
                // a displaced connection's descriptor waits for the next selection: accepting on
                // would hold one more per accept than max_half_open allows
                return;
            }
        }
    }

    @Override
    void tick(final long now)
    {
        if (pausedUntil != 0 && now - pausedUntil >= 0 && !closed)
        {
            pausedUntil = 0;
            interest(SelectionKey.OP_ACCEPT);
        }
    }

    @Override
    public long connQual()
    {
        return qual;
    }

    /**
     * Stops listening at once: the kernel refuses later connections with a reset, which the
     * active side reports as a non-peer rejection. When it returns to a consumer (dat_psp_free,
     * dat_rsp_free), the port is free for a new listener. Any thread.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            port.remove(this);
            Sockets.close(server);
        }
        port.awaitReleased();
    }

    @Override
    void shutdown()
    {
        close();
    }

    @Override
    public String toString()
    {
        return "TcpListener[" + port.bind.getHostAddress() + ":" + qual + (closed ? ", closed" : "") + "]";
    }
}

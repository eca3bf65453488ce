package io.jdat.tcp.channel;

import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;
import java.io.IOException;
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
            port.accepted(s, this);
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

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
    private static final System.Logger LOG = System.getLogger("io.jdat.tcp");

    final TcpPort port;
    final ServerSocketChannel server;
    final long qual;
    final ListenHandler handler;
    volatile boolean closed;

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
                    LOG.log(System.Logger.Level.WARNING, "tcp: accept on " + this + " failed: " + e);
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

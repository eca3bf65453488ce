package io.jdat.loopback;

import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;

/** A listening qualifier of a loopback address. */
final class LoopbackListener implements Listener
{
    final LoopbackPort port;
    final ListenHandler handler;
    private volatile long qual;
    private volatile boolean closed;

    LoopbackListener(final LoopbackPort port, final ListenHandler handler)
    {
        this.port = port;
        this.handler = handler;
    }

    void bound(final long connQual)
    {
        this.qual = connQual;
    }

    @Override
    public long connQual()
    {
        return qual;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            port.removeListener(this);
        }
    }
}

package io.jdat.loopback;

import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import java.util.concurrent.atomic.AtomicBoolean;

/** One loopback connection: two {@link LoopbackChannel} ends and the one fact that it is closed. */
final class LoopbackLink
{
    final LoopbackChannel activeEnd;
    final LoopbackChannel passiveEnd;
    private final LoopbackPort activePort;
    private final LoopbackPort passivePort;
    private final AtomicBoolean closed = new AtomicBoolean();

    LoopbackLink(final LoopbackPort activePort, final LoopbackPort passivePort, final ChannelHandler active,
        final ChannelHandler passive)
    {
        this.activePort = activePort;
        this.passivePort = passivePort;
        this.activeEnd = new LoopbackChannel(this, active);
        this.passiveEnd = new LoopbackChannel(this, passive);
        activeEnd.peer = passiveEnd;
        passiveEnd.peer = activeEnd;
    }

    boolean isClosed()
    {
        return closed.get();
    }

    /**
     * Closes the link once: {@code from}'s handler is told {@code fromReason} (or nothing if
     * null), the other end's handler {@code peerReason}.
     */
    void close(final LoopbackChannel from, final CloseReason fromReason, final CloseReason peerReason)
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        activePort.removeLink(this);
        passivePort.removeLink(this);
        // a message the peer already has is reported sent before the close
        activeEnd.awaitReported();
        passiveEnd.awaitReported();
        if (fromReason != null)
        {
            from.closed(fromReason);
        }
        from.peer.closed(peerReason);
    }

    /** The IA instance of {@code port} closed: its end is aborted. */
    void abortFrom(final LoopbackPort port)
    {
        (port == activePort ? activeEnd : passiveEnd).abort();
    }
}

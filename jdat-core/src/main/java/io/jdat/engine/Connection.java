package io.jdat.engine;

import io.jdat.EventNumber;
import io.jdat.engine.channel.AcceptHandler;
import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.PendingConnect;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;

/**
 * One connection of an endpoint, from connect or accept to its end: the engine's half of the
 * channel. It holds what lives exactly as long as the connection (sequence numbers, RDMA Read
 * credits and descriptors, the message being received) and forwards the channel's callbacks to
 * its endpoint, which validates and places them. An endpoint that is reset and reconnected gets a
 * new connection; callbacks for an old one are ignored.
 */
final class Connection implements ConnectHandler, AcceptHandler
{
    final EpImpl ep;
    final boolean active;

    // the fields below are guarded by ep.lock unless marked volatile
    volatile Channel channel;
    volatile PendingConnect pending;
    ScheduledFuture<?> timer;
    /** Set once the connection ended (or the attempt failed); nothing is delivered after. */
    volatile boolean closed;
    boolean established;
    /** Set once a graceful close was handed to the channel. */
    boolean disconnecting;

    /** Negotiated RDMA Read limits: reads served at once, reads outstanding at once. */
    int ird;
    int ord;
    /** Outbound sequence numbers: Send (queue 0) and Read Request (queue 1). */
    int sendMsn = 1;
    int readMsn = 1;
    /** Inbound: the next MSN expected on each queue. */
    int expectedSendMsn = 1;
    int expectedReadMsn = 1;

    final ArrayDeque<ReadOp> freeReads = new ArrayDeque<>();
    final ArrayDeque<ReadOp> outstandingReads = new ArrayDeque<>();
    final ArrayDeque<ReadResponse> freeResponses = new ArrayDeque<>();
    int inboundReads;

    /** The receive in progress: its buffer, its bytes so far. */
    RecvBuffer current;
    long received;

    Connection(final EpImpl ep, final boolean active)
    {
        this.ep = ep;
        this.active = active;
    }

    /** Sizes the RDMA Read pools once the limits are known. ep.lock held. */
    void negotiated(final int irdValue, final int ordValue)
    {
        this.ird = irdValue;
        this.ord = ordValue;
        for (int i = 0; i < ordValue; i++)
        {
            freeReads.push(new ReadOp());
        }
        for (int i = 0; i < irdValue; i++)
        {
            freeResponses.push(new ReadResponse());
        }
    }

    boolean alive()
    {
        return !closed && ep.isCurrent(this);
    }

    // ---------------------------------------------------------------- outcome of setup

    @Override
    public void established(final Channel ch, final byte[] privateData, final int peerIrd, final int peerOrd)
    {
        ep.activeEstablished(this, ch, privateData, peerIrd, peerOrd);
    }

    @Override
    public void rejected(final boolean byPeer)
    {
        ep.setupFailed(this, byPeer ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
            : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
    }

    @Override
    public void unreachable()
    {
        ep.setupFailed(this, EventNumber.CONNECTION_EVENT_UNREACHABLE);
    }

    /** The connect timeout expired (timer thread). */
    void timedOut()
    {
        final PendingConnect p = pending;
        if (p != null && p.cancel())
        {
            ep.setupFailed(this, EventNumber.CONNECTION_EVENT_TIMED_OUT);
        }
    }

    @Override
    public void established(final Channel ch)
    {
        ep.passiveEstablished(this, ch);
    }

    @Override
    public void acceptFailed()
    {
        ep.setupFailed(this, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
    }

    // ---------------------------------------------------------------- traffic

    @Override
    public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
        final MemorySegment src, final long off, final int len)
    {
        return ep.inboundSend(this, msn, mo, last, solicited, src, off, len);
    }

    @Override
    public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src, final long off,
        final int len)
    {
        return ep.inboundWrite(this, stag, to, src, off, len);
    }

    @Override
    public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
        final int srcStag, final long srcTo)
    {
        return ep.inboundReadRequest(this, msn, sinkStag, sinkTo, size, srcStag, srcTo);
    }

    @Override
    public boolean onReadResponse(final int stag, final long to, final boolean last, final MemorySegment src,
        final long off, final int len)
    {
        return ep.inboundReadResponse(this, stag, to, last, src, off, len);
    }

    @Override
    public void onTerminate(final TerminateInfo info)
    {
        ep.terminated(this, info);
    }

    @Override
    public void onSent(final OutboundMessage message)
    {
        ep.sent(this, message);
    }

    @Override
    public void onClosed(final CloseReason reason)
    {
        ep.closed(this, reason);
    }
}

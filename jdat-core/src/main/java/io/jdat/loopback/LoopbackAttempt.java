package io.jdat.loopback;

import io.jdat.engine.channel.AcceptHandler;
import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.PeerOffer;
import io.jdat.engine.channel.PendingConnect;

/**
 * A loopback connection attempt, seen from both sides: the active side holds it as its
 * {@link PendingConnect}, the passive side receives it as an {@link IncomingRequest}. Exactly
 * one of cancel, accept, reject or fail decides it.
 */
final class LoopbackAttempt implements PendingConnect, IncomingRequest
{
    private static final int PENDING = 0;
    private static final int DONE = 1;

    private final LoopbackPort activePort;
    private final ConnectRequest request;
    private final ConnectHandler active;
    private final long localPort;
    private volatile PeerOffer offer;
    private volatile LoopbackPort passivePort;
    private int state = PENDING;

    LoopbackAttempt(final LoopbackPort activePort, final ConnectRequest request, final ConnectHandler active,
        final long localPort)
    {
        this.activePort = activePort;
        this.request = request;
        this.active = active;
        this.localPort = localPort;
        this.offer = new PeerOffer(activePort.address(), localPort, 0, request.privateData(), request.ird(),
            request.ord());
    }

    /** The request is delivered to the listener on {@code qual} of {@code port}. */
    void target(final long qual, final LoopbackPort port)
    {
        offer = offer.arrivedOn(qual);
        passivePort = port;
    }

    private synchronized boolean decide()
    {
        if (state != PENDING)
        {
            return false;
        }
        state = DONE;
        activePort.attemptDone(this);
        return true;
    }

    /** Nothing answers: the address is unknown (unreachable) or nothing listens (non-peer reject). */
    void fail(final boolean addressExists)
    {
        if (decide())
        {
            if (addressExists)
            {
                active.rejected(false);
            }
            else
            {
                active.unreachable();
            }
        }
    }

    @Override
    public long localPortQual()
    {
        return localPort;
    }

    @Override
    public boolean cancel()
    {
        return decide();
    }

    @Override
    public PeerOffer offer()
    {
        return offer;
    }

    @Override
    public void accept(final byte[] privateData, final int ird, final int ord, final AcceptHandler passive)
    {
        if (!decide())
        {
            // the active side gave up (timeout, disconnect, IA closed)
            passive.acceptFailed();
            return;
        }
        final LoopbackLink link = new LoopbackLink(activePort, passivePort, active, passive);
        if (!activePort.addLink(link) || !passivePort.addLink(link))
        {
            activePort.removeLink(link);
            active.rejected(false);
            passive.acceptFailed();
            return;
        }
        // the active side first, then the passive side; each side's traffic is held back until
        // the other side's handler knows the connection is up
        active.established(link.activeEnd, privateData, ird, ord);
        link.activeEnd.ready();
        passive.established(link.passiveEnd);
        link.passiveEnd.ready();
    }

    @Override
    public void reject(final boolean byPeer)
    {
        if (decide())
        {
            active.rejected(byPeer);
        }
    }
}

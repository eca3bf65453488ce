package io.jdat.shm;

import io.jdat.IaAddress;
import io.jdat.engine.channel.AcceptHandler;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.PeerOffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection request as the passive side holds it: the checked copy of what the active side
 * asked, and its {@link ConnectionFile}. Accepting publishes the answer; the connection is up
 * when the active side confirms it, which a progress round notices.
 */
final class ShmRequest implements IncomingRequest, Work
{
    private static final int UNDECIDED = 0;
    /** accept() is writing the answer. */
    private static final int ACCEPTING = 1;
    /** The answer is published: waiting for the active side to confirm. */
    private static final int ACCEPTED = 2;
    private static final int HANDING_OFF = 3;
    /** reject() is writing the answer. */
    private static final int REJECTING = 4;
    /** Decided elsewhere: a progress round unmaps the file. */
    private static final int LET_GO = 5;
    private static final int DONE = 6;

    final ShmPort port;
    final ConnectionFile file;
    private final PeerOffer offer;
    private final long activePid;
    private final long activeStart;
    private final AtomicInteger decision = new AtomicInteger(UNDECIDED);
    private volatile AcceptHandler acceptor;
    private long nextCheck;

    ShmRequest(final ShmPort port, final ConnectionFile file, final long localQual, final IaAddress remoteAddress,
        final long remotePort, final byte[] privateData, final int peerIrd, final int peerOrd, final long activePid,
        final long activeStart)
    {
        this.port = port;
        this.file = file;
        this.offer = new PeerOffer(remoteAddress, remotePort, localQual, privateData, peerIrd, peerOrd);
        this.activePid = activePid;
        this.activeStart = activeStart;
    }

    @Override
    public PeerOffer offer()
    {
        return offer;
    }

    @Override
    public void accept(final byte[] pd, final int ird, final int ord, final AcceptHandler handler)
    {
        if (!decision.compareAndSet(UNDECIDED, ACCEPTING))
        {
            handler.acceptFailed();
            return;
        }
        acceptor = handler;
        boolean answered;
        try
        {
            file.writeAnswer(pd == null ? new byte[0] : pd, ird, ord);
            answered = file.transition(ConnectionFile.REQUESTED, ConnectionFile.ACCEPTED);
        }
        catch (final InternalError e)
        {
            // the requester shrank its file (Shared): it cannot be answered
            answered = false;
        }
        if (!answered)
        {
            // the active side gave up first
            decision.set(LET_GO);
            port.wake();
            handler.acceptFailed();
            return;
        }
        decision.set(ACCEPTED);
        port.wake();
    }

    @Override
    public void reject(final boolean byPeer)
    {
        if (decision.compareAndSet(UNDECIDED, REJECTING))
        {
            try
            {
                file.transition(ConnectionFile.REQUESTED,
                    byPeer ? ConnectionFile.REJECTED_PEER : ConnectionFile.REJECTED_NON_PEER);
            }
            catch (final InternalError e)
            {
                // the requester shrank its file: it cannot be told
            }
            // only now may a progress round unmap the file
            decision.set(LET_GO);
            port.wake();
        }
    }

    /** Handoff, first step: nothing else may decide meanwhile. */
    boolean handOff()
    {
        return decision.compareAndSet(UNDECIDED, HANDING_OFF);
    }

    /** Handoff failed: the request is this port's again. */
    void takeBack()
    {
        decision.set(UNDECIDED);
    }

    /** Handoff done: another listener has the request; this port lets its mapping go. */
    void handedOff()
    {
        decision.set(LET_GO);
        port.wake();
    }

    @Override
    public int progress(final long now)
    {
        try
        {
            return step(now);
        }
        catch (final InternalError e)
        {
            // the requester shrank its file after the accept (Shared): the accept fails
            finish();
            final AcceptHandler a = acceptor;
            if (a != null)
            {
                a.acceptFailed();
            }
            return 1;
        }
    }

    private int step(final long now)
    {
        final int d = decision.get();
        if (d == LET_GO)
        {
            finish();
            return 1;
        }
        if (d != ACCEPTED)
        {
            return 0;
        }
        final int s = file.state();
        if (s == ConnectionFile.ESTABLISHED)
        {
            decision.set(DONE);
            port.remove(this);
            final ProcessHandle peer = activePid == Liveness.SELF_PID ? null : Liveness.find(activePid, activeStart);
            if (activePid != Liveness.SELF_PID && peer == null)
            {
                file.markGone(false, ConnectionFile.GONE_BROKEN);
                file.unmap();
                acceptor.acceptFailed();
                return 1;
            }
            final ShmChannel ch = new ShmChannel(port, file, false, acceptor, peer);
            acceptor.established(ch);
            port.add(ch);
            return 1;
        }
        if (s == ConnectionFile.ACCEPTED)
        {
            if (now - nextCheck < 0)
            {
                return 0;
            }
            nextCheck = now + port.transport.livenessNanos;
            if (Liveness.alive(activePid, activeStart))
            {
                return 0;
            }
        }
        // cancelled by the active side, its process died, or a state no peer may set
        finish();
        acceptor.acceptFailed();
        return 1;
    }

    private void finish()
    {
        decision.set(DONE);
        port.remove(this);
        file.unmap();
    }

    @Override
    public void shutdown()
    {
        final int d = decision.getAndSet(DONE);
        try
        {
            if (d == UNDECIDED)
            {
                file.transition(ConnectionFile.REQUESTED, ConnectionFile.REJECTED_NON_PEER);
            }
            else if (d == ACCEPTED && !file.transition(ConnectionFile.ACCEPTED, ConnectionFile.REJECTED_NON_PEER))
            {
                // the active side confirmed already: it sees this side abort
                file.markGone(false, ConnectionFile.GONE_ABORTED);
            }
        }
        catch (final InternalError e)
        {
            // the requester shrank its file: nothing can be said through it
        }
        if (d != DONE)
        {
            file.unmap();
        }
    }

    @Override
    public String toString()
    {
        return "ShmRequest[" + file + " on " + offer.localConnQual() + "]";
    }
}

package io.jdat.engine;

import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.ProtectionZone;
import io.jdat.engine.channel.CloseReason;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One endpoint's receive queue with its {@link Connection} driven as a channel would drive it
 * ({@link Connection#onSend}, {@link Connection#onClosed}), with no channel behind it: the
 * operations of the receive queue's concurrency proofs.
 */
public final class RecvQueueHarness
{
    private final EventDispatcher recvEvd;
    private final EpImpl ep;
    private final Connection connection;
    private final MemorySegment message = MemorySegment.ofArray(new byte[8]);
    private final LmrTriplet[] iov;
    /** The next Send's MSN; the channel's, guarded by this. */
    private int msn = 1;
    /** Receives posted with success, and completions dequeued. */
    private final AtomicInteger posts = new AtomicInteger();
    private final AtomicInteger completions = new AtomicInteger();

    /** A connected endpoint of {@code ia} with {@code maxRecvDtos}; receives land in {@code lmr}'s first 8 bytes. */
    public RecvQueueHarness(final InterfaceAdapter ia, final ProtectionZone pz, final Lmr lmr, final int maxRecvDtos)
    {
        this(ia, pz, lmr, maxRecvDtos, 32);
    }

    /** As above, with a receive EVD of {@code evdQlen} events. */
    public RecvQueueHarness(final InterfaceAdapter ia, final ProtectionZone pz, final Lmr lmr, final int maxRecvDtos,
        final int evdQlen)
    {
        recvEvd = ia.evdCreate(evdQlen, null, EvdFlags.DTO_FLAG);
        iov = new LmrTriplet[] {LmrTriplet.of(lmr, 0, 8)};
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = maxRecvDtos;
        ep = (EpImpl) ia.epCreate(pz, recvEvd, null, null, attr);
        connection = new Connection(ep, true);
        ep.conn = connection;
        connection.established = true;
        ep.state = EpState.CONNECTED;
    }

    /** dat_ep_post_recv: "SUCCESS" or the error's type. */
    public String post(final int cookie)
    {
        try
        {
            ep.postRecv(1, iov, cookie, 0);
            posts.incrementAndGet();
            return "SUCCESS";
        }
        catch (final DatException e)
        {
            return e.type().name();
        }
    }

    /** The channel delivers one whole Send of 8 bytes (one delivery at a time); true if it was placed. */
    public boolean send()
    {
        synchronized (this)
        {
            return connection.onSend(msn++, 0, true, false, message, 0, 8);
        }
    }

    /** Whether the receive EVD takes its events from the receive queue's slots (direct mode). */
    public boolean direct()
    {
        return ((EvdImpl) recvEvd).direct != null;
    }

    /** Something only the EVD's ring can do (a resize to the same length): direct mode ends. */
    public void move()
    {
        recvEvd.resize(((EvdImpl) recvEvd).capacity());
    }

    /**
     * Direct mode ends on an engine thread, not the consumer's: as a placer that would overflow the
     * EVD ends it, or a flush (the EVD's lock orders it, and no consumer call is made).
     */
    public void end()
    {
        ((EvdImpl) recvEvd).leaveDirect();
    }

    /** The channel reports the connection lost. */
    public void lose()
    {
        connection.onClosed(CloseReason.BROKEN);
    }

    /** dat_evd_dequeue on the receive EVD: "cookie status" or the status's type. */
    public String dequeue()
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = recvEvd.dequeue(ev);
        if (s.isSuccess())
        {
            completions.incrementAndGet();
        }
        return s.isSuccess() ? ev.dto.userCookie + " " + ev.dto.status : s.type().name();
    }

    /**
     * Once the operations are over: every receive posted is still posted or completed once (the
     * completions not yet dequeued counted too), and none is posted on a DISCONNECTED endpoint.
     * Throws if not. Then frees the endpoint and its EVD.
     */
    public void checkAndFree()
    {
        int queued = 0;
        final DatEvent ev = new DatEvent();
        while (recvEvd.dequeue(ev).isSuccess())
        {
            queued++;
        }
        final int posted = ep.recvs.posted();
        if (posts.get() != completions.get() + queued + posted)
        {
            throw new IllegalStateException(posts + " receives posted, " + (completions.get() + queued)
                + " completed, " + posted + " still posted");
        }
        if (ep.state == EpState.DISCONNECTED && posted != 0)
        {
            throw new IllegalStateException(posted + " receives posted on a DISCONNECTED endpoint");
        }
        free();
    }

    /** Frees the endpoint and its EVD. */
    public void free()
    {
        ep.free();
        recvEvd.free();
    }
}

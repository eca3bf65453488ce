package io.jdat.engine;

import io.jdat.AsyncErrorReason;
import io.jdat.DatReturnSubtype;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.LmrTriplet;
import io.jdat.ProtectionZone;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;
import io.jdat.SrqState;
import io.jdat.spi.DatArg;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A shared receive queue. Counts as the man pages define them: <em>available</em> buffers are on
 * the SRQ, not yet taken by an endpoint; <em>outstanding</em> buffers were posted and not yet
 * reaped, that is available + held by endpoints + completed but still on a receive EVD.
 *
 * <p>The available buffers live in a {@link RecvRing}, as an endpoint's own receives do:
 * {@code dat_srq_post_recv} takes no lock. A poster claims a position with one compare-and-set
 * of the ring's tail, allowed while fewer than max_recv_dtos positions lie at or above
 * {@link #released} (buffers reaped, or claims given back as holes): the claim is the
 * reservation, so a post is visible to takers (who wait for a claim at the head to be published)
 * from the moment it counts as outstanding. Endpoints take buffers under this SRQ's monitor
 * (several endpoints' placers, one at a time), copy the head slot into a buffer of their own and
 * free the slot at once; the buffer stays outstanding until {@link #reaped}. A resize closes the
 * ring, waits for claims in flight, checks the outstanding count and replaces the ring by one of
 * its new size (positions kept, holes dropped); a poster that finds a ring closed retries under
 * the monitor, on the new one.
 */
final class SrqImpl extends EngineObject implements SharedReceiveQueue
{
    private static final VarHandle RELEASED;

    static
    {
        try
        {
            RELEASED = MethodHandles.lookup().findVarHandle(SrqImpl.class, "released", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    final PzImpl pz;
    final int maxRecvIov;
    /** The posted buffers; replaced only under this monitor, with the old one closed for good. */
    private volatile RecvRing ring;
    /** max_recv_dtos; written before the ring it goes with. */
    private volatile int capacity;
    /** Positions no longer outstanding: buffers reaped, holes; outstanding = tail - released. */
    @SuppressWarnings("unused")
    private volatile long released;
    private int lowWatermark;
    private boolean lwArmed;
    /** Endpoints using this SRQ (guarded by the IA lock). */
    int endpoints;

    private SrqImpl(final IaImpl ia, final PzImpl pz, final int capacity, final int maxRecvIov)
    {
        super(ia, HandleType.SRQ);
        this.pz = pz;
        this.maxRecvIov = maxRecvIov;
        this.capacity = capacity;
        this.ring = new RecvRing(capacity, maxRecvIov, ia.singleWriter);
    }

    /** Whether posts claim without an atomic (a single-writer IA). */
    boolean singleWriter()
    {
        return ring.singleWriter;
    }

    /** Buffers posted and not yet reaped (claims in flight count). */
    private int outstanding()
    {
        return (int) (ring.tail() - released);
    }

    static SrqImpl create(final IaImpl ia, final ProtectionZone pzHandle, final SrqAttr attr)
    {
        synchronized (ia.lock)
        {
            ia.checkLive();
            final PzImpl pz = cast(pzHandle, PzImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_PZ, false, "pz");
            if (attr == null)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR, "srq_attr is null");
            }
            if (attr.maxRecvDtos <= 0 || attr.maxRecvDtos > ia.config.maxRecvPerSrq)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR,
                    "max_recv_dtos " + attr.maxRecvDtos + " is outside 1.."
                    + ia.config.maxRecvPerSrq);
            }
            if (attr.maxRecvIov <= 0 || attr.maxRecvIov > ia.config.maxIov)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR,
                    "max_recv_iov " + attr.maxRecvIov + " is outside 1.."
                    + ia.config.maxIov);
            }
            if (attr.lowWatermark != io.jdat.Dat.SRQ_LW_DEFAULT)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR,
                    "low_watermark must be DAT_SRQ_LW_DEFAULT at creation");
            }
            ia.checkLimit(HandleType.SRQ, ia.config.maxSrqs, DatReturnSubtype.RESOURCE_SRQ, "SRQs");
            final SrqImpl srq = new SrqImpl(ia, pz, attr.maxRecvDtos, attr.maxRecvIov);
            ia.register(srq, ia.config.maxSrqs, DatReturnSubtype.RESOURCE_SRQ, "SRQs");
            pz.addUser();
            return srq;
        }
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_SRQ;
    }

    @Override
    public void postRecv(final int numSegments, final LmrTriplet[] iov, final long userCookie)
    {
        checkLive();
        // a buffer occupies the SRQ until its completion is reaped (dat_srq_resize(3DAT))
        final RecvRing r = ring;
        final int cap = capacity;
        if (r.singleWriter)
        {
            if (!postSingle(r, cap, numSegments, iov, userCookie))
            {
                postLocked(numSegments, iov, userCookie);
            }
            return;
        }
        long p;
        do
        {
            p = r.claimBounded(released, cap);
        }
        while (p == RecvRing.FULL && r.tail() - released < cap);
        if (p == RecvRing.FULL)
        {
            throw full(cap);
        }
        if (p >= 0)
        {
            fill(r, p, numSegments, iov, userCookie);
            return;
        }
        // closed (a resize replaced it) or full of holes
        postLocked(numSegments, iov, userCookie);
    }

    /** A post that found the ring closed (a resize replaced it) or full of holes: under the monitor. */
    private synchronized void postLocked(final int numSegments, final LmrTriplet[] iov, final long userCookie)
    {
        checkLive();
        RecvRing now = ring;
        long q = now.claimBounded(released, capacity);
        if (q == RecvRing.CROWDED)
        {
            now.close();
            now = replace(now, now.capacity());
            q = now.claimBounded(released, capacity);
        }
        if (q < 0)
        {
            throw full(capacity);
        }
        fill(now, q, numSegments, iov, userCookie);
    }

    /**
     * dat_srq_post_recv on a single-writer IA: no atomic read-modify-write. The one consumer
     * thread posts, resizes and frees, so no close races the post; takers on other threads only
     * read the tail and the sequence. False if the ring is closed or full of holes: the caller
     * goes on under the monitor.
     */
    private boolean postSingle(final RecvRing r, final int cap, final int numSegments, final LmrTriplet[] iov,
        final long userCookie)
    {
        final long p = r.reserveBounded(released, cap);
        if (p == RecvRing.FULL)
        {
            throw full(cap);
        }
        if (p < 0)
        {
            return false;
        }
        final RecvBuffer b = r.slot(p);
        try
        {
            b.fill(ia.memory, numSegments, iov, maxRecvIov, pz, true, 3);
        }
        catch (final RuntimeException e)
        {
            // nothing was claimed
            b.clear();
            throw e;
        }
        b.cookie(userCookie);
        b.flags = 0;
        r.commitAlone(p);
        return true;
    }

    private static RuntimeException full(final int cap)
    {
        return Errors.insufficientResources(DatReturnSubtype.RESOURCE_SRQ,
            "the SRQ holds " + cap + " buffers already (posted and not yet reaped)");
    }

    /**
     * Puts an open copy of the closed {@code r} with room for {@code size} in its place (holes
     * dropped, their releases taken back). Monitor held.
     */
    private RecvRing replace(final RecvRing r, final int size)
    {
        final RecvRing next = r.regrow(size);
        RELEASED.getAndAdd(this, -next.holesDropped);
        ring = next;
        return next;
    }

    /** Validates the triplets into the claimed slot and publishes it, or gives the claim back. */
    private void fill(final RecvRing r, final long p, final int numSegments, final LmrTriplet[] iov,
        final long userCookie)
    {
        final RecvBuffer b = r.slot(p);
        try
        {
            b.fill(ia.memory, numSegments, iov, maxRecvIov, pz, true, 3);
        }
        catch (final RuntimeException e)
        {
            if (!r.abandon(p))
            {
                // a hole: no longer outstanding
                RELEASED.getAndAdd(this, 1L);
            }
            throw e;
        }
        b.cookie(userCookie);
        b.flags = 0;
        r.publish(p);
    }

    /**
     * An endpoint takes the next buffer for an arriving message into {@code into}, its own;
     * null if none is posted.
     */
    RecvBuffer take(final RecvBuffer into)
    {
        final boolean fire;
        synchronized (this)
        {
            final RecvRing r = ring;
            final RecvBuffer b = r.peek();
            if (b == null)
            {
                return null;
            }
            into.copyFrom(b);
            into.flags = 0;
            b.clear();
            // the slot is free for a poster; the buffer stays outstanding until reaped
            r.advance();
            fire = lwArmed && r.posted() < lowWatermark;
            if (fire)
            {
                lwArmed = false;
            }
        }
        if (fire)
        {
            ia.reportAsync(EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT,
                null);
        }
        return into;
    }

    /** A buffer an endpoint took ({@link #take}) was completed: the endpoint's own copy is free. */
    void completed(final RecvBuffer b)
    {
        b.clear();
    }

    /** The consumer dequeued (or lost) a completion of one of this SRQ's buffers. */
    void reaped()
    {
        RELEASED.getAndAdd(this, 1L);
    }

    @Override
    public void query(final long srqParamMask, final SrqParam param)
    {
        checkLive();
        Errors.checkQuery(srqParamMask, SrqParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param == null)
        {
            return;
        }
        synchronized (this)
        {
            param.iaHandle = ia;
            param.srqState = SrqState.OPERATIONAL;
            param.pzHandle = pz;
            param.maxRecvDtos = capacity;
            param.maxRecvIov = maxRecvIov;
            param.lowWatermark = lowWatermark;
            param.availableDtoCount = ring.posted();
            param.outstandingDtoCount = outstanding();
        }
    }

    @Override
    public void resize(final int srqMaxRecvDto)
    {
        checkLive();
        if (srqMaxRecvDto <= 0 || srqMaxRecvDto > ia.config.maxRecvPerSrq)
        {
            throw Errors.invalidParameter(DatArg.SRQ_RESIZE_MAX_RECV_DTO,
                "max_recv_dtos " + srqMaxRecvDto + " is outside 1.."
                + ia.config.maxRecvPerSrq);
        }
        synchronized (this)
        {
            if (srqMaxRecvDto < lowWatermark)
            {
                throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, "the new size is below the low watermark "
                    + lowWatermark);
            }
            final RecvRing r = ring;
            // no claim in flight from here on: the count below is exact, and posters that
            // read the old size retry on the new ring
            final long t = r.close();
            final long outstanding = t - released;
            if (outstanding > srqMaxRecvDto)
            {
                r.open();
                throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, outstanding
                    + " buffers are outstanding, more than " + srqMaxRecvDto);
            }
            capacity = srqMaxRecvDto;
            replace(r, Math.max(srqMaxRecvDto, r.capacity()));
        }
    }

    @Override
    public void setLw(final int lowWatermarkValue)
    {
        checkLive();
        final boolean fire;
        synchronized (this)
        {
            final int capacity = this.capacity;
            if (lowWatermarkValue < 0 || lowWatermarkValue > capacity)
            {
                throw Errors.invalidParameter(DatArg.SRQ_SET_LW_LOW_WATERMARK,
                    "low watermark " + lowWatermarkValue + " is outside 0.." + capacity);
            }
            lowWatermark = lowWatermarkValue;
            lwArmed = lowWatermarkValue != io.jdat.Dat.SRQ_LW_DEFAULT;
            // the man page words this backwards: the event fires at once if we are already below
            fire = lwArmed && ring.posted() < lowWatermark;
            if (fire)
            {
                lwArmed = false;
            }
        }
        if (fire)
        {
            ia.reportAsync(EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT,
                null);
        }
    }

    @Override
    public void free()
    {
        synchronized (ia.lock)
        {
            checkLive();
            if (endpoints > 0)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                    endpoints + " endpoints use this SRQ");
            }
            synchronized (this)
            {
                // buffers still posted are discarded: there is no EVD to flush them to
                final RecvRing r = ring;
                final long t = r.close();
                for (long p = r.head(); p < t; p++)
                {
                    r.slot(p).clear();
                }
                r.drop(t);
            }
            pz.removeUser();
            ia.forget(this);
            markDestroyed();
        }
    }

    int available()
    {
        return ring.posted();
    }
}

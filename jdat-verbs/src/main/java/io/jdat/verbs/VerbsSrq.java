package io.jdat.verbs;

import io.jdat.AsyncErrorReason;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqParam;
import io.jdat.SrqState;
import io.jdat.spi.DatArg;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue: an {@code ibv_srq} in the SRQ's PZ. Every buffer posted fills a
 * preallocated work request slot and goes to the NIC through the context's {@code post_srq_recv};
 * endpoints made with {@code dat_ep_create_with_srq} take buffers from it in whatever order their
 * messages arrive, so the free slots are a stack, not a ring. {@code wr_id} names the SRQ and the
 * slot; the completion names the QP, and so the endpoint that took the buffer:
 * <pre>
 *  63 62          32 31 30                0
 * +--+--------------+--+-------------------+
 * |1 | SRQ id       |1 | slot              |
 * +--+--------------+--+-------------------+
 * </pre>
 * Counts as the engine keeps them: a buffer is <em>outstanding</em> from its post until the
 * consumer reaps its completion, and the SRQ holds at most {@code max_recv_dtos} outstanding;
 * a slot goes back to the stack when its completion leaves the CQ. The NIC does not say when an
 * endpoint takes a buffer, only when the message in it completed, so <em>available</em> counts
 * buffers posted and not yet completed: a buffer an endpoint holds for a message still arriving
 * is counted available until that message completes.
 *
 * <p>The low watermark arms the device's SRQ limit ({@code ibv_modify_srq(IBV_SRQ_LIMIT)}), whose
 * event comes through the IA's async event thread; the provider also checks the count when it
 * reaps a completion of the SRQ, and fires at once in {@code dat_srq_set_lw} when the count is
 * already below. Whichever sees it first sends the one event of that setting.
 */
final class VerbsSrq extends VerbsObject implements SharedReceiveQueue
{
    static final long SRQ_BIT = 0x8000_0000_0000_0000L;

    final int id;
    final VerbsPz pz;
    final MemorySegment srq;
    final int maxRecvIov;
    /** Endpoints made with this SRQ: {@code dat_srq_free} refuses while any remain. */
    final AtomicInteger users = new AtomicInteger();
    private final Arena arena = Arena.ofShared();
    /** Work requests the device can hold (what {@code ibv_create_srq} gave, at least as asked). */
    private final int deviceDepth;
    private final MemorySegment badWr;
    private final MemorySegment modifyAttr;
    private MemorySegment[] wr;
    private MemorySegment[] sge;
    private long[] cookie;
    /** Free slots, a stack: {@code free[0..freeCount)}. */
    private int[] free;
    private int freeCount;
    /** DAT's max_recv_dtos: the bound on outstanding buffers. */
    private int capacity;
    private int outstanding;
    /** Posted to the device and not yet completed. */
    private int onDevice;
    private int lowWatermark;
    private boolean lwArmed;

    VerbsSrq(final VerbsIa ia, final int id, final VerbsPz pz, final int maxRecvDtos, final int maxRecvIov)
    {
        super(ia, HandleType.SRQ);
        this.id = id;
        this.pz = pz;
        this.maxRecvIov = maxRecvIov;
        this.capacity = maxRecvDtos;
        this.badWr = arena.allocate(Native.PTR);
        this.modifyAttr = arena.allocate(Ibv.SRQ_ATTR_SIZE, 8);
        final MemorySegment init = arena.allocate(Ibv.SRQ_INIT_ATTR_SIZE, 8);
        init.set(Native.INT, Ibv.SRQ_INIT_MAX_WR, maxRecvDtos);
        init.set(Native.INT, Ibv.SRQ_INIT_MAX_SGE, Math.max(1, maxRecvIov));
        final MemorySegment s = Ibv.createSrq(pz.pd, init);
        if (s.equals(MemorySegment.NULL))
        {
            final int errno = Native.errno();
            arena.close();
            throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES,
                "ibv_create_srq(" + maxRecvDtos + " x " + maxRecvIov + ")", errno);
        }
        this.srq = s;
        this.deviceDepth = Math.max(maxRecvDtos, init.get(Native.INT, Ibv.SRQ_INIT_MAX_WR));
        this.wr = new MemorySegment[0];
        this.sge = new MemorySegment[0];
        this.cookie = new long[0];
        this.free = new int[0];
        grow(maxRecvDtos);
    }

    /** Adds slots up to {@code n}. Caller holds the lock (or is the constructor). */
    private void grow(final int n)
    {
        final int had = wr.length;
        if (n <= had)
        {
            return;
        }
        final long sgeBytes = Ibv.SGE_SIZE * Math.max(1, maxRecvIov);
        final MemorySegment all = arena.allocate((Ibv.RECV_WR_SIZE + sgeBytes) * (n - had), 8);
        wr = Arrays.copyOf(wr, n);
        sge = Arrays.copyOf(sge, n);
        cookie = Arrays.copyOf(cookie, n);
        free = Arrays.copyOf(free, n);
        for (int i = had; i < n; i++)
        {
            final long at = (i - had) * (Ibv.RECV_WR_SIZE + sgeBytes);
            final MemorySegment w = all.asSlice(at, Ibv.RECV_WR_SIZE);
            w.set(Native.LONG, Ibv.RECV_WR_ID, SRQ_BIT | ((long) id << 32) | VerbsEp.RECV_BIT | i);
            sge[i] = all.asSlice(at + Ibv.RECV_WR_SIZE, sgeBytes);
            w.set(Native.PTR, Ibv.RECV_WR_SG_LIST, sge[i]);
            wr[i] = w;
        }
        // the new slots go under the old free ones, highest first, so low slots are used first
        System.arraycopy(free, 0, free, n - had, freeCount);
        for (int i = 0; i < n - had; i++)
        {
            free[i] = n - 1 - i;
        }
        freeCount += n - had;
    }

    @Override
    public synchronized void postRecv(final int n, final LmrTriplet[] iov, final long userCookie)
    {
        checkValid();
        if (n < 0 || n > maxRecvIov || (n > 0 && (iov == null || iov.length < n)))
        {
            throw invalidParameter(DatArg.POST_NUM_SEGMENTS, n + " segments (this SRQ takes 0.." + maxRecvIov + ")");
        }
        if (outstanding >= capacity || freeCount == 0)
        {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                "the SRQ holds " + capacity + " buffers already (posted and not yet reaped)");
        }
        for (int i = 0; i < n; i++)
        {
            if (iov[i] != null && !ia.lkeys.allows(iov[i].lmrContext, MemPriv.LOCAL_WRITE_FLAG))
            {
                throw new DatException(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    "segment " + i + ": LMR 0x" + Integer.toHexString(iov[i].lmrContext)
                    + " was registered without DAT_MEM_PRIV_LOCAL_WRITE_FLAG");
            }
        }
        final int slot = free[freeCount - 1];
        final MemorySegment w = wr[slot];
        VerbsEp.fillSges(sge[slot], n, iov);
        w.set(Native.INT, Ibv.RECV_WR_NUM_SGE, n);
        cookie[slot] = userCookie;
        final int rc;
        try
        {
            rc = (int) ia.ops.postSrqRecv.invokeExact(srq, w, badWr);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
        if (rc != 0)
        {
            throw nativeFailure(rc == 12 ? DatReturnType.INSUFFICIENT_RESOURCES : DatReturnType.INTERNAL_ERROR,
                "ibv_post_srq_recv", rc);
        }
        freeCount--;
        outstanding++;
        onDevice++;
    }

    /** A completion of {@code slot} left the CQ: the slot is free again. Returns its cookie. */
    synchronized long completed(final int slot)
    {
        final long c = cookie[slot];
        free[freeCount++] = slot;
        onDevice--;
        return c;
    }

    /** The consumer dequeued a completion of this SRQ (or it was dropped with its endpoint). */
    void reaped()
    {
        final boolean fire;
        synchronized (this)
        {
            outstanding--;
            fire = lwArmed && onDevice < lowWatermark;
            if (fire)
            {
                lwArmed = false;
            }
        }
        if (fire)
        {
            fireLowWatermark();
        }
    }

    /** The device's SRQ limit event arrived (the IA's async thread). */
    void limitReached()
    {
        final boolean fire;
        synchronized (this)
        {
            fire = lwArmed && !freed;
            lwArmed = false;
        }
        if (fire)
        {
            fireLowWatermark();
        }
    }

    private void fireLowWatermark()
    {
        ia.asyncEvd.post(new VerbsEvd.SoftEvent(EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK.value(), null, null, null,
            null, null, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT));
    }

    @Override
    public void query(final long mask, final SrqParam param)
    {
        checkValid();
        if (!queryWanted("dat_srq_query", mask, SrqParam.FIELD_ALL, param))
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
            param.availableDtoCount = onDevice;
            param.outstandingDtoCount = outstanding;
        }
    }

    /**
     * {@code dat_srq_resize}. Shrinking lowers the bound on outstanding buffers (the device keeps
     * its size, which DAT allows); growing beyond what the device gave at creation asks it to
     * resize ({@code ibv_modify_srq(IBV_SRQ_MAX_WR)}), and a device that cannot (siw) makes the call
     * fail with DAT_INSUFFICIENT_RESOURCES, the SRQ unchanged.
     */
    @Override
    public synchronized void resize(final int srqMaxRecvDto)
    {
        checkValid();
        if (srqMaxRecvDto <= 0 || srqMaxRecvDto > ia.maxSrqWr)
        {
            throw invalidParameter(DatArg.SRQ_RESIZE_MAX_RECV_DTO,
                "dat_srq_resize: " + srqMaxRecvDto + " is outside 1.." + ia.maxSrqWr);
        }
        if (outstanding > srqMaxRecvDto)
        {
            throw invalidState(DatReturnSubtype.NO_SUBTYPE, "dat_srq_resize: " + outstanding
                + " buffers are outstanding, more than " + srqMaxRecvDto);
        }
        if (srqMaxRecvDto < lowWatermark)
        {
            throw invalidState(DatReturnSubtype.NO_SUBTYPE, "dat_srq_resize: " + srqMaxRecvDto
                + " is below the low watermark " + lowWatermark);
        }
        if (srqMaxRecvDto > deviceDepth && srqMaxRecvDto > wr.length)
        {
            modifyAttr.fill((byte) 0);
            modifyAttr.set(Native.INT, Ibv.SRQ_ATTR_MAX_WR, srqMaxRecvDto);
            final int rc = Ibv.modifySrq(srq, modifyAttr, Ibv.SRQ_MAX_WR);
            if (rc != 0)
            {
                throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "dat_srq_resize to " + srqMaxRecvDto
                    + " (device " + ia.deviceName + " made it for " + deviceDepth + "): ibv_modify_srq(IBV_SRQ_MAX_WR)",
                    rc);
            }
        }
        grow(srqMaxRecvDto);
        capacity = srqMaxRecvDto;
    }

    @Override
    public void setLw(final int lw)
    {
        checkValid();
        final boolean fire;
        synchronized (this)
        {
            if (lw < 0 || lw > capacity)
            {
                throw invalidParameter(DatArg.SRQ_SET_LW_LOW_WATERMARK,
                    "dat_srq_set_lw: " + lw + " is outside 0.." + capacity);
            }
            // the man page words it backwards: the event fires at once when the count is already below
            fire = lw != 0 && onDevice < lw;
            modifyAttr.fill((byte) 0);
            modifyAttr.set(Native.INT, Ibv.SRQ_ATTR_LIMIT, fire ? 0 : Math.min(lw, deviceDepth));
            final int rc = Ibv.modifySrq(srq, modifyAttr, Ibv.SRQ_LIMIT);
            if (rc != 0)
            {
                throw nativeFailure(DatReturnType.MODEL_NOT_SUPPORTED,
                    "dat_srq_set_lw: ibv_modify_srq(IBV_SRQ_LIMIT " + lw + ")", rc);
            }
            lowWatermark = lw;
            lwArmed = lw != 0 && !fire;
        }
        if (fire)
        {
            fireLowWatermark();
        }
    }

    @Override
    public void free()
    {
        checkValid();
        if (users.get() > 0)
        {
            throw invalidState(DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                "dat_srq_free: " + users.get() + " endpoints use this SRQ");
        }
        destroy();
    }

    /** Buffers still posted are discarded: there is no EVD to flush them to. */
    void destroy()
    {
        synchronized (this)
        {
            if (freed)
            {
                return;
            }
            freed = true;
            lwArmed = false;
        }
        ia.forgetSrq(this);
        Ibv.destroySrq(srq);
        pz.users.decrementAndGet();
        arena.close();
        ia.forget(this);
    }
}

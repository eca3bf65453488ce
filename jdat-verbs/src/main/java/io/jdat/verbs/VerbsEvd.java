package io.jdat.verbs;

import io.jdat.Cno;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.EvdState;
import io.jdat.HandleType;
import io.jdat.spi.DatArg;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An event dispatcher. A DTO (or RMR bind) EVD owns a CQ with its own completion channel; the
 * completions stay in the CQ until a dequeue or wait polls them ({@code ibv_poll_cq} through the
 * context's ops table) into a ring of preallocated entries, so neither allocates. Connection,
 * CR, async and software events come from the IA's rdma_cm thread or the consumer and queue in
 * a software list. {@code dat_evd_wait} polls, then arms the CQ ({@code req_notify_cq}), polls
 * again, and sleeps in {@code poll(2)} on the completion channel's descriptor (in slices, so a
 * software event or a free is seen too).
 */
final class VerbsEvd extends VerbsObject implements EventDispatcher
{
    /** Longest sleep on the channel before the wait looks at the software list again. */
    private static final int SLICE_MS = 50;
    private static final int BATCH = 16;
    private static final DtoStatus[] STATUS = new DtoStatus[32];

    static
    {
        java.util.Arrays.fill(STATUS, DtoStatus.ERR_TRANSPORT);
        STATUS[Ibv.WC_SUCCESS] = DtoStatus.SUCCESS;
        STATUS[Ibv.WC_LOC_LEN_ERR] = DtoStatus.ERR_LOCAL_LENGTH;
        STATUS[Ibv.WC_LOC_QP_OP_ERR] = DtoStatus.ERR_LOCAL_EP;
        STATUS[Ibv.WC_LOC_PROT_ERR] = DtoStatus.ERR_LOCAL_PROTECTION;
        STATUS[Ibv.WC_WR_FLUSH_ERR] = DtoStatus.ERR_FLUSHED;
        STATUS[Ibv.WC_BAD_RESP_ERR] = DtoStatus.ERR_BAD_RESPONSE;
        STATUS[Ibv.WC_REM_INV_REQ_ERR] = DtoStatus.ERR_REMOTE_RESPONDER;
        STATUS[Ibv.WC_REM_ACCESS_ERR] = DtoStatus.ERR_REMOTE_ACCESS;
        STATUS[Ibv.WC_REM_OP_ERR] = DtoStatus.ERR_REMOTE_RESPONDER;
        STATUS[Ibv.WC_RETRY_EXC_ERR] = DtoStatus.ERR_TRANSPORT;
        STATUS[Ibv.WC_RNR_RETRY_EXC_ERR] = DtoStatus.ERR_RECEIVER_NOT_READY;
    }

    /** A non-DTO event, made off the data path; an asynchronous one names its object and reason. */
    record SoftEvent(int number, VerbsEp ep, byte[] privateData, io.jdat.ServicePoint sp, VerbsCr cr, Object pointer,
        io.jdat.DatHandle asyncHandle, int reason)
    {
        SoftEvent(final int number, final VerbsEp ep, final byte[] privateData, final io.jdat.ServicePoint sp,
            final VerbsCr cr, final Object pointer)
        {
            this(number, ep, privateData, sp, cr, pointer, null, 0);
        }
    }

    final int flags;
    private final int qlen;
    private final Arena arena = Arena.ofShared();
    /** Null for an EVD without DTO streams. */
    final MemorySegment cq;
    private final MemorySegment channel;
    private final int channelFd;
    private final MemorySegment wc;
    private final MemorySegment pollfd;
    private final MemorySegment cqOut;
    private final MemorySegment ctxOut;
    // the ring of polled completions
    private final VerbsEp[] ringEp;
    private final long[] ringCookie;
    private final DtoStatus[] ringStatus;
    private final long[] ringLength;
    /** The SRQ whose buffer an entry completed, else null: reaping it frees room on the SRQ. */
    private final VerbsSrq[] ringSrq;
    private int head;
    private int count;
    private final ArrayDeque<SoftEvent> soft = new ArrayDeque<>();
    private boolean waiting;
    private boolean unwaitable;
    private boolean enabled = true;
    /** Endpoints and service points that report here: {@code dat_evd_free} refuses while any do. */
    final AtomicInteger users = new AtomicInteger();

    VerbsEvd(final VerbsIa ia, final int qlen, final int flags)
    {
        super(ia, HandleType.EVD);
        this.flags = flags;
        this.qlen = qlen;
        this.wc = arena.allocate(Ibv.WC_SIZE * BATCH, 8);
        this.pollfd = arena.allocate(8, 8);
        this.cqOut = arena.allocate(Native.PTR);
        this.ctxOut = arena.allocate(Native.PTR);
        if ((flags & (EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG)) != 0)
        {
            final MemorySegment ch = Ibv.createCompChannel(ia.context);
            if (ch.equals(MemorySegment.NULL))
            {
                final int errno = Native.errno();
                arena.close();
                throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "ibv_create_comp_channel", errno);
            }
            this.channel = ch.reinterpret(16);
            this.channelFd = channel.get(Native.INT, Ibv.COMP_CHANNEL_FD);
            final MemorySegment q = Ibv.createCq(ia.context, qlen, channel);
            if (q.equals(MemorySegment.NULL))
            {
                final int errno = Native.errno();
                Ibv.destroyCompChannel(channel);
                arena.close();
                throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "ibv_create_cq(" + qlen + ")", errno);
            }
            this.cq = q;
        }
        else
        {
            this.cq = null;
            this.channel = null;
            this.channelFd = -1;
        }
        this.ringEp = new VerbsEp[qlen];
        this.ringCookie = new long[qlen];
        this.ringStatus = new DtoStatus[qlen];
        this.ringLength = new long[qlen];
        this.ringSrq = new VerbsSrq[qlen];
    }

    /** Queues a non-DTO event (connection, CR, software, async) and wakes a waiter. */
    synchronized void post(final SoftEvent e)
    {
        if (freed)
        {
            return;
        }
        soft.add(e);
        notifyAll();
    }

    @Override
    public void free()
    {
        checkValid();
        if (users.get() > 0)
        {
            throw invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                "dat_evd_free: " + users.get() + " endpoints or service points report to this EVD");
        }
        if (this == ia.asyncEvd)
        {
            throw invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, "dat_evd_free: the IA's async EVD");
        }
        destroy();
    }

    void destroy()
    {
        synchronized (this)
        {
            if (freed)
            {
                return;
            }
            freed = true;
            notifyAll();
            // a waiter sleeping on the channel sees freed within one slice
            final long until = System.nanoTime() + 2L * SLICE_MS * 1_000_000L;
            while (waiting && System.nanoTime() < until)
            {
                try
                {
                    wait(SLICE_MS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (cq != null)
        {
            Ibv.destroyCq(cq);
            Ibv.destroyCompChannel(channel);
        }
        synchronized (this)
        {
            // completions of SRQ buffers nobody will dequeue now leave their SRQ's count
            for (int i = 0; i < qlen; i++)
            {
                if (ringSrq[i] != null)
                {
                    ringSrq[i].reaped();
                    ringSrq[i] = null;
                }
            }
        }
        arena.close();
        ia.forget(this);
    }

    @Override
    public void query(final long mask, final EvdParam param)
    {
        checkValid();
        if (param == null)
        {
            throw invalidParameter(DatArg.QUERY_PARAM, "dat_evd_query: no EvdParam");
        }
        param.iaHandle = ia;
        param.evdQlen = qlen;
        param.evdState = enabled ? EvdState.ENABLED : EvdState.DISABLED;
        param.cnoHandle = null;
        param.evdFlags = flags;
    }

    @Override
    public DatStatus dequeue(final DatEvent event)
    {
        checkValid();
        synchronized (this)
        {
            if (take(event))
            {
                return DatStatus.SUCCESS;
            }
            return DatStatus.QUEUE_EMPTY;
        }
    }

    /** Moves the first event into {@code event}; polls the CQ when nothing is queued. */
    private boolean take(final DatEvent event)
    {
        final SoftEvent s = soft.poll();
        if (s != null)
        {
            fill(s, event);
            return true;
        }
        if (count == 0 && cq != null)
        {
            drain();
        }
        if (count == 0)
        {
            return false;
        }
        event.eventNumber = EventNumber.DTO_COMPLETION_EVENT.value();
        event.evdHandle = this;
        event.dto.set(ringEp[head], ringCookie[head], ringStatus[head], ringLength[head]);
        ringEp[head] = null;
        final VerbsSrq srq = ringSrq[head];
        if (srq != null)
        {
            ringSrq[head] = null;
            srq.reaped();
        }
        head = head + 1 == qlen ? 0 : head + 1;
        count--;
        return true;
    }

    private void fill(final SoftEvent s, final DatEvent event)
    {
        event.eventNumber = s.number();
        event.evdHandle = this;
        if (s.number() == EventNumber.CONNECTION_REQUEST_EVENT.value())
        {
            event.crArrival.set(s.sp(), ia.address, s.cr().connQual, s.cr());
        }
        else if (s.number() == EventNumber.SOFTWARE_EVENT.value())
        {
            event.software.pointer = s.pointer();
        }
        else if (s.asyncHandle() != null)
        {
            event.asyncError.set(s.asyncHandle(), s.reason());
        }
        else
        {
            event.connection.set(s.ep(), s.privateData());
        }
    }

    /**
     * Moves what the CQ holds into the ring, so that the work queue slots of requests that
     * completed (suppressed ones included) are free again: a DTO's slot is the consumer's once
     * its completion is generated, whether or not it was dequeued yet.
     */
    synchronized void reclaim()
    {
        if (!freed && cq != null)
        {
            drain();
        }
    }

    /** Polls the CQ into the ring while both have room and entries. Caller holds the lock. */
    private void drain()
    {
        while (count < qlen)
        {
            final int want = Math.min(BATCH, qlen - count);
            final int n;
            try
            {
                n = (int) ia.ops.pollCq.invokeExact(cq, want, wc);
            }
            catch (final Throwable t)
            {
                throw Ibv.rethrow(t);
            }
            if (n < 0)
            {
                throw new DatException(DatReturnType.INTERNAL_ERROR, "ibv_poll_cq failed (" + n + ")");
            }
            for (int i = 0; i < n; i++)
            {
                complete(i * Ibv.WC_SIZE);
            }
            if (n < want)
            {
                return;
            }
        }
    }

    /** One work completion: finds its endpoint and slot from wr_id, queues the DTO event. */
    private void complete(final long off)
    {
        final long wrId = wc.get(Native.LONG, off + Ibv.WC_WR_ID);
        final int status = wc.get(Native.INT, off + Ibv.WC_STATUS);
        final int slot = (int) (wrId & VerbsEp.SLOT_MASK);
        final DtoStatus st = status >= 0 && status < STATUS.length ? STATUS[status] : DtoStatus.ERR_TRANSPORT;
        if ((wrId & VerbsSrq.SRQ_BIT) != 0)
        {
            completeSrq(wrId, slot, st, off);
            return;
        }
        final VerbsEp ep = ia.endpoint((int) (wrId >>> 32));
        if (ep == null)
        {
            return; // the endpoint was freed: nobody can be told
        }
        final long cookie;
        final long length;
        if ((wrId & VerbsEp.RECV_BIT) != 0)
        {
            cookie = ep.recvCookie[slot];
            length = Integer.toUnsignedLong(wc.get(Native.INT, off + Ibv.WC_BYTE_LEN));
            ep.recvCompleted.incrementAndGet();
        }
        else
        {
            cookie = ep.sendCookie[slot];
            length = ep.sendLength[slot];
            final boolean suppress = ep.sendSuppress[slot];
            // in order: this request and every unsignalled one before it are done
            ep.sendCompleted.set(ep.sendSeq[slot] + 1);
            if (suppress && st == DtoStatus.SUCCESS)
            {
                return;
            }
        }
        final int tail = (head + count) % qlen;
        ringEp[tail] = ep;
        ringCookie[tail] = cookie;
        ringStatus[tail] = st;
        ringLength[tail] = length;
        count++;
    }

    /** A buffer of an SRQ completed: its slot is free; the endpoint is the one whose QP took it. */
    private void completeSrq(final long wrId, final int slot, final DtoStatus st, final long off)
    {
        final VerbsSrq srq = ia.srq((int) ((wrId & ~VerbsSrq.SRQ_BIT) >>> 32));
        if (srq == null)
        {
            return; // the SRQ was freed, and with it every endpoint that used it
        }
        final long cookie = srq.completed(slot);
        final VerbsEp ep = ia.endpointOfQp(wc.get(Native.INT, off + Ibv.WC_QP_NUM));
        if (ep == null)
        {
            srq.reaped(); // the endpoint was freed: nobody can be told
            return;
        }
        final int tail = (head + count) % qlen;
        ringEp[tail] = ep;
        ringCookie[tail] = cookie;
        ringStatus[tail] = st;
        ringLength[tail] = Integer.toUnsignedLong(wc.get(Native.INT, off + Ibv.WC_BYTE_LEN));
        ringSrq[tail] = srq;
        count++;
    }

    @Override
    public DatStatus wait(final long timeoutMicros, final int threshold, final DatEvent event, final DatCount nmore)
    {
        checkValid();
        if (timeoutMicros < 0 || (timeoutMicros > Dat.TIMEOUT_INFINITE))
        {
            throw invalidParameter(DatArg.EVD_WAIT_TIMEOUT, "dat_evd_wait: timeout " + timeoutMicros);
        }
        if (threshold < 1 || threshold > qlen)
        {
            throw invalidParameter(DatArg.EVD_WAIT_THRESHOLD,
                "dat_evd_wait: threshold " + threshold + " outside 1.." + qlen);
        }
        if (event == null)
        {
            throw invalidParameter(DatArg.EVD_WAIT_EVENT, "dat_evd_wait: no DatEvent");
        }
        synchronized (this)
        {
            if (unwaitable)
            {
                throw invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITABLE, "dat_evd_wait: EVD is unwaitable");
            }
            if (waiting)
            {
                throw invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, "dat_evd_wait: another thread waits");
            }
            waiting = true;
        }
        try
        {
            final long deadline = timeoutMicros == Dat.TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + timeoutMicros * 1000L;
            while (true)
            {
                synchronized (this)
                {
                    final DatStatus s = ready(threshold, deadline, event, nmore);
                    if (s != null)
                    {
                        return s;
                    }
                    if (cq == null)
                    {
                        try
                        {
                            wait(Math.max(1, Math.min(SLICE_MS, (deadline - System.nanoTime()) / 1_000_000L)));
                        }
                        catch (final InterruptedException e)
                        {
                            throw new DatException(DatReturnType.INTERRUPTED_CALL, "dat_evd_wait interrupted");
                        }
                        continue;
                    }
                }
                // arm, look again (a completion may have come in between), then sleep on the channel
                final int rc;
                try
                {
                    rc = (int) ia.ops.reqNotifyCq.invokeExact(cq, 0);
                }
                catch (final Throwable t)
                {
                    throw Ibv.rethrow(t);
                }
                if (rc != 0)
                {
                    throw nativeFailure(DatReturnType.INTERNAL_ERROR, "ibv_req_notify_cq", rc);
                }
                synchronized (this)
                {
                    final DatStatus s = ready(threshold, deadline, event, nmore);
                    if (s != null)
                    {
                        return s;
                    }
                }
                final long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
                if (Native.pollIn(pollfd, channelFd, (int) Math.max(1, Math.min(SLICE_MS, leftMs))) > 0
                    && Ibv.getCqEvent(channel, cqOut, ctxOut) == 0)
                {
                    Ibv.ackCqEvents(cq, 1);
                }
                if (Thread.interrupted())
                {
                    throw new DatException(DatReturnType.INTERRUPTED_CALL, "dat_evd_wait interrupted");
                }
            }
        }
        finally
        {
            synchronized (this)
            {
                waiting = false;
                notifyAll();
            }
        }
    }

    /** SUCCESS or TIMEOUT_EXPIRED when the wait is over, else null. Caller holds the lock. */
    private DatStatus ready(final int threshold, final long deadline, final DatEvent event, final DatCount nmore)
    {
        if (freed)
        {
            throw new DatException(DatReturnType.ABORT, "dat_evd_wait: the EVD was freed");
        }
        if (unwaitable)
        {
            throw invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITABLE, "dat_evd_wait: EVD set unwaitable");
        }
        if (cq != null && soft.size() + count < threshold)
        {
            drain();
        }
        final int n = soft.size() + count;
        if (n >= threshold)
        {
            take(event);
            if (nmore != null)
            {
                nmore.value = n - 1;
            }
            return DatStatus.SUCCESS;
        }
        if (System.nanoTime() - deadline >= 0)
        {
            if (nmore != null)
            {
                nmore.value = n;
            }
            return DatStatus.TIMEOUT_EXPIRED;
        }
        return null;
    }

    @Override
    public DatStatus postSe(final DatEvent event)
    {
        checkValid();
        if (event == null || event.eventNumber != EventNumber.SOFTWARE_EVENT.value())
        {
            throw invalidParameter(DatArg.EVD_POST_SE_EVENT, "dat_evd_post_se: not a SOFTWARE_EVENT");
        }
        synchronized (this)
        {
            if (soft.size() + count >= qlen)
            {
                return DatStatus.QUEUE_FULL;
            }
        }
        post(new SoftEvent(EventNumber.SOFTWARE_EVENT.value(), null, null, null, null, event.software.pointer));
        return DatStatus.SUCCESS;
    }

    @Override
    public synchronized void enable()
    {
        checkValid();
        enabled = true;
    }

    @Override
    public synchronized void disable()
    {
        checkValid();
        enabled = false;
    }

    @Override
    public synchronized void setUnwaitable()
    {
        checkValid();
        unwaitable = true;
        notifyAll();
    }

    @Override
    public synchronized void clearUnwaitable()
    {
        checkValid();
        unwaitable = false;
    }

    @Override
    public void modifyCno(final Cno cno)
    {
        checkValid();
        throw notImplemented("dat_evd_modify_cno (CNOs)");
    }

    @Override
    public void resize(final int evdMinQlen)
    {
        checkValid();
        throw notImplemented("dat_evd_resize");
    }
}

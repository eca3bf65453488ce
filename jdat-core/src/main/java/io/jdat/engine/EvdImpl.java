package io.jdat.engine;

import io.jdat.AsyncErrorReason;
import io.jdat.Cno;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.EvdState;
import io.jdat.HandleType;
import io.jdat.IaAddress;
import io.jdat.ServicePoint;
import io.jdat.engine.channel.TransportPort;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An event dispatcher: a ring of preallocated event records fed by any number of streams, with
 * at most one blocked waiter and an optional CNO.
 *
 * <p>The ring is our own rather than a library queue because DAT asks more of it than a queue
 * gives: a threshold counted in notification events, a snapshot count ({@code nmore}), a resize
 * that keeps every queued event, overflow that is detected and reported, and exclusive ownership
 * by a blocked waiter. A lock guards it; the counts a spinning waiter or a polling consumer look
 * at are published in volatiles so that an empty poll takes no lock.
 *
 * <p>Notification: an event "notifies" if it may wake a waiter or trigger the CNO. Connection,
 * CR, async and software events always do; a DTO completion does unless its stream is
 * consumer-controlled (unsignalled post, or a receive that was not solicited on a solicited-wait
 * stream); errors always do.
 */
final class EvdImpl extends EngineObject implements EventDispatcher
{
    private static final int KIND_DTO = 1;
    private static final int KIND_RMR_BIND = 2;
    private static final int KIND_CR = 3;
    private static final int KIND_CONNECTION = 4;
    private static final int KIND_ASYNC = 5;
    private static final int KIND_SOFTWARE = 6;

    /** One queued event; slots are reused, never allocated on the hot path. */
    private static final class Entry
    {
        int kind;
        int number;
        boolean notify;
        Object handle;
        long cookie;
        DtoStatus status;
        long length;
        SrqImpl srq;
        IaAddress address;
        long connQual;
        Object extra;
        int reason;

        void clear()
        {
            handle = null;
            status = null;
            srq = null;
            address = null;
            extra = null;
        }
    }

    final int flags;
    /** True for the async EVD {@code dat_ia_open} created: only the IA's close frees it. */
    final boolean implicitAsync;
    private final long spinNanos;
    private final ReentrantLock lock = new ReentrantLock();

    private Entry[] ring;
    private int head;
    private int count;
    private int notifyCount;
    /** Published copies of {@link #count} and {@link #notifyCount}, read without the lock. */
    private volatile int publishedCount;
    private volatile int publishedNotify;

    private boolean enabled = true;
    private volatile boolean waitable = true;
    private boolean overflowed;
    private volatile CnoImpl cno;

    private volatile Thread waiter;
    private int waiterThreshold;
    private volatile boolean waiterParked;
    /** The waiter blocks in the transport ({@link TransportPort#awaitProgress}) rather than in park. */
    private volatile boolean waiterInTransport;
    private volatile boolean aborted;

    /** Streams that feed this EVD: EP streams, PSPs, RSPs, an IA's async stream (guarded by the IA lock). */
    int streamRefs;
    /** Attached EP DTO streams by completion configuration (guarded by the IA lock). */
    int thresholdStreams;
    int unsignalledStreams;
    int solicitedStreams;
    int requestStreams;
    /** Attached non-DTO streams: connection, CR, async (guarded by the IA lock). */
    int otherStreams;

    EvdImpl(final IaImpl ia, final int qlen, final CnoImpl cno, final int flags, final boolean implicitAsync)
    {
        super(ia, HandleType.EVD);
        this.flags = flags;
        this.implicitAsync = implicitAsync;
        this.cno = cno;
        this.spinNanos = ia.config.evdSpinMicros * 1000L;
        this.ring = newRing(qlen);
    }

    private static Entry[] newRing(final int qlen)
    {
        final Entry[] r = new Entry[qlen];
        for (int i = 0; i < qlen; i++)
        {
            r[i] = new Entry();
        }
        return r;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    int capacity()
    {
        return ring.length;
    }

    CnoImpl cno()
    {
        return cno;
    }

    boolean accepts(final int streamFlag)
    {
        return (flags & streamFlag) != 0;
    }

    /** Whether an EP stream with consumer-controlled notification feeds this EVD. */
    private boolean consumerControlled()
    {
        return unsignalledStreams + solicitedStreams > 0;
    }

    // ------------------------------------------------------------------ producers

    /** A DTO completion. Returns false if the EVD overflowed (the event is lost). */
    boolean postDto(final EpImpl ep, final long cookie, final DtoStatus status, final long length,
        final boolean notify, final SrqImpl srq)
    {
        Locks.lock(lock);
        try
        {
            final Entry e = claim();
            if (e == null)
            {
                return overflow();
            }
            e.kind = KIND_DTO;
            e.number = EventNumber.DTO_COMPLETION_EVENT.value();
            e.handle = ep;
            e.cookie = cookie;
            e.status = status;
            e.length = length;
            e.srq = srq;
            commit(e, notify || status != DtoStatus.SUCCESS);
        }
        finally
        {
            unlockAndReport();
        }
        afterCommit(notify || status != DtoStatus.SUCCESS);
        return true;
    }

    boolean postRmrBind(final RmrImpl rmr, final long cookie, final DtoStatus status, final boolean notify)
    {
        Locks.lock(lock);
        try
        {
            final Entry e = claim();
            if (e == null)
            {
                return overflow();
            }
            e.kind = KIND_RMR_BIND;
            e.number = EventNumber.RMR_BIND_COMPLETION_EVENT.value();
            e.handle = rmr;
            e.cookie = cookie;
            e.status = status;
            commit(e, notify || status != DtoStatus.SUCCESS);
        }
        finally
        {
            unlockAndReport();
        }
        afterCommit(true);
        return true;
    }

    /**
     * A connection request. Returns false, without queuing and without overflow, if the queue
     * is full: the service point then refuses the request (its backlog is this queue).
     */
    boolean postConnectionRequest(final ServicePoint sp, final IaAddress local, final long connQual,
        final CrImpl cr)
    {
        Locks.lock(lock);
        try
        {
            if (isDestroyed() || count == ring.length)
            {
                return false;
            }
            final Entry e = claim();
            e.kind = KIND_CR;
            e.number = EventNumber.CONNECTION_REQUEST_EVENT.value();
            e.handle = sp;
            e.address = local;
            e.connQual = connQual;
            e.extra = cr;
            commit(e, true);
        }
        finally
        {
            lock.unlock();
        }
        afterCommit(true);
        return true;
    }

    boolean postConnection(final EventNumber number, final EpImpl ep, final byte[] privateData)
    {
        Locks.lock(lock);
        try
        {
            final Entry e = claim();
            if (e == null)
            {
                return overflow();
            }
            e.kind = KIND_CONNECTION;
            e.number = number.value();
            e.handle = ep;
            e.extra = privateData;
            commit(e, true);
        }
        finally
        {
            unlockAndReport();
        }
        afterCommit(true);
        return true;
    }

    boolean postAsync(final EventNumber number, final DatHandle handle, final int reason)
    {
        Locks.lock(lock);
        try
        {
            if (isDestroyed())
            {
                return false;
            }
            final Entry e = claim();
            if (e == null)
            {
                // an async EVD that overflows has nowhere to report it
                overflowed = true;
                return false;
            }
            e.kind = KIND_ASYNC;
            e.number = number.value();
            e.handle = handle;
            e.reason = reason;
            commit(e, true);
        }
        finally
        {
            lock.unlock();
        }
        afterCommit(true);
        return true;
    }

    /** The next free slot, or null when full (or destroyed). Lock held. */
    private Entry claim()
    {
        if (isDestroyed() || count == ring.length)
        {
            return null;
        }
        final int slot = head + count;
        return ring[slot >= ring.length ? slot - ring.length : slot];
    }

    /** Makes a claimed slot visible. Lock held. */
    private void commit(final Entry e, final boolean notify)
    {
        e.notify = notify;
        count++;
        if (notify)
        {
            notifyCount++;
            publishedNotify = notifyCount;
        }
        publishedCount = count;
    }

    /** Wakes the waiter or triggers the CNO, outside the lock. */
    private void afterCommit(final boolean notify)
    {
        final Thread w = waiter;
        if (w != null && waitable)
        {
            // a direct waiter takes the notification; the CNO is not triggered
            if (waiterParked && publishedCount >= waiterThreshold && publishedNotify > 0)
            {
                wake(w);
            }
            return;
        }
        final CnoImpl c = cno;
        if (notify && c != null && enabled)
        {
            c.trigger(this);
        }
    }

    /** Set under the lock when an overflow must be reported once the lock is released. */
    private boolean reportOverflow;

    /** Records an overflow: the event is lost and the EVD is broken for waiters. Lock held. */
    private boolean overflow()
    {
        if (!isDestroyed() && !overflowed)
        {
            overflowed = true;
            reportOverflow = true;
        }
        return false;
    }

    /** Releases the lock, then reports a first overflow to the IA's async EVD and wakes a waiter. */
    private void unlockAndReport()
    {
        final boolean report = reportOverflow;
        reportOverflow = false;
        lock.unlock();
        if (report)
        {
            ia.reportAsync(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, this, AsyncErrorReason.EVD_OVERFLOW_ERROR, this);
            final Thread w = waiter;
            if (w != null)
            {
                wake(w);
            }
        }
    }

    /** Unparks the waiter, or returns it from the transport it blocks in. */
    private void wake(final Thread w)
    {
        LockSupport.unpark(w);
        if (waiterInTransport && Thread.currentThread() != w)
        {
            ia.port().wakeWaiter();
        }
    }

    // ------------------------------------------------------------------ consumers

    /**
     * Whether a thread is blocked in {@code dat_evd_wait}. A waiter that {@code dat_evd_set_unwaitable}
     * woke is leaving with {@code DAT_INVALID_STATE} and dequeues nothing: it no longer counts,
     * even before its thread has run again.
     */
    private boolean blockedWaiter()
    {
        return waiter != null && waitable;
    }

    @Override
    public DatStatus dequeue(final DatEvent event)
    {
        checkLive();
        if (event == null)
        {
            throw Errors.invalidParameter(2, "event is null");
        }
        if (blockedWaiter())
        {
            throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                "a thread is blocked in dat_evd_wait on this EVD");
        }
        if (publishedCount == 0)
        {
            if (ia.pollsInline && ia.port().poll() > 0 && publishedCount > 0)
            {
                return dequeueLocked(event);
            }
            return DatStatus.QUEUE_EMPTY;
        }
        return dequeueLocked(event);
    }

    private DatStatus dequeueLocked(final DatEvent event)
    {
        SrqImpl reaped;
        Locks.lock(lock);
        try
        {
            if (blockedWaiter())
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                    "a thread is blocked in dat_evd_wait on this EVD");
            }
            if (count == 0)
            {
                return DatStatus.QUEUE_EMPTY;
            }
            reaped = pop(event);
        }
        finally
        {
            lock.unlock();
        }
        if (reaped != null)
        {
            reaped.reaped();
        }
        return DatStatus.SUCCESS;
    }

    /** Moves the first event into {@code event}; returns the SRQ whose buffer was reaped, if any. Lock held. */
    private SrqImpl pop(final DatEvent event)
    {
        final Entry e = ring[head];
        head = head + 1 == ring.length ? 0 : head + 1;
        count--;
        if (e.notify)
        {
            notifyCount--;
            publishedNotify = notifyCount;
        }
        publishedCount = count;
        event.eventNumber = e.number;
        event.evdHandle = this;
        switch (e.kind)
        {
            case KIND_DTO -> event.dto.set((EpImpl) e.handle, e.cookie, e.status, e.length);
            case KIND_RMR_BIND -> event.rmrBind.set((RmrImpl) e.handle, e.cookie, e.status);
            case KIND_CR -> event.crArrival.set((ServicePoint) e.handle, e.address, e.connQual, (CrImpl) e.extra);
            case KIND_CONNECTION -> event.connection.set((EpImpl) e.handle, (byte[]) e.extra);
            case KIND_ASYNC -> event.asyncError.set((DatHandle) e.handle, e.reason);
            case KIND_SOFTWARE -> event.software.pointer = e.extra;
            default -> throw new IllegalStateException("event kind " + e.kind);
        }
        final SrqImpl srq = e.srq;
        e.clear();
        return srq;
    }

    @Override
    public DatStatus wait(final long timeoutMicros, final int threshold, final DatEvent event, final DatCount nmore)
    {
        checkLive();
        Errors.checkTimeout(timeoutMicros, 2);
        if (threshold <= 0 || threshold > ring.length)
        {
            throw Errors.invalidParameter(3, "threshold " + threshold + " is outside 1.." + ring.length
                + " (the EVD's queue length)");
        }
        if (event == null)
        {
            throw Errors.invalidParameter(4, "event is null");
        }
        SrqImpl reaped = null;
        boolean popped = false;
        Locks.lock(lock);
        try
        {
            if (!waitable)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "the EVD is unwaitable");
            }
            if (waiter != null)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                    "another thread is already waiting on this EVD");
            }
            if (overflowed)
            {
                throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, "the EVD overflowed and lost events");
            }
            if (threshold > 1 && consumerControlled())
            {
                throw Errors.invalidState(solicitedStreams > 0 ? DatReturnSubtype.INVALID_STATE_EVD_CONFIG_SOLICITED
                    : DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                    "threshold must be 1 on an EVD fed by an unsignalled or solicited-wait stream");
            }
            if (count >= threshold && notifyCount > 0)
            {
                reaped = pop(event);
                popped = true;
                setNmore(nmore, count);
            }
            else if (timeoutMicros == 0)
            {
                setNmore(nmore, count);
                return DatStatus.TIMEOUT_EXPIRED;
            }
            else
            {
                aborted = false;
                waiterThreshold = threshold;
                waiter = Thread.currentThread();
            }
        }
        finally
        {
            lock.unlock();
        }
        if (popped)
        {
            if (reaped != null)
            {
                reaped.reaped();
            }
            return DatStatus.SUCCESS;
        }
        return block(timeoutMicros, threshold, event, nmore);
    }

    private DatStatus block(final long timeoutMicros, final int threshold, final DatEvent event, final DatCount nmore)
    {
        final boolean infinite = timeoutMicros == io.jdat.Dat.TIMEOUT_INFINITE;
        final long start = System.nanoTime();
        final long deadline = infinite ? Long.MAX_VALUE : start + timeoutMicros * 1000L;
        final long spinUntil = start + spinNanos;
        int spins = 0;
        boolean polling = ia.pollsInline;
        while (true)
        {
            if (!(publishedCount >= threshold && publishedNotify > 0) && !aborted && waitable && !overflowed
                && !Thread.currentThread().isInterrupted())
            {
                final long now = System.nanoTime();
                if (now - deadline < 0)
                {
                    if (now - spinUntil < 0)
                    {
                        if (ia.pollsInline)
                        {
                            ia.port().poll();
                        }
                        Thread.onSpinWait();
                        spins++;
                        continue;
                    }
                    waiterParked = true;
                    waiterInTransport = ia.pollsInline;
                    // re-check after announcing the park, so a producer cannot miss us
                    if (!(publishedCount >= threshold && publishedNotify > 0) && !aborted && waitable)
                    {
                        // block in the transport, making progress there, when it can; else park
                        if (!(ia.pollsInline && ia.port().awaitProgress(infinite ? Long.MAX_VALUE : deadline - now)))
                        {
                            waiterInTransport = false;
                            if (polling)
                            {
                                // the transport must not count on this thread any more
                                polling = false;
                                ia.port().pollingStopped();
                            }
                            if (!(publishedCount >= threshold && publishedNotify > 0) && !aborted && waitable)
                            {
                                if (infinite)
                                {
                                    LockSupport.park(this);
                                }
                                else
                                {
                                    LockSupport.parkNanos(this, deadline - now);
                                }
                            }
                        }
                    }
                    waiterInTransport = false;
                    waiterParked = false;
                    continue;
                }
            }
            final SrqImpl reaped;
            Locks.lock(lock);
            try
            {
                if (aborted)
                {
                    waiter = null;
                    throw Errors.abort("the EVD was freed or its IA closed while waiting");
                }
                if (!waitable)
                {
                    waiter = null;
                    throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE,
                        "the EVD was made unwaitable while waiting");
                }
                if (count >= threshold && notifyCount > 0)
                {
                    waiter = null;
                    reaped = pop(event);
                    setNmore(nmore, count);
                }
                else if (overflowed)
                {
                    waiter = null;
                    throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, "the EVD overflowed and lost events");
                }
                else if (Thread.interrupted())
                {
                    waiter = null;
                    setNmore(nmore, count);
                    throw Errors.interrupted("the waiting thread was interrupted");
                }
                else if (System.nanoTime() - deadline >= 0)
                {
                    waiter = null;
                    setNmore(nmore, count);
                    return DatStatus.TIMEOUT_EXPIRED;
                }
                else
                {
                    continue;
                }
            }
            finally
            {
                lock.unlock();
            }
            if (reaped != null)
            {
                reaped.reaped();
            }
            return DatStatus.SUCCESS;
        }
    }

    private static void setNmore(final DatCount nmore, final int value)
    {
        if (nmore != null)
        {
            nmore.value = value;
        }
    }

    @Override
    public DatStatus postSe(final DatEvent event)
    {
        checkLive();
        if (event == null || event.eventNumber != EventNumber.SOFTWARE_EVENT.value())
        {
            throw Errors.invalidParameter(2, "the event must be a DAT_SOFTWARE_EVENT");
        }
        if ((flags & EvdFlags.SOFTWARE_FLAG) == 0)
        {
            throw Errors.invalidParameter(1, "the EVD was not created with DAT_EVD_SOFTWARE_FLAG");
        }
        Locks.lock(lock);
        try
        {
            final Entry e = claim();
            if (e == null)
            {
                // not an overflow: the consumer is told and nothing is lost
                return DatStatus.QUEUE_FULL;
            }
            e.kind = KIND_SOFTWARE;
            e.number = EventNumber.SOFTWARE_EVENT.value();
            e.extra = event.software.pointer;
            commit(e, true);
        }
        finally
        {
            lock.unlock();
        }
        afterCommit(true);
        return DatStatus.SUCCESS;
    }

    // ------------------------------------------------------------------ control

    @Override
    public void enable()
    {
        checkLive();
        final boolean trigger;
        Locks.lock(lock);
        try
        {
            trigger = !enabled && notifyCount > 0 && !blockedWaiter();
            enabled = true;
        }
        finally
        {
            lock.unlock();
        }
        final CnoImpl c = cno;
        if (trigger && c != null)
        {
            // events that arrived while disabled are still waiting: do not lose the notification
            c.trigger(this);
        }
    }

    @Override
    public void disable()
    {
        checkLive();
        Locks.lock(lock);
        try
        {
            enabled = false;
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public void setUnwaitable()
    {
        checkLive();
        waitable = false;
        final Thread w = waiter;
        if (w != null)
        {
            wake(w);
        }
    }

    @Override
    public void clearUnwaitable()
    {
        checkLive();
        waitable = true;
    }

    @Override
    public void modifyCno(final Cno cnoHandle)
    {
        synchronized (ia.lock)
        {
            checkLive();
            final CnoImpl next = cast(cnoHandle, CnoImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_CNO, true, "cno");
            final CnoImpl prev = cno;
            if (prev == next)
            {
                return;
            }
            if (next != null)
            {
                next.attach(this);
            }
            cno = next;
            if (prev != null)
            {
                prev.detach(this);
            }
        }
    }

    @Override
    public void resize(final int evdMinQlen)
    {
        synchronized (ia.lock)
        {
            checkLive();
            if (evdMinQlen <= 0 || evdMinQlen > ia.config.maxEvdQlen)
            {
                throw Errors.invalidParameter(2, "queue length " + evdMinQlen + " is outside 1.."
                    + ia.config.maxEvdQlen);
            }
            Locks.lock(lock);
            try
            {
                if (count > evdMinQlen)
                {
                    throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE,
                        count + " events are queued, more than the new length " + evdMinQlen);
                }
                if (blockedWaiter() && waiterThreshold > evdMinQlen)
                {
                    throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                        "a waiter's threshold " + waiterThreshold + " exceeds the new length");
                }
                final Entry[] next = newRing(evdMinQlen);
                for (int i = 0; i < count; i++)
                {
                    final int from = (head + i) % ring.length;
                    final Entry t = next[i];
                    next[i] = ring[from];
                    ring[from] = t;
                }
                ring = next;
                head = 0;
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    @Override
    public void query(final long evdParamMask, final EvdParam param)
    {
        checkLive();
        Errors.checkQuery(evdParamMask, EvdParam.FIELD_ALL, param, 3);
        if (param == null)
        {
            return;
        }
        param.iaHandle = ia;
        param.evdQlen = ring.length;
        param.cnoHandle = cno;
        param.evdFlags = flags;
        int state = (enabled ? EvdState.ENABLED : EvdState.DISABLED) | (waitable ? EvdState.WAITABLE
            : EvdState.UNWAITABLE);
        if (solicitedStreams > 0)
        {
            state |= EvdState.CONFIG_SOLICITED;
        }
        else if (thresholdStreams > 0)
        {
            state |= EvdState.CONFIG_THRESHOLD;
        }
        else
        {
            state |= EvdState.CONFIG_NOTIFY;
        }
        param.evdState = state;
    }

    @Override
    public void free()
    {
        synchronized (ia.lock)
        {
            checkLive();
            if (implicitAsync && !ia.isDestroyed())
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                    "the async EVD dat_ia_open created is freed by dat_ia_close");
            }
            if (streamRefs > 0)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                    streamRefs + " event streams still feed this EVD");
            }
            destroy();
            ia.forget(this);
        }
    }

    /**
     * Destroys: a waiter returns DAT_ABORT; the CNO loses this EVD; SRQ buffers whose completions
     * are dropped here are no longer outstanding. IA lock held.
     */
    void destroy()
    {
        final java.util.List<SrqImpl> dropped = new java.util.ArrayList<>();
        Locks.lock(lock);
        try
        {
            markDestroyed();
            aborted = true;
            for (int i = 0; i < count; i++)
            {
                final Entry e = ring[(head + i) % ring.length];
                if (e.srq != null)
                {
                    dropped.add(e.srq);
                }
                e.clear();
            }
            count = 0;
            notifyCount = 0;
            publishedCount = 0;
            publishedNotify = 0;
        }
        finally
        {
            lock.unlock();
        }
        for (final SrqImpl srq : dropped)
        {
            srq.reaped();
        }
        final Thread w = waiter;
        if (w != null)
        {
            wake(w);
        }
        final CnoImpl c = cno;
        if (c != null)
        {
            cno = null;
            c.detach(this);
        }
    }

    /** Whether a notification event is queued and a CNO waiter would be told about it. */
    boolean hasNotification()
    {
        return publishedNotify > 0 && enabled && !blockedWaiter();
    }

    /** Number of queued events (a snapshot). */
    int queued()
    {
        return publishedCount;
    }

    @Override
    public String toString()
    {
        return "EVD[qlen=" + ring.length + ", flags=0x" + Integer.toHexString(flags) + ", queued=" + publishedCount
            + "]";
    }
}

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
import io.jdat.engine.channel.FlightEvents;
import io.jdat.spi.DatArg;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An event dispatcher: a ring of preallocated event records fed by any number of streams, with
 * at most one blocked waiter and an optional CNO.
 *
 * <p>The ring ({@link EventRing}) is our own rather than a library queue because DAT asks more of
 * it than a queue gives: a threshold counted in notification events, a snapshot count
 * ({@code nmore}), a resize that keeps every queued event, overflow that is detected and
 * reported, and exclusive ownership by a blocked waiter. Producers claim a record with one
 * compare-and-set and take the EVD's lock only when it is full, being resized or destroyed;
 * {@code dat_evd_dequeue} takes no lock, nor does a wait whose events are queued; one that must
 * wait takes it once, to register (on a {@code nonthreadsafe} IA not even that: {@link EvdWait#enter}),
 * and leaves with its event without it. The wait itself (spin,
 * yield, park) is {@link EvdWait}'s: a waiter announces that it parks before it looks a last time,
 * and a producer looks for a parked waiter after it published, so no wake-up is lost.
 *
 * <p>Notification: an event "notifies" if it may wake a waiter or trigger the CNO. Connection,
 * CR, async and software events always do; a DTO completion does unless its stream is
 * consumer-controlled (unsignalled post, or a receive that was not solicited on a solicited-wait
 * stream); errors always do.
 *
 * <p>Direct mode ({@link RecvRing}, "Direct mode"): the receive EVD of one endpoint with nothing
 * else behind it (the common ping-pong shape) takes its completions straight from that endpoint's
 * receive slots. It enters the mode when the endpoint is created (by default; {@code evd_direct=off}
 * or {@code -Djdat.evd.direct=false} keep it out) and leaves it for good, under its lock, before anything the
 * slots cannot give, moving the completed slots into {@link #ring} in order ({@link #leaveDirect}).
 */
final class EvdImpl extends EngineObject implements EventDispatcher
{
    final int flags;
    /** True for the async EVD {@code dat_ia_open} created: only the IA's close frees it. */
    final boolean implicitAsync;
    /** Allocated after the ring: its words, written on every wait, off the lines producers read. */
    final ReentrantLock lock;

    /** The events; replaced only by dat_evd_resize (IA and EVD lock held, {@link #resizing} set). */
    volatile EventRing ring;
    volatile boolean resizing;

    /** Read by producers without the lock (whether to trigger the CNO). */
    private volatile boolean enabled = true;
    volatile boolean waitable = true;
    /**
     * Volatile: a {@code nonthreadsafe} IA's waiter registers without the lock, storing its thread
     * and then reading this, while the producer that sets it reads the thread after (EvdWait#enter).
     */
    volatile boolean overflowed;
    private volatile CnoImpl cno;

    /** The wait ({@link EvdWait}): the waiter's spin, yields and park, and how a producer wakes it. */
    private final EvdWait waits;
    /** The thread in dat_evd_wait, its threshold, the abort ({@code waits.waiter}). */
    private final EvdWaiter waiting;

    /** On a {@code nonthreadsafe} IA: the one endpoint whose posts claim here as the consumer. */
    final ConsumerClaims consumerClaims = new ConsumerClaims();

    /** Direct mode: the receive ring whose slots hold this EVD's completions, or null. */
    volatile RecvRing direct;
    /** In direct mode: the endpoint whose receives they are. */
    private EpImpl directEp;

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
        this.waits = new EvdWait(this, ia);
        this.waiting = waits.waiter;
        this.ring = new EventRing(qlen, false, ia.singleWriter);
        this.lock = new ReentrantLock();
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    int capacity()
    {
        return ring.capacity();
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
    boolean consumerControlled()
    {
        return unsignalledStreams + solicitedStreams > 0;
    }

    // ------------------------------------------------------------------ producers

    /**
     * A DTO completion. Returns false if the EVD overflowed (the event is lost). Takes no lock
     * while the EVD has room: one compare-and-set claims the record, a write of its sequence
     * publishes it.
     */
    boolean postDto(final EpImpl ep, final long cookie, final DtoStatus status, final long length,
        final boolean notify, final SrqImpl srq)
    {
        return postDto(ep, cookie, status, length, notify, srq, true, false);
    }

    /**
     * {@link #postDto(EpImpl, long, DtoStatus, long, boolean, SrqImpl)} from a thread that holds an
     * engine lock when {@code mayCallAgent} is false: a CNO's proxy agent, consumer code, then
     * runs on a thread of its own ({@link CnoImpl#trigger(EvdImpl, boolean)}). {@code byConsumer}: the
     * caller is the consumer posting on the endpoint that claims for it ({@link ConsumerClaims}), in
     * its own call ({@link EventRing#claimAsConsumer}).
     */
    boolean postDto(final EpImpl ep, final long cookie, final DtoStatus status, final long length,
        final boolean notify, final SrqImpl srq, final boolean mayCallAgent, final boolean byConsumer)
    {
        final boolean notifies = notify || status != DtoStatus.SUCCESS;
        if (direct != null)
        {
            // an event from another source: the slots' events go first
            leaveDirect();
        }
        final EventRing r = ring;
        final long p = !notifies && !r.counting() ? EventRing.CLOSED : byConsumer ? r.claimAsConsumer() : r.claim();
        if (p < 0)
        {
            return postDtoLocked(ep, cookie, status, length, notifies, srq, mayCallAgent);
        }
        r.fillDto(p, ep, cookie, status, length, srq);
        if (byConsumer)
        {
            r.publishAsConsumer(p, notifies);
        }
        else
        {
            r.publish(p, notifies);
        }
        afterCommit(notifies, mayCallAgent);
        return true;
    }

    /** A DTO completion when the ring is full, resized or gone. */
    private boolean postDtoLocked(final EpImpl ep, final long cookie, final DtoStatus status, final long length,
        final boolean notifies, final SrqImpl srq, final boolean mayCallAgent)
    {
        Locks.lock(lock);
        try
        {
            leaveDirectLocked();
            if (!notifies)
            {
                countNotifications();
            }
            final long p = claim();
            if (p < 0)
            {
                return overflow();
            }
            ring.fillDto(p, ep, cookie, status, length, srq);
            commit(p, notifies);
        }
        finally
        {
            unlockAndReport();
        }
        afterCommit(notifies, mayCallAgent);
        return true;
    }

    /** An RMR bind's completion, from the thread holding its endpoint's lock: a CNO's agent runs on its own thread. */
    boolean postRmrBind(final RmrImpl rmr, final long cookie, final DtoStatus status, final boolean notify)
    {
        final boolean notifies = notify || status != DtoStatus.SUCCESS;
        Locks.lock(lock);
        try
        {
            leaveDirectLocked();
            if (!notifies)
            {
                countNotifications();
            }
            final long p = claim();
            final EventRing.Entry e = p < 0 ? null : ring.entry(p);
            if (e == null)
            {
                return overflow();
            }
            e.kind = EventRing.KIND_RMR_BIND;
            e.number = EventNumber.RMR_BIND_COMPLETION_EVENT.value();
            e.handle = rmr;
            ring.cookie(p, cookie);
            e.status = status;
            commit(p, notifies);
        }
        finally
        {
            unlockAndReport();
        }
        afterCommit(true, false);
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
            leaveDirectLocked();
            final long p = claim();
            final EventRing.Entry e = p < 0 ? null : ring.entry(p);
            if (e == null)
            {
                return false;
            }
            e.kind = EventRing.KIND_CR;
            e.number = EventNumber.CONNECTION_REQUEST_EVENT.value();
            e.handle = sp;
            e.address = local;
            e.connQual = connQual;
            e.extra = cr;
            commit(p, true);
        }
        finally
        {
            lock.unlock();
        }
        afterCommit(true, true);
        return true;
    }

    boolean postConnection(final EventNumber number, final EpImpl ep, final byte[] privateData)
    {
        Locks.lock(lock);
        try
        {
            leaveDirectLocked();
            final long p = claim();
            final EventRing.Entry e = p < 0 ? null : ring.entry(p);
            if (e == null)
            {
                return overflow();
            }
            e.kind = EventRing.KIND_CONNECTION;
            e.number = number.value();
            e.handle = ep;
            e.extra = privateData;
            commit(p, true);
        }
        finally
        {
            unlockAndReport();
        }
        afterCommit(true, true);
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
            leaveDirectLocked();
            final long p = claim();
            final EventRing.Entry e = p < 0 ? null : ring.entry(p);
            if (e == null)
            {
                // an async EVD that overflows has nowhere to report it
                overflowed = true;
                return false;
            }
            e.kind = EventRing.KIND_ASYNC;
            e.number = number.value();
            e.handle = handle;
            e.reason = reason;
            commit(p, true);
        }
        finally
        {
            lock.unlock();
        }
        afterCommit(true, true);
        return true;
    }

    /**
     * Claims the next record of the current ring under the lock: its position, or a negative
     * value when full (or destroyed). Lock held, so no resize or destroy runs meanwhile; producers
     * without the lock may claim beside it.
     */
    private long claim()
    {
        return isDestroyed() ? EventRing.CLOSED : ring.claim();
    }

    /**
     * Before the first event that does not notify: moves the events into a ring of the same
     * length that counts notifications, as {@link #resize} moves them (consumers that find the old
     * ring empty meanwhile wait for this lock). Lock held.
     */
    private void countNotifications()
    {
        final EventRing r = ring;
        if (!r.counting() && !isDestroyed())
        {
            resizing = true;
            ring = r.moveTo(r.capacity(), true);
            resizing = false;
        }
    }

    /** Makes a claimed record visible to consumers. Lock held. */
    private void commit(final long position, final boolean notify)
    {
        ring.publish(position, notify);
    }

    /** Wakes the waiter or triggers the CNO, outside the lock; the agent on its own thread unless mayCallAgent. */
    private void afterCommit(final boolean notify, final boolean mayCallAgent)
    {
        final CnoImpl c = cno;
        final boolean parked = waits.parked;
        if (c == null && !parked)
        {
            // nobody to tell (a waiter that spins sees the event itself): the waiter's words, which
            // its consumer writes on every wait, stay on the consumer's core
            return;
        }
        final Thread w = waiting.thread;
        if (w != null && waitable)
        {
            // a direct waiter takes the notification; the CNO is not triggered
            if (parked && waits.readyNow(waiting.threshold))
            {
                waits.wake(w);
            }
            return;
        }
        if (notify && c != null && enabled)
        {
            c.trigger(this, mayCallAgent);
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
            FlightEvents.evdOverflow(this, ring.capacity());
            ia.reportAsync(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, this, AsyncErrorReason.EVD_OVERFLOW_ERROR, this);
            final Thread w = waiting.thread;
            if (w != null)
            {
                waits.wake(w);
            }
        }
    }

    // ------------------------------------------------------------------ direct mode

    /**
     * Enters direct mode for {@code ep}'s receives if this EVD has nothing else behind it and the
     * mode is on; {@code ep} is being created (IA lock held), so nothing is posted or placed yet.
     */
    void tryDirect(final EpImpl ep, final RecvQueue recvs)
    {
        if (!ia.config.evdDirect || ep.srq != null || flags != EvdFlags.DTO_FLAG || streamRefs != 1
            || thresholdStreams != 1 || cno != null || ring.capacity() < ep.attr.maxRecvDtos)
        {
            return;
        }
        Locks.lock(lock);
        try
        {
            if (isDestroyed() || overflowed || resizing || ring.count() != 0 || waiting.thread != null
                || direct != null)
            {
                return;
            }
            directEp = ep;
            recvs.enterDirect(this);
            direct = recvs.ring();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The endpoint of direct mode's events (read with {@link #direct}). */
    EpImpl directEp()
    {
        return directEp;
    }

    /** Ends direct mode, if on, and wakes a parked waiter to look at the ring. */
    void leaveDirect()
    {
        if (direct == null)
        {
            return;
        }
        Locks.lock(lock);
        try
        {
            leaveDirectLocked();
        }
        finally
        {
            unlockAndReport();
        }
        wakeParked();
    }

    /**
     * Ends direct mode, if on: the completed slots move into the ring, in order, and every
     * consumer reads the ring from now on. Lock held; a parked waiter is the caller's to wake.
     */
    private void leaveDirectLocked()
    {
        final RecvRing d = direct;
        if (d == null)
        {
            return;
        }
        final long h = d.closeDirect();
        final long t = d.tail();
        long e = h;
        while (e < t && d.completedAt(e))
        {
            final RecvBuffer b = d.slot(e);
            final long length = b.completedLength();
            if (length >= 0)
            {
                postMoved(b.cookie(), length);
            }
            e++;
        }
        // the ring back in its ordinary mode before the EVD stops naming it: a flush that finds
        // direct null without the lock (leaveDirect) goes on to close the ring, which must be out
        // of direct mode by then; one that still finds it set waits here for the lock, and a
        // consumer or a placer that still reads it finds the mode ended and takes the lock, as
        // during the move
        d.endDirect(e);
        direct = null;
    }

    /** Waits until a move out of direct mode that has begun is over: the mover holds the lock throughout. */
    void awaitMove()
    {
        Locks.lock(lock);
        lock.unlock();
    }

    /** A completion of direct mode's endpoint into the ring, or the overflow. Lock held. */
    private void postMoved(final long cookie, final long length)
    {
        final long p = claim();
        if (p < 0)
        {
            overflow();
            return;
        }
        ring.fillDto(p, directEp, cookie, DtoStatus.SUCCESS, length, null);
        commit(p, true);
    }

    private void wakeParked()
    {
        final Thread w = waiting.thread;
        if (w != null && waits.parked)
        {
            waits.wake(w);
        }
    }

    /** A completion flipped in its slot in direct mode: the waiter's look (the fence came before). */
    void afterDirect(final boolean mayCallAgent)
    {
        afterCommit(true, mayCallAgent);
    }

    /**
     * A placer flipped the slot of position {@code p} and then found direct mode ended: under the
     * lock (the move is over), posts the completion unless the move took it.
     */
    void directLate(final RecvRing r, final long p, final RecvBuffer b, final long length, final boolean mayCallAgent)
    {
        Locks.lock(lock);
        try
        {
            if (r.head() != p)
            {
                // the move took it
                return;
            }
            final long cookie = b.cookie();
            r.advance();
            postMoved(cookie, length);
        }
        finally
        {
            unlockAndReport();
        }
        afterCommit(true, mayCallAgent);
    }

    // ------------------------------------------------------------------ consumers

    /**
     * Whether a thread is blocked in {@code dat_evd_wait}. A waiter that {@code dat_evd_set_unwaitable}
     * woke is leaving with {@code DAT_INVALID_STATE} and dequeues nothing: it no longer counts,
     * even before its thread has run again.
     */
    private boolean blockedWaiter()
    {
        return waiting.thread != null && waitable;
    }

    @Override
    public DatStatus dequeue(final DatEvent event)
    {
        checkLive();
        if (event == null)
        {
            throw Errors.invalidParameter(DatArg.EVD_DEQUEUE_EVENT, "event is null");
        }
        if (blockedWaiter())
        {
            throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                "a thread is blocked in dat_evd_wait on this EVD");
        }
        final RecvRing d = direct;
        if (d != null)
        {
            return waits.dequeueDirect(d, event);
        }
        final EventRing r = ring;
        if (r.take(event, this, 1, false) >= 0)
        {
            return DatStatus.SUCCESS;
        }
        if (ia.pollsInline && ia.port().poll(this) > 0 && ring.take(event, this, 1, false) >= 0)
        {
            return DatStatus.SUCCESS;
        }
        if (resizing || ring != r)
        {
            // dat_evd_resize is moving the events: wait for it, then look again under the lock,
            // or a resize that follows could move them away from under this look as well
            Locks.lock(lock);
            try
            {
                return ring.take(event, this, 1, false) >= 0 ? DatStatus.SUCCESS : DatStatus.QUEUE_EMPTY;
            }
            finally
            {
                lock.unlock();
            }
        }
        return DatStatus.QUEUE_EMPTY;
    }

    @Override
    public DatStatus wait(final long timeoutMicros, final int threshold, final DatEvent event, final DatCount nmore)
    {
        checkLive();
        Errors.checkTimeout(timeoutMicros, DatArg.EVD_WAIT_TIMEOUT);
        if (threshold <= 0 || threshold > ring.capacity())
        {
            throw Errors.invalidParameter(DatArg.EVD_WAIT_THRESHOLD, "threshold " + threshold + " is outside 1.."
                + ring.capacity() + " (the EVD's queue length)");
        }
        if (event == null)
        {
            throw Errors.invalidParameter(DatArg.EVD_WAIT_EVENT, "event is null");
        }
        if (threshold > 1 && direct != null)
        {
            // the slots give no count above one event cheaply: the ring does
            leaveDirect();
        }
        if (waiting.thread == null && !overflowed && (threshold == 1 || !consumerControlled())
            && waiting.enterQuick())
        {
            // an event already queued: taken without the lock, as dat_evd_dequeue takes it, while
            // dat_evd_set_unwaitable waits for this take to end before the EVD becomes unwaitable
            try
            {
                if (waits.take(event, threshold, nmore))
                {
                    return DatStatus.SUCCESS;
                }
            }
            finally
            {
                waiting.leaveQuick();
            }
        }
        return waits.enter(timeoutMicros, threshold, event, nmore);
    }

    @Override
    public DatStatus postSe(final DatEvent event)
    {
        checkLive();
        if (event == null || event.eventNumber != EventNumber.SOFTWARE_EVENT.value())
        {
            throw Errors.invalidParameter(DatArg.EVD_POST_SE_EVENT, "the event must be a DAT_SOFTWARE_EVENT");
        }
        if ((flags & EvdFlags.SOFTWARE_FLAG) == 0)
        {
            throw Errors.invalidParameter(DatArg.EVD_POST_SE_EVD, "the EVD was not created with DAT_EVD_SOFTWARE_FLAG");
        }
        // no lock while the ring takes claims; a resize or a destroy in progress: under the lock
        leaveDirect();
        final EventRing r = ring;
        final long p = r.claim();
        if (p == EventRing.CLOSED)
        {
            return postSeLocked(event);
        }
        if (p == EventRing.FULL)
        {
            // not an overflow: the consumer is told and nothing is lost
            return DatStatus.QUEUE_FULL;
        }
        r.entry(p).fillSoftware(event.software.pointer);
        r.publish(p, true);
        afterCommit(true, true);
        return DatStatus.SUCCESS;
    }

    private DatStatus postSeLocked(final DatEvent event)
    {
        Locks.lock(lock);
        try
        {
            final long p = claim();
            if (p < 0)
            {
                return DatStatus.QUEUE_FULL;
            }
            ring.entry(p).fillSoftware(event.software.pointer);
            commit(p, true);
        }
        finally
        {
            lock.unlock();
        }
        afterCommit(true, true);
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
            // enabled first, then look: a producer (without the lock) publishes first, then
            // reads enabled, so one of the two sees the other's write
            final boolean was = enabled;
            enabled = true;
            ring.settleClaims();
            trigger = !was && ring.notifications() > 0 && !blockedWaiter();
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
        // under the lock: a waiter deciding under it sees waitable stand still, as producers no
        // longer take the lock and cannot be what orders the two. A wait taking a queued event
        // without the lock ends first: it read the flag before this set, so its take must also come
        // before it, or an event arrives after the set and an unwaitable EVD hands it to a waiter
        Locks.lock(lock);
        try
        {
            waiting.closeQuick();
            waitable = false;
        }
        finally
        {
            lock.unlock();
        }
        final Thread w = waiting.thread;
        if (w != null)
        {
            waits.wake(w);
        }
    }

    @Override
    public void clearUnwaitable()
    {
        checkLive();
        Locks.lock(lock);
        try
        {
            waitable = true;
            waiting.openQuick();
        }
        finally
        {
            lock.unlock();
        }
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
                leaveDirect();
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
        resizeLocked(evdMinQlen);
        // a waiter that looked at the old ring while the events were on their way may have
        // parked (it announced itself before it looked): let it look again
        wakeParked();
    }

    private void resizeLocked(final int evdMinQlen)
    {
        synchronized (ia.lock)
        {
            checkLive();
            if (evdMinQlen <= 0 || evdMinQlen > ia.config.maxEvdQlen)
            {
                throw Errors.invalidParameter(DatArg.EVD_RESIZE_MIN_QLEN,
                    "queue length " + evdMinQlen + " is outside 1.." + ia.config.maxEvdQlen);
            }
            Locks.lock(lock);
            try
            {
                leaveDirectLocked();
                // no producer claims while the events are counted (nor, if they fit, moved)
                ring.close();
                final int count = ring.count();
                if (count > evdMinQlen)
                {
                    ring.reopen();
                    throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE,
                        count + " events are queued, more than the new length " + evdMinQlen);
                }
                if (blockedWaiter() && waiting.threshold > evdMinQlen)
                {
                    ring.reopen();
                    throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                        "a waiter's threshold " + waiting.threshold + " exceeds the new length");
                }
                // consumers take no lock: one that finds the old ring empty meanwhile waits for this lock
                resizing = true;
                ring = ring.moveTo(evdMinQlen);
                resizing = false;
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
        Errors.checkQuery(evdParamMask, EvdParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param == null)
        {
            return;
        }
        param.iaHandle = ia;
        param.evdQlen = ring.capacity();
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
        Locks.lock(lock);
        try
        {
            leaveDirectLocked();
            markDestroyed();
            waiting.aborted = true;
            ring.drain();
        }
        finally
        {
            lock.unlock();
        }
        final Thread w = waiting.thread;
        if (w != null)
        {
            waits.wake(w);
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
        final RecvRing d = direct;
        return (d != null ? d.readyDirect() : ring.notifications() > 0) && enabled && !blockedWaiter();
    }

    /** Number of queued events (a snapshot). */
    int queued()
    {
        final RecvRing d = direct;
        return d != null ? d.countCompleted(d.taken()) : ring.count();
    }

    @Override
    public String toString()
    {
        return "EVD[qlen=" + ring.capacity() + ", flags=0x" + Integer.toHexString(flags) + ", queued=" + ring.count()
            + "]";
    }
}

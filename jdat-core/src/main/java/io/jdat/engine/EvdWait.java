package io.jdat.engine;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatStatus;
import io.jdat.engine.channel.TransportPort;
import java.util.concurrent.locks.LockSupport;

/**
 * How a thread blocks in {@code dat_evd_wait} on one EVD, and how a producer wakes it: the
 * spin, the yields of a waiter that shares its core, the park (or the block in the transport),
 * and the protocol between them.
 *
 * <p>The EVD ({@link EvdImpl}) checks a wait and registers its thread under its lock; from there
 * this class runs it. The waiter spins for the IA's {@code evd_spin_us}, looking at the ring's head,
 * yields its core every {@code evd_spin_yield_ns} (or, after a wait that had to give its core away,
 * every {@link EvdWaiter#SHARED_CORE_YIELD_NANOS}), then announces that it parks ({@link #parked})
 * and looks a last time before it parks; a producer publishes its event first, then looks at
 * {@link #parked}, so one of the two sees the other and no wake-up is lost. A consumer that moves
 * the transport itself ({@code pollsInline}) polls in its spin and blocks in the transport
 * ({@link TransportPort#awaitProgress}) rather than in park. In the EVD's direct mode
 * ({@link EvdImpl}, {@link RecvRing}) the looks, the takes and the counts read the receive
 * queue's slots instead of the EVD's ring.
 */
final class EvdWait
{
    /** Looks at the head's record per round of a spinning {@code dat_evd_wait}. */
    private static final int SPIN_LOOKS = 8;
    /**
     * The longest first park of a wait, which needs no {@link AsymmetricFence#heavy}: a direct
     * mode's placer that published while this thread announced its park, and read the announcement
     * too early to wake it, had its store in its CPU's store buffer for a few hundred nanoseconds
     * at most; the re-check after this park sees it. The heavy fence (a system call that interrupts
     * the other CPUs) is paid only by a wait that parks again, one that had nothing for this long.
     */
    private static final long SETTLE_NANOS = 50_000;

    private final EvdImpl evd;
    private final IaImpl ia;
    private final long spinNanos;
    /** The thread in dat_evd_wait, its threshold, the abort: written per wait, on lines of their own. */
    final EvdWaiter waiter;
    /** Written only when the waiter parks: producers look at it after every event. */
    volatile boolean parked;
    /** The waiter blocks in the transport ({@link TransportPort#awaitProgress}) rather than in park. */
    private volatile boolean inTransport;

    EvdWait(final EvdImpl evd, final IaImpl ia)
    {
        this.evd = evd;
        this.ia = ia;
        this.waiter = new EvdWaiter(ia.singleWriter);
        this.spinNanos = ia.config.evdSpinMicros * 1000L;
    }

    /**
     * {@code dat_evd_wait} past the lock-free take of an event already queued ({@link EvdImpl#wait}):
     * checks the wait, registers the waiter in {@link #waiter}, and {@link #block}s.
     *
     * <p>On a threadsafe IA the checks and the registration run under the EVD's lock. The one
     * consumer of a {@code nonthreadsafe} IA's EVD registers without it when its wait may block
     * ({@link #registerAlone}): it stores its thread (a volatile store: the fence) and then reads
     * {@code waitable}, {@code overflowed} and {@code aborted}. Each thread that changes one of these
     * ({@code dat_evd_set_unwaitable}, a producer that overflows the EVD, a destroy) stores it first
     * and reads the thread after, to wake it: a store, then a load of the other's word on each side,
     * so at least one sees the other. A waiter that sees the change leaves by the locked way, which
     * says why; one that does not is woken, and {@link #block} reads the three words again before
     * every park. Nothing else the lock ordered needs the registration: producers, the direct mode's
     * end and a resize wake a waiter through {@link #parked} (announced before the waiter's last
     * look), and the consumer's own calls ({@code dat_evd_dequeue}, a resize, a free) do not run
     * beside its wait on such an IA (its promise: one thread at a time calls on the EVD). A wait of no
     * timeout, or one that finds any of the three words set, takes the lock as before.
     */
    DatStatus enter(final long timeoutMicros, final int threshold, final DatEvent event, final DatCount nmore)
    {
        if (waiter.single && timeoutMicros != 0 && registerAlone(threshold))
        {
            return block(timeoutMicros, threshold, event, nmore);
        }
        Locks.lock(evd.lock);
        try
        {
            if (!evd.waitable)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "the EVD is unwaitable");
            }
            if (waiter.thread != null)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                    "another thread is already waiting on this EVD");
            }
            if (evd.overflowed)
            {
                throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, "the EVD overflowed and lost events");
            }
            if (threshold > 1 && evd.consumerControlled())
            {
                throw Errors.invalidState(evd.solicitedStreams > 0 ? DatReturnSubtype.INVALID_STATE_EVD_CONFIG_SOLICITED
                    : DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                    "threshold must be 1 on an EVD fed by an unsignalled or solicited-wait stream");
            }
            // the count (tail, the producers' line) only for a wait that returns at once
            if (timeoutMicros == 0 ? takeOrCount(event, threshold, nmore) : take(event, threshold, nmore))
            {
                return DatStatus.SUCCESS;
            }
            if (timeoutMicros == 0)
            {
                return DatStatus.TIMEOUT_EXPIRED;
            }
            waiter.aborted = false;
            waiter.threshold = threshold;
            waiter.thread = Thread.currentThread();
        }
        finally
        {
            evd.lock.unlock();
        }
        return block(timeoutMicros, threshold, event, nmore);
    }

    /**
     * The registration of a {@code nonthreadsafe} IA's waiter without the lock ({@link #enter}):
     * true if registered; false, registered or not, where the locked way must decide.
     */
    private boolean registerAlone(final int threshold)
    {
        if (waiter.thread != null || !evd.waitable || evd.overflowed || threshold > 1 && evd.consumerControlled())
        {
            return false;
        }
        waiter.threshold = threshold;
        // a volatile store, then the loads: the fence between them is what the lock gave
        waiter.thread = Thread.currentThread();
        if (evd.waitable && !evd.overflowed && !waiter.aborted)
        {
            return true;
        }
        waiter.leave();
        return false;
    }

    /** Unparks the waiter, or returns it from the transport it blocks in. */
    void wake(final Thread w)
    {
        LockSupport.unpark(w);
        if (inTransport && Thread.currentThread() != w)
        {
            ia.port().wakeWaiter();
        }
    }

    /**
     * Waits, as the thread {@link EvdImpl#wait} registered in {@link #waiter}, until
     * {@code threshold} events are queued, the timeout passes, or the EVD is freed, made
     * unwaitable or overflows; takes the event and leaves.
     */
    DatStatus block(final long timeoutMicros, final int threshold, final DatEvent event, final DatCount nmore)
    {
        final boolean infinite = timeoutMicros == io.jdat.Dat.TIMEOUT_INFINITE;
        final long start = System.nanoTime();
        final long deadline = infinite ? Long.MAX_VALUE : start + timeoutMicros * 1000L;
        final long spinUntil = start + spinNanos;
        final long configured = ia.config.evdSpinYieldNanos;
        long yieldEvery = waiter.yieldEvery(configured, ia.pollsInline);
        long nextYield = waiter.firstYield(start, yieldEvery, configured);
        boolean gaveWay = false;
        boolean polling = ia.pollsInline;
        int blocks = 0;
        while (true)
        {
            if (!looksReady(threshold) && !waiter.aborted && evd.waitable && !evd.overflowed
                && !Thread.currentThread().isInterrupted())
            {
                final long now = System.nanoTime();
                if (now - deadline < 0)
                {
                    if (now - spinUntil < 0)
                    {
                        if (ia.pollsInline)
                        {
                            ia.port().poll(evd);
                        }
                        if (yieldEvery > 0 && now - nextYield >= 0)
                        {
                            // a peer sharing this core gets it now, not after the whole spin
                            final long before = System.nanoTime();
                            Thread.yield();
                            final long after = System.nanoTime();
                            YieldCost.observe(after - before);
                            gaveWay |= EvdWaiter.gaveWay(after - before, configured);
                            yieldEvery = EvdWaiter.nextYieldEvery(yieldEvery, after - before, configured);
                            nextYield = after + yieldEvery;
                        }
                        // the record at the head, several times between the clock and the flags,
                        // so that the first look after it lands comes soon; a consumer that moves
                        // the transport itself looks once, since only its next poll brings one
                        final int looks = ia.pollsInline ? 1 : SPIN_LOOKS;
                        for (int i = 0; i < looks && !looksReady(threshold); i++)
                        {
                            Thread.onSpinWait();
                        }
                        continue;
                    }
                    parked = true;
                    inTransport = ia.pollsInline;
                    // a direct mode's placer publishes, then looks at parked with no fence between
                    // (RecvRing#placeDirect): a park that may be long fences for both first; the
                    // first park of a wait is short instead, and what a placer published as this
                    // thread announced itself is visible when it ends (see SETTLE_NANOS)
                    final boolean settled = blocks > 0 || !AsymmetricFence.ASYMMETRIC;
                    if (settled)
                    {
                        AsymmetricFence.heavy();
                    }
                    blocks++;
                    final long until = settled ? deadline : Math.min(deadline, now + SETTLE_NANOS);
                    // re-check after announcing the park, so a producer cannot miss us; a ring
                    // that a resize is moving may look empty: no park until the resize is done
                    // (it looks for a parked waiter once it is)
                    if (!readyNow(threshold) && !evd.resizing && !waiter.aborted && evd.waitable)
                    {
                        // block in the transport, making progress there, when it can; else park
                        if (!(ia.pollsInline
                            && ia.port().awaitProgress(infinite && settled ? Long.MAX_VALUE : until - now)))
                        {
                            inTransport = false;
                            if (polling)
                            {
                                // the transport must not count on this thread any more
                                polling = false;
                                ia.port().pollingStopped();
                            }
                            if (!readyNow(threshold) && !evd.resizing && !waiter.aborted && evd.waitable)
                            {
                                if (infinite && settled)
                                {
                                    LockSupport.park(evd);
                                }
                                else
                                {
                                    LockSupport.parkNanos(evd, until - now);
                                }
                            }
                        }
                    }
                    inTransport = false;
                    parked = false;
                    gaveWay = true;
                    continue;
                }
            }
            if (!waiter.aborted && waiter.enterQuick())
            {
                // the usual way out takes no lock: while it waits, this thread is the EVD's only
                // consumer (dat_evd_dequeue refuses to run beside it), so the published events
                // counted after the event is taken are what is left at that moment; a
                // dat_evd_set_unwaitable either closed this way first (the lock decides below)
                // or waits for this take to end
                final boolean taken;
                try
                {
                    taken = take(event, threshold, nmore);
                }
                finally
                {
                    waiter.leaveQuick();
                }
                if (taken)
                {
                    waiter.yielding = gaveWay;
                    waiter.leave();
                    return DatStatus.SUCCESS;
                }
            }
            Locks.lock(evd.lock);
            try
            {
                if (waiter.aborted)
                {
                    waiter.thread = null;
                    throw Errors.abort("the EVD was freed or its IA closed while waiting");
                }
                if (!evd.waitable)
                {
                    waiter.thread = null;
                    throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE,
                        "the EVD was made unwaitable while waiting");
                }
                if (take(event, threshold, nmore))
                {
                    waiter.yielding = gaveWay;
                    waiter.thread = null;
                }
                else if (evd.overflowed)
                {
                    waiter.thread = null;
                    throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, "the EVD overflowed and lost events");
                }
                else if (Thread.interrupted())
                {
                    waiter.thread = null;
                    setNmore(nmore, evd.queued());
                    throw Errors.interrupted("the waiting thread was interrupted");
                }
                else if (System.nanoTime() - deadline >= 0)
                {
                    final boolean took = takeOrCount(event, threshold, nmore);
                    waiter.thread = null;
                    return took ? DatStatus.SUCCESS : DatStatus.TIMEOUT_EXPIRED;
                }
                else
                {
                    continue;
                }
            }
            finally
            {
                evd.lock.unlock();
            }
            return DatStatus.SUCCESS;
        }
    }

    /** Whether a waiter's spin may stop looking: an event for it (a look at the head). */
    boolean looksReady(final int threshold)
    {
        final RecvRing d = evd.direct;
        return d != null ? d.readyDirect() : evd.ring.looksReady(threshold);
    }

    /** Whether a waiter with {@code threshold} may return now (a snapshot that reads the producers' side). */
    boolean readyNow(final int threshold)
    {
        final RecvRing d = evd.direct;
        return d != null ? d.readyDirect() : evd.ring.ready(threshold);
    }

    /**
     * A waiter's take, with {@code nmore}: true if it took an event. In direct mode a take that
     * finds the mode ended says false: the waiter looks again under the lock.
     */
    boolean take(final DatEvent event, final int threshold, final DatCount nmore)
    {
        final RecvRing d = evd.direct;
        if (d != null)
        {
            final long taken = d.takeDirect(event, evd, evd.directEp());
            if (taken < 0)
            {
                return false;
            }
            if (nmore != null)
            {
                nmore.value = d.countCompleted(taken + 1);
            }
            return true;
        }
        // one ring for both: a position means nothing in the ring a move replaced it with
        final EventRing r = evd.ring;
        final long taken = r.take(event, evd, threshold, true);
        if (taken < 0)
        {
            return false;
        }
        setNmore(nmore, r.countFrom(taken + 1));
        return true;
    }

    /**
     * Under the lock: takes an event if {@code threshold} are queued (true, {@code nmore} set), else
     * sets {@code nmore} to the count at a moment the threshold was not met.
     */
    boolean takeOrCount(final DatEvent event, final int threshold, final DatCount nmore)
    {
        final RecvRing d = evd.direct;
        if (d != null)
        {
            if (take(event, threshold, nmore))
            {
                return true;
            }
            // completed in order: none at the head, none at all
            setNmore(nmore, 0);
            return false;
        }
        final long left = evd.ring.takeOrCount(event, evd, threshold);
        if (left >= 0)
        {
            setNmore(nmore, evd.ring.countFrom(left + 1));
            return true;
        }
        setNmore(nmore, (int) -(left + 1));
        return false;
    }

    /** {@code dat_evd_dequeue} in direct mode: from the slots, or from the ring once the mode ended. */
    DatStatus dequeueDirect(final RecvRing d, final DatEvent event)
    {
        long taken = d.takeDirect(event, evd, evd.directEp());
        if (taken >= 0)
        {
            return DatStatus.SUCCESS;
        }
        if (taken == RecvRing.EMPTY)
        {
            if (!(ia.pollsInline && ia.port().poll(evd) > 0))
            {
                return DatStatus.QUEUE_EMPTY;
            }
            if (evd.direct == d)
            {
                taken = d.takeDirect(event, evd, evd.directEp());
                if (taken != RecvRing.MOVED)
                {
                    return taken >= 0 ? DatStatus.SUCCESS : DatStatus.QUEUE_EMPTY;
                }
            }
        }
        // the mode ended: its events are in the ring once the move (under the lock) is over
        Locks.lock(evd.lock);
        try
        {
            final RecvRing now = evd.direct;
            final long t = now != null ? now.takeDirect(event, evd, evd.directEp())
                : evd.ring.take(event, evd, 1, false);
            return t >= 0 ? DatStatus.SUCCESS : DatStatus.QUEUE_EMPTY;
        }
        finally
        {
            evd.lock.unlock();
        }
    }

    private static void setNmore(final DatCount nmore, final int value)
    {
        if (nmore != null)
        {
            nmore.value = value;
        }
    }
}

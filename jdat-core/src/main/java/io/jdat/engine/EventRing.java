package io.jdat.engine;

import io.jdat.DatEvent;
import io.jdat.DatHandle;
import io.jdat.DtoStatus;
import io.jdat.IaAddress;
import io.jdat.ServicePoint;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An EVD's completion ring: preallocated event records that producers fill and consumers take
 * without a lock, as a NIC's completion queue is polled.
 *
 * <pre>
 *   slots     [ e0 | e1 | ... | e(P-1) ]     P = capacity rounded up to a power of two
 *   position  p lives in slot p & (P - 1); at most capacity positions are queued at once
 *   e.seq     p + 1 once the record for position p is written (release), so a consumer that
 *             reads seq == head + 1 (acquire) sees the whole record
 *   counters  head  (next position to take; consumers compare-and-set it)
 *             tail  (next position to fill; producers, one at a time, under the EVD's lock)
 *             notification events produced and consumed, each beside the counter of its side,
 *             the two sides 128 bytes apart so that they never share a cache line
 * </pre>
 *
 * <p>Producers hold the EVD's lock (several threads may complete work onto one EVD). A consumer
 * takes the record at {@code head} by reading it and then moving {@code head} on with a
 * compare-and-set: while {@code head} still names the position, no producer may reuse its slot
 * (a producer fills position {@code t} only when {@code t - head < capacity}), so what was read
 * before a successful compare-and-set is the record; a consumer that loses the race reads
 * again. {@code dat_evd_dequeue} on a non-empty EVD therefore takes no lock, and several
 * threads may dequeue at once.
 */
final class EventRing
{
    static final int KIND_DTO = 1;
    static final int KIND_RMR_BIND = 2;
    static final int KIND_CR = 3;
    static final int KIND_CONNECTION = 4;
    static final int KIND_ASYNC = 5;
    static final int KIND_SOFTWARE = 6;

    private static final VarHandle COUNTERS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int HEAD = 16;
    private static final int CONSUMED_NOTIFY = 17;
    private static final int TAIL = 32;
    private static final int PRODUCED_NOTIFY = 33;
    private static final int COUNTER_LONGS = 48;

    /** One queued event; records are reused, never allocated on the hot path. */
    static final class Entry
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
        /** Position + 1 once published; written with release, read with acquire. */
        volatile long seq;

        void clear()
        {
            handle = null;
            status = null;
            srq = null;
            address = null;
            extra = null;
        }
    }

    private final Entry[] slots;
    private final int mask;
    private final int capacity;
    private final long[] counters = new long[COUNTER_LONGS];
    /** The producers' last look at {@code head} (under the EVD's lock): read the real one only when full. */
    private long headCache;

    EventRing(final int capacity)
    {
        final int physical = Math.max(1, Integer.highestOneBit(Math.max(1, capacity - 1)) << 1);
        this.slots = new Entry[physical];
        for (int i = 0; i < physical; i++)
        {
            slots[i] = new Entry();
            slots[i].seq = i - physical + 1;
        }
        this.mask = physical - 1;
        this.capacity = capacity;
    }

    int capacity()
    {
        return capacity;
    }

    private long head()
    {
        return (long) COUNTERS.getVolatile(counters, HEAD);
    }

    long tail()
    {
        return (long) COUNTERS.getVolatile(counters, TAIL);
    }

    /** Events queued now (a snapshot). */
    int count()
    {
        final long h = head();
        return (int) Math.max(0, tail() - h);
    }

    /** Notification events queued now (a snapshot; a consumer between taking one and counting it adds one). */
    int notifications()
    {
        final long consumed = (long) COUNTERS.getVolatile(counters, CONSUMED_NOTIFY);
        return (int) Math.max(0, (long) COUNTERS.getVolatile(counters, PRODUCED_NOTIFY) - consumed);
    }

    // ------------------------------------------------------------------ producers (EVD lock held)

    /** The record to fill for the next position, or null when the ring is full. EVD lock held. */
    Entry claim()
    {
        final long t = (long) COUNTERS.getOpaque(counters, TAIL);
        if (t - headCache >= capacity)
        {
            headCache = head();
            if (t - headCache >= capacity)
            {
                return null;
            }
        }
        return slots[(int) t & mask];
    }

    /** Publishes the record {@link #claim} returned. EVD lock held. */
    void publish(final Entry e, final boolean notify)
    {
        final long t = (long) COUNTERS.getOpaque(counters, TAIL);
        e.notify = notify;
        if (notify)
        {
            COUNTERS.setVolatile(counters, PRODUCED_NOTIFY, (long) COUNTERS.getOpaque(counters, PRODUCED_NOTIFY) + 1);
        }
        e.seq = t + 1;
        // volatile: a producer's later read of the waiter must not move before this write
        COUNTERS.setVolatile(counters, TAIL, t + 1);
    }

    // ------------------------------------------------------------------ consumers (no lock)

    /**
     * Moves the oldest event into {@code event} and gives its SRQ buffer back; returns the
     * position it had, or -1 if nothing was queued. Takes no lock; safe against other consumers
     * and producers. A waiter (EVD lock held, so the tail stands still) passes its threshold and
     * asks for a queued notification: the event is taken only if, at the moment it is taken,
     * at least {@code threshold} events are queued and one of them notifies.
     */
    long take(final DatEvent event, final EvdImpl evd, final int threshold, final boolean needNotify)
    {
        while (true)
        {
            final long h = head();
            final Entry e = slots[(int) h & mask];
            if (e.seq != h + 1 || threshold > 1 && tail() - h < threshold || needNotify && notifications() == 0)
            {
                return -1;
            }
            final int kind = e.kind;
            final int number = e.number;
            final boolean notify = e.notify;
            final Object handle = e.handle;
            final long cookie = e.cookie;
            final DtoStatus status = e.status;
            final long length = e.length;
            final SrqImpl srq = e.srq;
            final IaAddress address = e.address;
            final long connQual = e.connQual;
            final Object extra = e.extra;
            final int reason = e.reason;
            if (!COUNTERS.compareAndSet(counters, HEAD, h, h + 1))
            {
                continue;
            }
            if (notify)
            {
                COUNTERS.getAndAdd(counters, CONSUMED_NOTIFY, 1L);
            }
            event.eventNumber = number;
            event.evdHandle = evd;
            switch (kind)
            {
                case KIND_DTO -> event.dto.set((EpImpl) handle, cookie, status, length);
                case KIND_RMR_BIND -> event.rmrBind.set((RmrImpl) handle, cookie, status);
                case KIND_CR -> event.crArrival.set((ServicePoint) handle, address, connQual, (CrImpl) extra);
                case KIND_CONNECTION -> event.connection.set((EpImpl) handle, (byte[]) extra);
                case KIND_ASYNC -> event.asyncError.set((DatHandle) handle, reason);
                case KIND_SOFTWARE -> event.software.pointer = extra;
                default -> throw new IllegalStateException("event kind " + kind);
            }
            if (srq != null)
            {
                srq.reaped();
            }
            return h;
        }
    }

    /**
     * Takes every queued event away (the EVD is destroyed) and gives back the SRQ buffers of the
     * DTO completions among them. EVD lock held, so no producer runs; consumers may still race.
     */
    void drain()
    {
        while (true)
        {
            final long h = head();
            final Entry e = slots[(int) h & mask];
            if (e.seq != h + 1)
            {
                return;
            }
            final SrqImpl srq = e.srq;
            final boolean notify = e.notify;
            if (COUNTERS.compareAndSet(counters, HEAD, h, h + 1))
            {
                if (notify)
                {
                    COUNTERS.getAndAdd(counters, CONSUMED_NOTIFY, 1L);
                }
                if (srq != null)
                {
                    srq.reaped();
                }
            }
        }
    }

    /**
     * A ring of {@code newCapacity} holding this ring's events in order. EVD lock held, so no
     * producer runs and the tail stands still. The queued events are taken from consumers in one
     * compare-and-set of {@code head} (from the head to the tail), then copied: moving them one
     * at a time let a consumer take a later event from this ring while an earlier one was on its
     * way to the new ring, and then take the earlier one from there, out of order. A consumer
     * that finds this ring empty meanwhile waits for the resize and reads the new ring.
     */
    EventRing moveTo(final int newCapacity)
    {
        final EventRing next = new EventRing(newCapacity);
        long h;
        final long t = tail();
        do
        {
            h = head();
            if (h >= t)
            {
                return next;
            }
        }
        while (!COUNTERS.compareAndSet(counters, HEAD, h, t));
        long notified = 0;
        for (long p = h; p < t; p++)
        {
            final Entry e = slots[(int) p & mask];
            final Entry to = next.claim();
            if (to == null)
            {
                // the caller checked under the EVD lock that the queued events fit
                throw new IllegalStateException("resize to " + newCapacity + " with " + (t - h) + " events queued");
            }
            to.kind = e.kind;
            to.number = e.number;
            to.handle = e.handle;
            to.cookie = e.cookie;
            to.status = e.status;
            to.length = e.length;
            to.srq = e.srq;
            to.address = e.address;
            to.connQual = e.connQual;
            to.extra = e.extra;
            to.reason = e.reason;
            if (e.notify)
            {
                notified++;
            }
            next.publish(to, e.notify);
        }
        if (notified > 0)
        {
            COUNTERS.getAndAdd(counters, CONSUMED_NOTIFY, notified);
        }
        return next;
    }
}

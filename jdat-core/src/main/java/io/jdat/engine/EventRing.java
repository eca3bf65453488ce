package io.jdat.engine;

import io.jdat.DatEvent;
import io.jdat.DatHandle;
import io.jdat.DtoCompletionEventData;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.ServicePoint;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An EVD's completion ring: preallocated event records that producers fill and consumers take
 * without a lock, as a NIC's completion queue is polled.
 *
 * <pre>
 *   lines     one long[], 2 longs (16 bytes) per slot, four slots to a 64-byte line, P slots;
 *             P = capacity rounded up to a power of two. Slot s's fields at lines[2 s]:
 *               +0 seq     p + 1 once the record for position p is written (release), so a
 *                          consumer that reads seq == head + 1 (acquire) sees the whole record
 *               +1 cookie  (what changes from one DTO completion to the next)
 *   slots     [ e0 | e1 | ... | e(P-1) ]     the rest of each record (kind, number, notify,
 *             handle, status, length, SRQ, and what other kinds carry), in a heap object per
 *             slot that a producer stores into only where a field changes
 *   position  p lives in slot p & (P - 1); at most capacity positions are claimed at once
 *   counters  head  (next position to take; consumers compare-and-set it)
 *             tail  (next position to claim; producers compare-and-set it; bit 62 closes the
 *                   ring to producers for a resize or a destroy)
 *             notification events produced and consumed, each beside the counter of its side,
 *             the two sides 128 bytes apart so that they never share a cache line (only in a
 *             ring that counts them, below)
 * </pre>
 *
 * <p>A producer claims position {@code t} by moving {@code tail} from {@code t} to {@code t + 1}
 * with one compare-and-set, only while {@code t - head < capacity}; it then writes the record
 * and publishes it by writing {@code seq}, once position {@code t - 1} is published. Producers on
 * several threads thus fill records at the same time but publish them in the order of their
 * positions; a consumer takes only the record at {@code head}, and only once it is published, so
 * events come out in the order their positions were claimed. A consumer that finds the record at
 * the head unpublished says empty without looking at {@code tail}: no later position is published
 * either, so no post that returned is missed (the one writing that record has not returned). A
 * polling consumer thus reads nothing the producers write but the records, as with a queue. A
 * count, which does read {@code tail}, waits for the producers of positions claimed below it to
 * publish them (a few stores).
 *
 * <p>A consumer takes the record at {@code head} by reading it and then moving {@code head} on
 * with a compare-and-set: while {@code head} still names the position, no producer may reuse its
 * slot (it claims position {@code t} only when {@code t - head < capacity}), so what was read
 * before a successful compare-and-set is the record; a consumer that loses the race reads again.
 * {@code dat_evd_dequeue} on a non-empty EVD therefore takes no lock, and neither does posting
 * a completion to an EVD that has room.
 *
 * <p>Why one array, four records to a line: a record's fields in a heap object sat wherever the
 * collector put it, so the fields a completion changes (its sequence and cookie) shared one cache
 * line in some slots and spanned two in others, slot by slot. In one array at a fixed stride every
 * slot is laid out alike, and a DTO completion of an endpoint whose other fields repeat (the
 * length too: it is in the slot's object, stored only when it changes) writes 16 bytes of that
 * array alone. Four consecutive records share a line, so a consumer that falls behind takes four
 * events per line it moves from the producer's core (a consumer that keeps up moves a line per
 * event either way), as a NIC's completion queue entries packed in a line do, and the ring is an
 * eighth of its size at one record per 128 bytes; that layout measured slower at the rate, most of
 * all when a line's crossing is slow (docs/perf.md, the seventeenth step, which also measured 32
 * bytes a record, and receive slots packed alike: neither kept). Where the array's data starts 8
 * bytes past a 16-byte boundary, one record in four spans two lines. Memory off the heap, aligned
 * to 64 bytes, was measured: its accesses (bounds, session and alignment checks on each) made the
 * one-thread hop 10-30 % slower, so the ring stays on the heap.
 *
 * <p>Notifications: while every event an EVD received notifies (the usual case: only an
 * unsignalled or solicited-wait stream, or a request posted unsignalled, makes events that do not),
 * the notification events queued are the events queued, and the ring counts nothing: a post is
 * one compare-and-set and a publish, a dequeue one compare-and-set (a single consumer's, a
 * store), as in a queue. The first event that does not notify finds such a ring unable to take
 * it; the EVD then moves the events, under its lock as a resize does, into a ring of the same
 * length that counts notifications on both sides (two more atomic additions per notifying event,
 * but for a single consumer's own), and keeps that ring.
 */
final class EventRing extends ClaimedRing
{
    static final int KIND_DTO = 1;
    static final int KIND_RMR_BIND = 2;
    static final int KIND_CR = 3;
    static final int KIND_CONNECTION = 4;
    static final int KIND_ASYNC = 5;
    static final int KIND_SOFTWARE = 6;

    // beside the consumers' head and the producers' tail (ClaimedRing's counters)
    private static final int CONSUMED_NOTIFY = 17;
    /**
     * A single-consumer ring, on the consumer's line: {@link #MOVE_BEGUN} once a move out of it
     * began ({@link #moveTo}), {@link #MOVE_OVER} once it ended; 0 before.
     */
    private static final int MOVING = 18;
    /**
     * A single-consumer counting ring: the notifying events its consumer's own claims published
     * ({@link #publishAsConsumer}), one writer, beside the other producers' {@link #PRODUCED_NOTIFY}.
     */
    private static final int PRODUCED_BY_CONSUMER = 19;
    private static final long MOVE_BEGUN = 1;
    private static final long MOVE_OVER = 2;
    private static final int PRODUCED_NOTIFY = 33;
    /** A single-consumer ring: 1 while its consumer thread claims ({@link #claimAsConsumer}). */
    private static final int CLAIMING = 35;
    /** A single-consumer ring: 1 while any other claimer, a close or a reopen holds it ({@link #claim}). */
    private static final int OTHERS = 36;

    /**
     * The 64 bytes ahead of a record's fields. Records are allocated side by side and are about a
     * line long, so without it a producer writing one record and a consumer reading the one
     * before it on another core would share a cache line and move it between them once more per
     * event. A superclass's fields come first in an object, so these always lead the record's.
     */
    @SuppressWarnings("unused")
    abstract static class EntryPadding
    {
        private int p0;
        private long p1;
        private long p2;
        private long p3;
        private long p4;
        private long p5;
        private long p6;
        private long p7;
        private long p8;
    }

    /**
     * The part of a queued event that is not on its line; records are reused, never allocated on
     * the hot path.
     *
     * <pre>
     *   [ header | padding, 68 bytes | kind number notify handle status length srq address
     *     connQual extra reason ]  (field order is the JVM's)
     * </pre>
     */
    static final class Entry extends EntryPadding
    {
        int kind;
        int number;
        boolean notify;
        Object handle;
        DtoStatus status;
        /** A DTO completion's transferred length. */
        long length;
        SrqImpl srq;
        IaAddress address;
        long connQual;
        Object extra;
        int reason;

        /** A DTO completion of {@code ep}'s request or receive: the fields that are not on the line. */
        void fillDto(final EpImpl ep, final DtoStatus status, final long length, final SrqImpl srq)
        {
            // every field only where it changes: the consumer on another core read them at the
            // slot's last use, and a store of the value already there would still take the line
            // from that core, so a record whose fields repeat the slot's last event (the same
            // kind, endpoint, status) moves only its own line
            if (kind != KIND_DTO)
            {
                kind = KIND_DTO;
            }
            if (number != EventNumber.DTO_COMPLETION_EVENT.value())
            {
                number = EventNumber.DTO_COMPLETION_EVENT.value();
            }
            // references only where they change: each store into the long-lived record costs a
            // card-marking barrier, and the endpoint and the status are mostly those of the last event
            if (handle != ep)
            {
                handle = ep;
            }
            if (this.status != status)
            {
                this.status = status;
            }
            if (this.length != length)
            {
                this.length = length;
            }
            if (this.srq != srq)
            {
                this.srq = srq;
            }
        }

        /** A software event ({@code dat_evd_post_se}) carrying the consumer's pointer. */
        void fillSoftware(final Object pointer)
        {
            kind = KIND_SOFTWARE;
            number = EventNumber.SOFTWARE_EVENT.value();
            extra = pointer;
        }

        void clear()
        {
            handle = null;
            status = null;
            srq = null;
            address = null;
            extra = null;
        }
    }

    /** Longs from one slot's fields to the next's: 16 bytes, four slots to a line. */
    static final int STRIDE = 2;
    /** The longs of a slot's fields, at the start of its stride. */
    static final int FIELDS = 2;
    private static final int SEQ = 0;
    private static final int COOKIE = 1;
    private static final VarHandle LONG = MethodHandles.arrayElementVarHandle(long[].class);

    /** Each slot's line (see the class comment). */
    private final long[] lines;
    private final Entry[] slots;
    private final int mask;
    /** Whether events that do not notify may be queued, so notifications are counted. */
    private final boolean counting;
    /**
     * One consumer thread: an EVD of a single-writer IA (a {@code nonthreadsafe} entry), whose
     * consumer calls {@code dat_evd_dequeue} and {@code dat_evd_wait} from one thread. It moves
     * {@code head} by a release store, no compare-and-set; it claims its own completions with no
     * read-modify-write either ({@link #claimAsConsumer}), other producers with one of their own.
     */
    final boolean singleConsumer;
    /** A single-consumer ring moved out: the head its move began at and the one it left (read once MOVE_OVER). */
    private long movedFrom = Long.MAX_VALUE;
    private long movedTo;

    /** A ring for events that all notify (nothing counted), for any number of consumers. */
    EventRing(final int capacity)
    {
        this(capacity, false, false);
    }

    EventRing(final int capacity, final boolean counting, final boolean singleConsumer)
    {
        super(capacity);
        this.counting = counting;
        this.singleConsumer = singleConsumer;
        final int physical = Math.max(1, Integer.highestOneBit(Math.max(1, capacity - 1)) << 1);
        this.slots = new Entry[physical];
        this.lines = new long[physical * STRIDE];
        for (int i = 0; i < physical; i++)
        {
            slots[i] = new Entry();
            LONG.set(lines, line(i) + SEQ, (long) (i - physical + 1));
        }
        this.mask = physical - 1;
        // the lines' first values before the ring is handed on (by a volatile field or a lock)
        VarHandle.releaseFence();
    }

    /** The index of slot {@code slot}'s fields in {@code lines}. */
    private static int line(final long slot)
    {
        return (int) slot * STRIDE;
    }

    /**
     * The sequence of position {@code p}'s slot: a volatile read, as of the volatile field it was
     * (a waiter reads it after announcing itself).
     */
    private long seq(final long p)
    {
        return (long) LONG.getVolatile(lines, line(p & mask) + SEQ);
    }

    /** Where slot {@code slot}'s fields start in the ring's array (a proof of its layout). */
    int fieldsAt(final int slot)
    {
        return line(slot);
    }

    /** Whether this ring takes events that do not notify (and counts those that do). */
    boolean counting()
    {
        return counting;
    }

    /** Whether the record of position {@code p} is published. */
    private boolean published(final long p)
    {
        return seq(p) == p + 1;
    }

    /**
     * Waits until every position in {@code [from, to)} that is still queued is published. A
     * position claimed but not yet published is a producer a few stores from publishing it
     * (unless its thread lost the core): counting or taking past it would let an event that a
     * later post already reported as posted look absent.
     */
    private void settle(final long from, final long to)
    {
        int spins = 0;
        for (long p = from; p < to; p++)
        {
            while (!published(p) && head() <= p)
            {
                if ((++spins & 0xFF) == 0)
                {
                    Thread.yield();
                }
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Events queued from position {@code from} on (a snapshot, once those claimed are published).
     * A waiter asks this after each event it takes: when the next record is not published, no later
     * one is, and the answer is 0 without a look at {@code tail}, the producers' line (a post still
     * writing that record has not returned).
     */
    int countFrom(final long from)
    {
        final long seq = seq(from);
        if (seq - (from + 1) < 0 && head() <= from)
        {
            return 0;
        }
        final long t = tail();
        settle(Math.max(from, head()), t);
        return (int) Math.max(0, t - from);
    }

    /**
     * Events queued now (a snapshot, once those claimed are published): {@code tail} read between
     * two reads of {@code head} that agree, so the count is the one at that moment. Read the other
     * way round, takes and posts racing the look could make it smaller than at any moment (events
     * posted after {@code tail} was read, taken before {@code head} was), down to none.
     */
    int count()
    {
        while (true)
        {
            final long h = head();
            final long t = tail();
            if (head() == h)
            {
                settle(h, t);
                return (int) (t - h);
            }
        }
    }

    /** Whether at least {@code n} events are queued, published, from the head (a snapshot). */
    boolean holds(final int n)
    {
        final long h = head();
        if (tail() - h < n)
        {
            return false;
        }
        settle(h, h + n);
        return true;
    }

    /**
     * Whether a waiter with {@code threshold} may return now (a snapshot). It reads {@code tail}: a
     * waiter that announced it parks and then finds this false may park, as a producer that claimed
     * before the announcement is seen here (it is then published or a few stores from it).
     */
    boolean ready(final int threshold)
    {
        settleClaims();
        return holds(threshold) && notifications() > 0;
    }

    /**
     * {@link #ready} as a spinning waiter looks between its last looks before a park: for one event
     * from a ring where every event notifies, only the record at the head (the line a producer
     * writes anyway), not {@code tail}: the producers' line, which a look per spin would take from
     * the producer's core before its every claim.
     */
    boolean looksReady(final int threshold)
    {
        return threshold == 1 && !counting ? published(head()) : ready(threshold);
    }

    /** Notification events queued now (a snapshot; a consumer between taking one and counting it adds one). */
    int notifications()
    {
        if (!counting)
        {
            // every queued event notifies, those claimed and being written too, as a counting
            // ring counts them once claimed
            final long h = head();
            return (int) Math.max(0, tail() - h);
        }
        final long consumed = (long) COUNTERS.getVolatile(counters, CONSUMED_NOTIFY);
        final long produced = (long) COUNTERS.getVolatile(counters, PRODUCED_NOTIFY)
            + (long) COUNTERS.getVolatile(counters, PRODUCED_BY_CONSUMER);
        return (int) Math.max(0, produced - consumed);
    }

    // ------------------------------------------------------------------ producers (any thread)

    /** The record of a claimed position. */
    Entry entry(final long position)
    {
        return slots[(int) position & mask];
    }

    /**
     * Fills the claimed record of {@code position} with a DTO completion: the cookie in the ring's
     * array, the rest (the length too) in its {@link Entry}. The cookie is stored whether it
     * changes or not (the publish stores its sequence beside it anyway); the rest only where it
     * changes.
     */
    void fillDto(final long position, final EpImpl ep, final long cookie, final DtoStatus status, final long length,
        final SrqImpl srq)
    {
        slots[(int) position & mask].fillDto(ep, status, length, srq);
        LONG.set(lines, line(position & mask) + COOKIE, cookie);
    }

    /** Sets the cookie of the claimed record of {@code position}. */
    void cookie(final long position, final long cookie)
    {
        LONG.set(lines, line(position & mask) + COOKIE, cookie);
    }

    /** Publishes the record of {@code position}, which the caller claimed and filled. */
    void publish(final long position, final boolean notify)
    {
        publish(position, notify, false);
    }

    /**
     * {@link #publish(long, boolean)} by the consumer's thread, of a position it claimed with
     * {@link #claimAsConsumer}: a single-consumer ring counts its notification with a plain store.
     */
    void publishAsConsumer(final long position, final boolean notify)
    {
        publish(position, notify, singleConsumer);
    }

    private void publish(final long position, final boolean notify, final boolean consumersCount)
    {
        final Entry e = slots[(int) position & mask];
        if (e.notify != notify)
        {
            e.notify = notify;
        }
        if (!notify && !counting)
        {
            // the EVD moves its events to a counting ring before it claims for such an event
            throw new IllegalStateException("an event that does not notify in a ring that does not count");
        }
        if (notify && counting)
        {
            // counted before it is visible: a consumer never sees the event before its notification
            if (consumersCount)
            {
                final long produced = (long) COUNTERS.getOpaque(counters, PRODUCED_BY_CONSUMER);
                COUNTERS.setRelease(counters, PRODUCED_BY_CONSUMER, produced + 1);
            }
            else
            {
                COUNTERS.getAndAdd(counters, PRODUCED_NOTIFY, 1L);
            }
        }
        awaitPublished(position - 1);
        // release: the record before it. No fence: the claim's compare-and-set already put the
        // producer's later read of the waiter after the claim, which a parking waiter sees (it
        // then waits for this store instead of parking; on a single-consumer ring the claim's
        // word does it, see settleClaims); a fence here would hold the producer
        // until the lines of the record, last read by the consumer's core, are back in its own
        LONG.setRelease(lines, line(position & mask) + SEQ, position + 1);
    }

    /**
     * Waits until position {@code p} is published: positions are published in the order they
     * were claimed, so a consumer that finds a position unpublished knows that no later one is
     * and may say empty without reading {@code tail}, the producers' line. One producer finds its
     * own last record published (a load from its own cache); of several, the later waits for the
     * earlier, a few stores from publishing (its slot cannot be reused before: that needs {@code p}
     * taken).
     */
    private void awaitPublished(final long p)
    {
        int spins = 0;
        while (seq(p) - (p + 1) < 0)
        {
            if ((++spins & 0xFF) == 0)
            {
                Thread.yield();
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Closes the ring to producers (EVD lock held: a resize or a destroy) and waits until every
     * position claimed before is published. Producers that find it closed go to the EVD's lock.
     */
    void close()
    {
        if (!singleConsumer)
        {
            settle(head(), closeToClaims());
            return;
        }
        // the consumer's claim stores tail: the closed bit is set between claims, never during one
        lockOthers();
        final long t;
        try
        {
            t = closeToClaims();
        }
        finally
        {
            unlockOthers();
        }
        settle(head(), t);
    }

    @Override
    void reopen()
    {
        if (!singleConsumer)
        {
            super.reopen();
            return;
        }
        lockOthers();
        try
        {
            super.reopen();
        }
        finally
        {
            unlockOthers();
        }
    }

    // ------------------------------------------------------------------ a nonthreadsafe IA's claims

    /*
     * A single-consumer ring (an EVD of a nonthreadsafe IA, whose consumer promises that one thread
     * at a time calls on each handle) has two kinds of claimer. The consumer's thread posting on
     * the one endpoint that claims for it (ConsumerClaims) a request whose completion comes here
     * (RequestQueue, under the endpoint lock it holds through EpLock#lockAsConsumer) claims with
     * no read-modify-write (claimAsConsumer): it stores 1 in
     * CLAIMING (a volatile store: the fence), reads OTHERS, and if that is 0 reads tail and stores
     * tail + 1 with a release store, then stores CLAIMING 0. Every other claimer (a peer's poster,
     * a channel's or a deliverer's thread, a flush, the EVD's locked paths) and every close and
     * reopen of the ring takes OTHERS with a compare-and-set (their atomic, as the claim's CAS of
     * tail was), then waits while CLAIMING is 1, then claims or closes with plain stores, and lets
     * go with a release store (claim). Each side stores its word and then loads the other's, so at
     * least one sees the other: the two never store tail from the same value, and a consumer that
     * finds OTHERS taken lets go of CLAIMING and claims as the others do. One tail, claimed in one
     * order, so everything the ring promised holds as before: records published in the order of
     * their positions, completions of one endpoint's request queue in posting order (its lock
     * orders the claims), the capacity and the overflow, a resize's or a destroy's close.
     *
     * What the claim's compare-and-set also did: it was a StoreLoad fence between the claim and the
     * producer's look at a parked waiter (EvdImpl#afterCommit) or at a disabled EVD (enable), whose
     * other sides store their word and then read tail. Neither claim here fences after its store
     * of tail, so those sides first wait until neither word is held (settleClaims) and then read
     * tail: a claimer whose word they saw free either had let go (its tail store came before, and is
     * seen) or had not yet stored its word (and its own look after publishing comes after their
     * store, and sees it).
     */

    /**
     * Claims the next position on the consumer's thread, posting on the endpoint that claims for
     * this EVD, in its own call (see the comment above): no read-modify-write on a single-consumer
     * ring; on any other ring, the compare-and-set. Returns the position, {@link #FULL} or
     * {@link #CLOSED}.
     */
    long claimAsConsumer()
    {
        if (!singleConsumer)
        {
            return super.claim();
        }
        COUNTERS.setVolatile(counters, CLAIMING, 1L);
        if ((long) COUNTERS.getVolatile(counters, OTHERS) != 0)
        {
            // another claimer, a close or a reopen holds the ring: claim as they do
            COUNTERS.setRelease(counters, CLAIMING, 0L);
            return claim();
        }
        final long p = claimPlain();
        COUNTERS.setRelease(counters, CLAIMING, 0L);
        return p;
    }

    /** Claims the next position: any thread (see the comment above). */
    @Override
    long claim()
    {
        if (!singleConsumer)
        {
            return super.claim();
        }
        lockOthers();
        try
        {
            return claimPlain();
        }
        finally
        {
            unlockOthers();
        }
    }

    /** The claim of a single-consumer ring's claimer that holds it: plain stores. */
    private long claimPlain()
    {
        final long t = (long) COUNTERS.getVolatile(counters, TAIL);
        if ((t & CLOSED_BIT) != 0)
        {
            return CLOSED;
        }
        if (!hasRoom(t))
        {
            return FULL;
        }
        COUNTERS.setRelease(counters, TAIL, t + 1);
        return t;
    }

    /** Takes {@code OTHERS}, then waits while the consumer claims. */
    void lockOthers()
    {
        int spins = 0;
        while ((long) COUNTERS.getVolatile(counters, OTHERS) != 0 || !COUNTERS.compareAndSet(counters, OTHERS, 0L, 1L))
        {
            spin(++spins);
        }
        // the consumer either saw OTHERS taken and lets go, or claims and lets go: a few stores
        while ((long) COUNTERS.getVolatile(counters, CLAIMING) != 0)
        {
            spin(++spins);
        }
    }

    /** Lets go of {@code OTHERS}: a release store (the claim, close or reopen comes before). */
    void unlockOthers()
    {
        COUNTERS.setRelease(counters, OTHERS, 0L);
    }

    /**
     * Before a look at {@code tail} that must see every claim whose claimer may not have seen the
     * caller's store before it (a parked waiter, an enable): waits until no claim of a
     * single-consumer ring is under way (see the comment above). Nothing on other rings.
     */
    void settleClaims()
    {
        if (!singleConsumer)
        {
            return;
        }
        int spins = 0;
        while ((long) COUNTERS.getVolatile(counters, CLAIMING) != 0
            || (long) COUNTERS.getVolatile(counters, OTHERS) != 0)
        {
            spin(++spins);
        }
    }

    private static void spin(final int spins)
    {
        if ((spins & 0xFF) == 0)
        {
            Thread.yield();
        }
        Thread.onSpinWait();
    }

    // ------------------------------------------------------------------ consumers (no lock)

    /**
     * Moves the oldest event into {@code event} and gives its SRQ buffer back; returns the
     * position it had, or -1 if nothing was queued. Takes no lock; safe against other consumers
     * and producers. A waiter passes its threshold and asks for a queued notification: the event
     * is taken only if at least {@code threshold} published events are queued and one of the
     * queued events notifies.
     */
    long take(final DatEvent event, final EvdImpl evd, final int threshold, final boolean needNotify)
    {
        while (true)
        {
            final long h = head();
            final int at = line(h & mask);
            final long seq = (long) LONG.getVolatile(lines, at + SEQ);
            if (seq != h + 1)
            {
                if (seq - (h + 1) > 0)
                {
                    // taken meanwhile and its slot reused: this head is stale
                    continue;
                }
                // not published, so neither is any later position (published in order): empty,
                // though a producer may have claimed it and be writing it (its post has not returned)
                return -1;
            }
            // a published record notifies, in a ring that does not count: no look at tail then
            if (threshold > 1 && !holds(threshold) || needNotify && counting && notifications() == 0)
            {
                return -1;
            }
            final Entry e = slots[(int) h & mask];
            final int kind = e.kind;
            if (kind == KIND_DTO)
            {
                // the common event: read what it carries, nothing else of the record
                final int number = e.number;
                final boolean notify = e.notify;
                final Object ep = e.handle;
                final long cookie = (long) LONG.get(lines, at + COOKIE);
                final DtoStatus status = e.status;
                final long length = e.length;
                final SrqImpl srq = e.srq;
                if (!release(h))
                {
                    continue;
                }
                taken(event, evd, number, notify);
                dto(event.dto, (EpImpl) ep, cookie, status, length);
                if (srq != null)
                {
                    srq.reaped();
                }
                return h;
            }
            final int number = e.number;
            final boolean notify = e.notify;
            final Object handle = e.handle;
            final long cookie = (long) LONG.get(lines, at + COOKIE);
            final DtoStatus status = e.status;
            final SrqImpl srq = e.srq;
            final IaAddress address = e.address;
            final long connQual = e.connQual;
            final Object extra = e.extra;
            final int reason = e.reason;
            if (!release(h))
            {
                continue;
            }
            taken(event, evd, number, notify);
            switch (kind)
            {
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
     * Takes the oldest event if {@code threshold} events and a notification are queued, and
     * returns its position; else returns {@code -(count + 1)} with the count of queued events at
     * a moment when the threshold was not met. Producers and other consumers run beside this
     * (they take no lock): the count and the look at the notifications must hold at one moment,
     * so they are taken between two looks at {@code head} and {@code tail} that agree (no post and
     * no take came between); else, or if the threshold was met, the take is tried again. A count
     * taken apart from that look reported a timeout with an event counted that a racing
     * {@code dat_evd_dequeue} had already taken (threshold 1, nmore 1).
     */
    long takeOrCount(final DatEvent event, final EvdImpl evd, final int threshold)
    {
        while (true)
        {
            final long taken = take(event, evd, threshold, true);
            if (taken >= 0)
            {
                return taken;
            }
            final long h = head();
            final long t = tail();
            // published, and their notifications counted (a producer counts before it publishes)
            settle(h, t);
            final long n = t - h;
            if ((n < threshold || notifications() == 0) && head() == h && tail() == t)
            {
                return -(n + 1L);
            }
        }
    }

    /**
     * Gives the slot of {@code head} {@code h}, whose record the caller has read, back to the
     * producers; false if another consumer or a move took it first. Several consumers move the
     * head by a compare-and-set. One consumer moves it by a release store (everything it read of
     * the record comes before), then loads {@link #MOVING}, with no fence between: any producer's
     * thread may move the events of a ring that does not count notifications yet into one that
     * does ({@link #moveTo}), and the mover stores {@code MOVING} and makes every thread of the
     * process fence ({@link AsymmetricFence#heavy}) before it reads the head, so at least one of
     * the two sees the other. A consumer that sees it waits for the move to end (a copy under the
     * EVD's lock, never a wait) and asks whether it began past its record ({@link #tookBesideMove}).
     */
    private boolean release(final long h)
    {
        if (!singleConsumer)
        {
            return COUNTERS.compareAndSet(counters, HEAD, h, h + 1);
        }
        COUNTERS.setRelease(counters, HEAD, h + 1);
        AsymmetricFence.light();
        return (long) COUNTERS.getOpaque(counters, MOVING) == 0 || tookBesideMove(h);
    }

    /**
     * The one consumer stored the head past {@code h} and then found a move begun: whether the
     * record it read there is its own (the move began past it) or the move's, in the new ring now.
     * In the second case its store may have come after the move's, so it puts the head back where
     * the move left it, and the caller finds this ring empty and looks in the EVD's new one.
     */
    private boolean tookBesideMove(final long h)
    {
        while ((long) COUNTERS.getAcquire(counters, MOVING) != MOVE_OVER)
        {
            Thread.onSpinWait();
        }
        if (movedFrom > h)
        {
            return true;
        }
        COUNTERS.setVolatile(counters, HEAD, movedTo);
        return false;
    }

    /** The header of a taken event: its number and EVD, and its notification counted as consumed. */
    private void taken(final DatEvent event, final EvdImpl evd, final int number, final boolean notify)
    {
        if (notify && counting)
        {
            if (singleConsumer)
            {
                // its one writer but for the consumer's own resize and free
                final long consumed = (long) COUNTERS.getOpaque(counters, CONSUMED_NOTIFY);
                COUNTERS.setRelease(counters, CONSUMED_NOTIFY, consumed + 1);
            }
            else
            {
                COUNTERS.getAndAdd(counters, CONSUMED_NOTIFY, 1L);
            }
        }
        event.eventNumber = number;
        if (event.evdHandle != evd)
        {
            // a consumer reuses its event: store references only where they change (each
            // store into a long-lived object costs the collector's card-marking barrier)
            event.evdHandle = evd;
        }
    }

    private static void dto(final DtoCompletionEventData d, final EpImpl ep, final long cookie, final DtoStatus status,
        final long length)
    {
        if (d.epHandle != ep)
        {
            d.epHandle = ep;
        }
        d.userCookie = cookie;
        if (d.status != status)
        {
            d.status = status;
        }
        d.transferredLength = length;
    }

    /**
     * Takes every queued event away (the EVD is destroyed) and gives back the SRQ buffers of the
     * DTO completions among them. EVD lock held; the ring is closed to producers first, and what
     * they claimed before is published; consumers may still race.
     */
    void drain()
    {
        close();
        while (true)
        {
            final long h = head();
            final Entry e = slots[(int) h & mask];
            if (seq(h) != h + 1)
            {
                return;
            }
            final SrqImpl srq = e.srq;
            final boolean notify = e.notify;
            if (COUNTERS.compareAndSet(counters, HEAD, h, h + 1))
            {
                if (notify && counting)
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
     * A ring of {@code newCapacity} holding this ring's events in order. EVD lock held; this ring
     * is closed to producers first (they then wait for the lock and use the new ring), so the
     * tail stands still and every claimed event is published. The queued events are taken from consumers in one
     * compare-and-set of {@code head} (from the head to the tail), then copied: moving them one
     * at a time let a consumer take a later event from this ring while an earlier one was on its
     * way to the new ring, and then take the earlier one from there, out of order. A consumer
     * that finds this ring empty meanwhile waits for the resize and reads the new ring.
     */
    EventRing moveTo(final int newCapacity)
    {
        return moveTo(newCapacity, counting);
    }

    /** {@link #moveTo(int)}, into a ring that counts notifications or not (once counting, always). */
    EventRing moveTo(final int newCapacity, final boolean countNotifications)
    {
        close();
        if (singleConsumer)
        {
            // the consumer's take stores the head, then loads this: see release
            COUNTERS.setVolatile(counters, MOVING, MOVE_BEGUN);
            AsymmetricFence.heavy();
        }
        try
        {
            return moveClosed(newCapacity, countNotifications);
        }
        finally
        {
            // a consumer that saw the move begun waits for this, even after a failure
            COUNTERS.setRelease(counters, MOVING, MOVE_OVER);
        }
    }

    /** {@link #moveTo(int, boolean)} once the ring is closed and a single consumer told. */
    private EventRing moveClosed(final int newCapacity, final boolean countNotifications)
    {
        final EventRing next = new EventRing(newCapacity, counting || countNotifications, singleConsumer);
        long h;
        final long t = tail();
        do
        {
            h = head();
            if (h >= t)
            {
                // nothing moved: a take the consumer made is its own
                return next;
            }
        }
        while (!COUNTERS.compareAndSet(counters, HEAD, h, t));
        movedFrom = h;
        movedTo = t;
        long notified = 0;
        for (long p = h; p < t; p++)
        {
            final Entry e = slots[(int) p & mask];
            final long at = next.claim();
            if (at < 0)
            {
                // the caller checked under the EVD lock that the queued events fit
                throw new IllegalStateException("resize to " + newCapacity + " with " + (t - h) + " events queued");
            }
            final Entry to = next.entry(at);
            to.kind = e.kind;
            to.number = e.number;
            to.handle = e.handle;
            next.cookie(at, (long) LONG.get(lines, line(p & mask) + COOKIE));
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
            next.publish(at, e.notify);
        }
        if (notified > 0 && counting)
        {
            COUNTERS.getAndAdd(counters, CONSUMED_NOTIFY, notified);
        }
        return next;
    }
}

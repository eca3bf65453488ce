package io.jdat.engine;

import io.jdat.DatEvent;
import io.jdat.DtoCompletionEventData;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;

/**
 * The slots of an endpoint's receive queue: posters claim them without a lock, the one thread
 * placing into the endpoint takes them in order, as a NIC's receive queue works. An SRQ's
 * buffers live in one too ({@link SrqImpl}: claims bounded by its outstanding count,
 * {@link #claimBounded}; takers one at a time under its monitor).
 *
 * <pre>
 *   slots     [ b0 | b1 | ... | b(P-1) ]     P = max_recv_dtos rounded up to a power of two
 *   position  p lives in slot p &amp; (P - 1); at most capacity positions are posted at once
 *   b.seq     p + 1 once the receive of position p is written (release), so the placer that
 *             reads seq == head + 1 (acquire) sees the whole buffer; it and the cookie lie
 *             side by side in one array of the ring, 128 bytes per slot ({@link RecvBuffer})
 *   counters  head  (oldest posted; moved on by the placer, or by a flush under the EP lock)
 *             tail  (next position to claim; posters compare-and-set it; bit 62 closes the
 *                   ring to posters for a flush or a resize), and the posters' last look at head
 *             head and tail 128 bytes apart: the placer's line and the posters' line
 * </pre>
 *
 * <p>A poster claims position {@code t} by moving {@code tail} from {@code t} to {@code t + 1}
 * with one compare-and-set, only while {@code t - head < capacity}; it then validates its
 * triplets into the slot and publishes it with {@code seq}. Several posters fill slots at once
 * and publish in any order; the placer takes only the receive at {@code head}, once published,
 * so receives are used in the order their positions were claimed. A placer that finds the head
 * claimed but not yet published waits for it (a poster a few stores from publishing), so a post
 * that returned is never missed by a Send behind it. A claim whose triplets fail validation is
 * given back if it is still the last one, else published as a hole the placer and a flush skip.
 *
 * <p>A flush or a resize, under the endpoint's lock, closes the ring ({@link #close}) and waits
 * until every position claimed before is published: nothing posted before it is missed, and
 * every post after it goes to the endpoint's lock, where the endpoint's state decides.
 *
 * <p>A single-writer ring (an IA from a {@code nonthreadsafe} entry: one consumer thread posts)
 * claims with no read-modify-write: the poster reads its own {@code tail}, fills the slot, moves
 * {@code tail} with a volatile store ({@link #commit}) and publishes. A close from another thread
 * (the peer's, a timer's) cannot set a bit in a word the poster overwrites, so it has a word of
 * its own, {@code shut}: the closer stores {@code shut}, then reads {@code tail}; the poster
 * stores {@code tail}, then reads {@code shut} (each a store then a load, so at least one sees
 * the other). A poster that sees {@code shut} takes the endpoint's lock and asks the close
 * whether it took the receive ({@link #closedAt}); if not, it takes it back ({@link #retract}).
 *
 * <p><b>Direct mode</b> (the receive EVD of this endpoint alone: {@link EvdImpl#tryDirect}): the
 * completion is written into the receive's own slot and the EVD dequeues from here, with no
 * {@link EventRing} record between. A slot then stays the queue's from its post until the
 * consumer takes its event, so {@code head} is the consumer's (the posters' bound counts posted
 * plus completed-not-dequeued receives) and the placer keeps its own position, {@code place}:
 * <pre>
 *   b.seq     p + 1 posted; complete: one word with the received length (-1 for a hole, which
 *             a consumer skips, no event) and the lap of p ({@link RecvBuffer}), written with
 *             a release store, then a full fence before the placer reads {@code mode} and the
 *             waiter; one word, so a completion lies on one line in every placement
 *   layout    a ring built for the mode ({@link #direct}) packs the slots' words four to a
 *             line and keeps the cookies in an array of their own: the line the placer
 *             completes is the one the consumer's repost writes next
 *   head      the oldest completed-not-dequeued position; the consumers of a threadsafe IA take
 *             it by compare-and-set; MOVED_BIT set for good once the mode ended
 *   taken     the same for the one consumer thread of a nonthreadsafe IA (a single-writer ring),
 *             in a word of its own on head's line: it takes by a store, no read-modify-write
 *   place     the placer's next position, on a line of its own
 * </pre>
 * The mode ends, under the EVD's lock, the moment the EVD gains a second source or needs what
 * the slots cannot give (another stream, a CNO, a resize, a threshold above one, a flush): the
 * mover sets {@code mode} to MIGRATING, sets MOVED_BIT in {@code head} (so no consumer takes
 * here again), copies the completed slots from the head into the EVD's ring in order and sets
 * {@code head} to the first slot not complete, where the placer goes on in the ordinary way. A
 * placer that flipped a slot and then reads a mode other than DIRECT takes the EVD's lock (the
 * move is over then): if {@code head} is past its slot the move took it, else it posts it itself.
 * Each side stores, then looks at the other's word, so at least one of them sees the slot.
 *
 * <p>The one consumer of a single-writer ring takes with no read-modify-write and no fence: it
 * reads the slot, stores {@code taken} past it, then reads {@code mode}; the mover stores
 * {@code mode}, makes every thread of the process fence ({@link AsymmetricFence#heavy}), then sets
 * MOVED_BIT in {@code taken} (a read-modify-write, once per mode's end). Each stores, then looks
 * at the other's word, so at least one sees the other: a consumer that reads DIRECT took the slot
 * before the move began, and the move starts after it; one that reads another mode takes the
 * EVD's lock (the move is over then) and asks where the move began ({@link #movedFrom}): past its
 * slot, the completion is its own; else the move took it, and the consumer sets MOVED_BIT again
 * (its store may have come after the mover's) and looks in the EVD's ring. The consumer's word is
 * not {@code head} because a store that comes after the whole move would land in the placer's
 * word of the ring's ordinary mode.
 */
final class RecvRing extends ClaimedRing
{
    /** A single-writer ring's close word (1 while closed), on the posters' line. */
    static final int SHUT = 36;
    /**
     * Direct mode: the placer's next position, on a line of its own: a line's worth of longs after
     * the posters' last word and before the array's end ({@link ClaimedRing}), for every placement
     * of the array on the heap. At index 4 it shared the line of the array's length in three
     * placements of eight, a word every access of either thread reads.
     */
    static final int PLACE = 46;
    /** Direct mode: the placer's last look at head (the EVD's bound on completions not dequeued). */
    static final int PLACER_HEAD = 47;
    /** Direct mode: the posters' last look at {@code place}, on their line. */
    static final int PLACE_CACHE = 38;
    /** Direct mode, single-writer ring: the one consumer's position, on head's line (head is idle then). */
    static final int TAKEN = 18;

    /** {@link #mode}: completions go to the receive EVD's ring. */
    static final int NORMAL = 0;
    /** {@link #mode}: completions stay in the slots, and the EVD dequeues from here. */
    static final int DIRECT = 1;
    /** {@link #mode}: the EVD is moving the completed slots into its ring, under its lock. */
    static final int MIGRATING = 2;
    /** {@link #takeDirect}: nothing completed at the head. */
    static final long EMPTY = -1;
    /** {@link #takeDirect}: the mode ended; the events are in the EVD's ring (look under its lock). */
    static final long MOVED = -2;

    /** NORMAL, DIRECT or MIGRATING; DIRECT only from the endpoint's creation, and never again once left. */
    volatile int mode;
    /** In direct mode: the EVD that dequeues from the slots. */
    EvdImpl directEvd;
    /** In direct mode: the EVD's length (completions not dequeued beyond it overflow it). */
    private int directQlen;
    /** {@link #claimPost}: the slots are full of completions not dequeued (direct mode must end first). */
    static final long CROWDED_DIRECT = -4;

    private final RecvBuffer[] slots;
    private final int mask;
    /** Claims by plain stores: one posting thread (see above). */
    final boolean singleWriter;
    /** The tail the last {@link #close} returned; written and read under the endpoint's lock. */
    private long closedAt;
    /** Direct mode: the index of the consumers' position ({@code head}, or {@code taken} for one consumer). */
    private final int take;
    /** Where the end of direct mode began to move completions ({@link #closeDirect}); under the EVD's lock. */
    private long movedFrom = Long.MAX_VALUE;

    /** An empty ring of {@code capacity} receives of up to {@code maxIov} segments, open, with atomic claims. */
    RecvRing(final int capacity, final int maxIov)
    {
        this(capacity, maxIov, false);
    }

    /** An empty ring, open; {@code singleWriter}: one posting thread, claims without an atomic. */
    RecvRing(final int capacity, final int maxIov, final boolean singleWriter)
    {
        this(capacity, maxIov, singleWriter, capacity, false);
    }

    /**
     * An empty ring, open, with at least {@code slotsAtLeast} slots; {@code packed}: four slots'
     * words to a line, the cookies in an array of their own ({@link RecvBuffer}).
     */
    private RecvRing(final int capacity, final int maxIov, final boolean singleWriter, final int slotsAtLeast,
        final boolean packed)
    {
        super(capacity);
        this.singleWriter = singleWriter;
        this.take = singleWriter ? TAKEN : HEAD;
        final int want = Math.max(capacity, slotsAtLeast);
        final int physical = Math.max(1, Integer.highestOneBit(Math.max(1, want - 1)) << 1);
        this.slots = new RecvBuffer[physical];
        if (packed)
        {
            // a line's worth of longs before the first slot and after the last: the array's header
            // (its length, which every access reads) and its neighbours on the heap share no line
            // with the slots the placer writes
            final long[] lines = new long[PACKED_PAD + physical * RecvBuffer.PACKED_STRIDE + PACKED_PAD];
            final long[] cookies = new long[physical];
            for (int i = 0; i < physical; i++)
            {
                slots[i] = new RecvBuffer(maxIov, lines, PACKED_PAD + i * RecvBuffer.PACKED_STRIDE, cookies, i);
            }
        }
        else
        {
            // each slot's sequence and cookie in one array, 128 bytes apart (RecvBuffer)
            final long[] lines = new long[physical * RecvBuffer.STRIDE];
            for (int i = 0; i < physical; i++)
            {
                slots[i] = new RecvBuffer(maxIov, lines, i * RecvBuffer.STRIDE);
            }
        }
        this.mask = physical - 1;
    }

    /** Longs before a packed ring's first slot and after its last. */
    private static final int PACKED_PAD = 8;

    /**
     * An empty ring for direct mode, open: twice the slots (completions not yet dequeued hold
     * theirs while {@code capacity} receives are posted), packed four to a line.
     */
    static RecvRing direct(final int capacity, final int maxIov, final boolean singleWriter)
    {
        return new RecvRing(capacity, maxIov, singleWriter, 2 * capacity, true);
    }

    /** Receives posted and not yet taken (a snapshot; claims in flight count). */
    int posted()
    {
        final long h = mode == NORMAL ? head() : (long) COUNTERS.getOpaque(counters, PLACE);
        return (int) Math.max(0, tail() - h);
    }

    // ------------------------------------------------------------------ posters

    /**
     * Claims the next position under the endpoint's lock, closed or not (a flush, which also
     * takes the lock, then sees it). Returns the position or {@link #FULL}.
     */
    long claimLocked()
    {
        if (singleWriter)
        {
            final long t = tail();
            final long room = roomFor(t);
            if (room != 0)
            {
                return room;
            }
            COUNTERS.setRelease(counters, TAIL, t + 1);
            return t;
        }
        while (true)
        {
            final long raw = (long) COUNTERS.getVolatile(counters, TAIL);
            final long t = raw & ~CLOSED_BIT;
            final long room = roomFor(t);
            if (room != 0)
            {
                return room;
            }
            if (COUNTERS.compareAndSet(counters, TAIL, raw, raw + 1))
            {
                return t;
            }
        }
    }

    /**
     * A single-writer ring's claim, not yet made: the next position if the ring is open and has
     * room, else {@link #CLOSED} or {@link #FULL}. The poster fills its slot, then {@link #commit}s.
     */
    long reserve()
    {
        if ((long) COUNTERS.getAcquire(counters, SHUT) != 0)
        {
            return CLOSED;
        }
        // the one poster's own word
        final long t = (long) COUNTERS.getOpaque(counters, TAIL);
        final long room = roomFor(t);
        return room != 0 ? room : t;
    }

    /**
     * Makes the reserved {@code position} a claim (a single-writer ring); the caller publishes it
     * next in any case. False if a close came meanwhile: it may or may not have taken the
     * receive, which the caller asks under the endpoint's lock ({@link #closedAt}).
     */
    boolean commit(final long position)
    {
        // a store, then a load: a closer stores shut, then loads tail (see the class comment)
        COUNTERS.setVolatile(counters, TAIL, position + 1);
        return (long) COUNTERS.getVolatile(counters, SHUT) == 0;
    }

    /**
     * A threadsafe poster's claim without the lock: the position, {@link #FULL},
     * {@link #CROWDED_DIRECT} or {@link #CLOSED}.
     */
    long claimPost()
    {
        while (true)
        {
            final long t = (long) COUNTERS.getVolatile(counters, TAIL);
            if ((t & CLOSED_BIT) != 0)
            {
                return CLOSED;
            }
            final long room = roomFor(t);
            if (room != 0)
            {
                return room;
            }
            if (COUNTERS.compareAndSet(counters, TAIL, t, t + 1))
            {
                return t;
            }
        }
    }

    /**
     * Whether position {@code t} may be claimed: 0, else {@link #FULL} (capacity receives posted)
     * or {@link #CROWDED_DIRECT}. In direct mode the posted ones are those at or above {@code place}
     * and the slot must be free of a completion not yet dequeued; the posters' caches of both
     * words are read first, the words themselves only when a cache says no.
     */
    private long roomFor(final long t)
    {
        if (mode == NORMAL)
        {
            return hasRoom(t) ? 0 : FULL;
        }
        if (t - (long) COUNTERS.getOpaque(counters, PLACE_CACHE) >= capacity)
        {
            // the consumers' position first: never past the placer's (a completion is taken only
            // once placed, a hole only once passed), and on the line of a poster that also
            // dequeues; the placer's word, which it writes per message, only when that says no
            final long h = taken();
            long p = h;
            if (t - h >= capacity)
            {
                p = (long) COUNTERS.getAcquire(counters, PLACE);
            }
            COUNTERS.setOpaque(counters, PLACE_CACHE, p);
            if (t - p >= capacity)
            {
                return FULL;
            }
        }
        if (t - (long) COUNTERS.getOpaque(counters, HEAD_CACHE) >= slots.length)
        {
            final long h = taken();
            COUNTERS.setOpaque(counters, HEAD_CACHE, h);
            if (t - h >= slots.length)
            {
                return CROWDED_DIRECT;
            }
        }
        return 0;
    }

    /** The tail the last close returned: positions below it were flushed or moved. Lock held. */
    long closedAt()
    {
        return closedAt;
    }

    /**
     * Takes back the last claim of this closed single-writer ring, which its close did not take:
     * unpublished and unclaimed. Lock held.
     */
    void retract(final long position)
    {
        final RecvBuffer b = slots[(int) position & mask];
        b.clear();
        b.seq(position + 1 - slots.length);
        COUNTERS.setRelease(counters, TAIL, position);
    }

    /** Takes posts without the lock again after a close. Endpoint's lock held. */
    void open()
    {
        if (singleWriter)
        {
            COUNTERS.setVolatile(counters, SHUT, 0L);
        }
        else
        {
            reopen();
        }
    }

    RecvBuffer slot(final long position)
    {
        return slots[(int) position & mask];
    }

    /** Publishes the receive of {@code position}, which the caller claimed and filled. */
    void publish(final long position)
    {
        final RecvBuffer b = slots[(int) position & mask];
        if (b.hole)
        {
            // only when it was one: a store would take the slot's line from the placer's core
            b.hole = false;
        }
        // release: the buffer before the sequence; the placer reads it with acquire
        b.seq(position + 1);
    }

    /**
     * Gives back a claim whose triplets failed validation: undone if still the last (true), else
     * a hole (false).
     */
    boolean abandon(final long position)
    {
        final RecvBuffer b = slots[(int) position & mask];
        b.clear();
        if (COUNTERS.compareAndSet(counters, TAIL, position + 1, position))
        {
            return true;
        }
        b.hole = true;
        b.seq(position + 1);
        return false;
    }

    /** {@link #claimBounded}: the ring itself is full (of holes, the bound allowing more). */
    static final long CROWDED = -3;

    /**
     * A shared receive queue's claim: as {@link #claim}, and only while fewer than {@code limit}
     * positions lie at or above {@code released} (its buffers outstanding). Returns the position,
     * {@link #FULL} (the limit), {@link #CROWDED} (the ring) or {@link #CLOSED}.
     */
    long claimBounded(final long released, final int limit)
    {
        while (true)
        {
            final long t = (long) COUNTERS.getVolatile(counters, TAIL);
            if ((t & CLOSED_BIT) != 0)
            {
                return CLOSED;
            }
            if (t - released >= limit)
            {
                return FULL;
            }
            if (!hasRoom(t))
            {
                return CROWDED;
            }
            if (COUNTERS.compareAndSet(counters, TAIL, t, t + 1))
            {
                return t;
            }
        }
    }

    /**
     * {@link #claimBounded} on a single-writer ring that no other thread closes (an SRQ of a
     * single-writer IA: its resize and free come from the one consumer thread): the position to
     * fill and then {@link #commitAlone}, or {@link #FULL}, {@link #CROWDED}, {@link #CLOSED}.
     */
    long reserveBounded(final long released, final int limit)
    {
        if ((long) COUNTERS.getOpaque(counters, SHUT) != 0)
        {
            return CLOSED;
        }
        final long t = (long) COUNTERS.getOpaque(counters, TAIL);
        if (t - released >= limit)
        {
            return FULL;
        }
        if (!hasRoom(t))
        {
            return CROWDED;
        }
        return t;
    }

    /**
     * Claims and publishes a filled {@link #reserveBounded} position: the tail, then the
     * sequence (a taker that sees the tail first waits the few stores until the sequence).
     * Release stores only.
     */
    void commitAlone(final long position)
    {
        COUNTERS.setRelease(counters, TAIL, position + 1);
        publish(position);
    }

    /**
     * An open copy of this closed ring with room for {@code newCapacity} (at least what is
     * queued here), its receives at the same positions from the same head, without holes: the
     * receives behind a hole move down. Returns the copy; {@link #holesDropped} says how many.
     */
    RecvRing regrow(final int newCapacity)
    {
        final long h = head();
        final long t = tail();
        final RecvRing next = new RecvRing(Math.max(newCapacity, (int) (t - h)), slots[0].capacity(),
            singleWriter);
        long to = h;
        for (long p = h; p < t; p++)
        {
            final RecvBuffer from = slot(p);
            if (from.hole)
            {
                continue;
            }
            next.slot(to).copyFrom(from);
            next.publish(to);
            to++;
        }
        next.holesDropped = t - to;
        next.counters[HEAD] = h;
        next.counters[HEAD_CACHE] = h;
        COUNTERS.setVolatile(next.counters, TAIL, to);
        return next;
    }

    /** Holes {@link #regrow} left out of this ring. */
    long holesDropped;

    // ------------------------------------------------------------------ the placer

    /**
     * The posted receive at the head, or null if none is posted; holes are skipped. For the
     * one thread placing into the endpoint (or a flush, the placer excluded).
     */
    RecvBuffer peek()
    {
        if (mode != NORMAL)
        {
            return peekDirect();
        }
        while (true)
        {
            final long h = head();
            final RecvBuffer b = slots[(int) h & mask];
            if (b.seq() != h + 1)
            {
                if (tail() <= h)
                {
                    return null;
                }
                // claimed and being written: a post a few stores from publishing
                settle(h, h + 1);
                continue;
            }
            if (!b.hole)
            {
                return b;
            }
            setHead(h + 1);
        }
    }

    /** Moves {@code head} to {@code h} (the placer or a flush), keeping MOVED_BIT. */
    private void setHead(final long h)
    {
        COUNTERS.setRelease(counters, HEAD, h | (long) COUNTERS.getOpaque(counters, HEAD) & MOVED_BIT);
    }

    /**
     * The receive at the head is done with (its completion's fields read): its slot is free for
     * a poster. The placer only.
     */
    void advance()
    {
        // release, one writer: a poster that reads the new head and reuses the slot comes after
        // everything the placer read of it
        COUNTERS.setRelease(counters, HEAD, (long) COUNTERS.getOpaque(counters, HEAD) + 1);
    }

    /** Waits until every position in {@code [from, to)} still in the ring is published (or given back). */
    private void settle(final long from, final long to)
    {
        int spins = 0;
        for (long p = from; p < to; p++)
        {
            while (slots[(int) p & mask].seq() != p + 1 && p < tail() && head() <= p)
            {
                if ((++spins & 0xFF) == 0)
                {
                    Thread.yield();
                }
                Thread.onSpinWait();
            }
        }
    }

    // ------------------------------------------------------------------ flush and resize (EP lock held)

    /**
     * Closes the ring to posters without the lock and waits until every position claimed before
     * is published. Returns the tail: the receives in {@code [head, tail)} are all there are.
     * Direct mode must have ended first (the EVD's {@code leaveDirect}).
     */
    long close()
    {
        if (mode != NORMAL)
        {
            // completed slots never read seq == p + 1 in direct mode: settle would spin for good
            throw new IllegalStateException("a receive ring in direct mode closed before the mode ended");
        }
        final long t;
        if (singleWriter)
        {
            // a store, then a load: the poster stores tail, then loads shut
            COUNTERS.setVolatile(counters, SHUT, 1L);
            t = tail();
        }
        else
        {
            t = closeToClaims();
        }
        settle(head(), t);
        closedAt = t;
        return t;
    }

    /** Empties the ring (a flush took every receive in it). Closed; the placer excluded. */
    void drop(final long tail)
    {
        setHead(tail);
    }

    /**
     * A closed copy of this closed ring with room for {@code newCapacity} receives of up to
     * {@code maxIov} segments, holding copies of the receives queued here, in order. Null if they do not
     * fit: more of them than {@code newCapacity}, or one with more segments than {@code maxIov}.
     */
    RecvRing moveTo(final int newCapacity, final int maxIov)
    {
        final long h = head();
        final long t = tail();
        if (t - h > newCapacity)
        {
            // posted beside the caller's check, before the ring closed
            return null;
        }
        final RecvRing next = new RecvRing(newCapacity, maxIov, singleWriter);
        long to = 0;
        for (long p = h; p < t; p++)
        {
            final RecvBuffer from = slot(p);
            if (from.hole)
            {
                continue;
            }
            if (from.count > maxIov)
            {
                return null;
            }
            next.slot(to).copyFrom(from);
            next.publish(to);
            to++;
        }
        if (singleWriter)
        {
            next.counters[TAIL] = to;
            next.counters[SHUT] = 1;
        }
        else
        {
            next.counters[TAIL] = to | CLOSED_BIT;
        }
        return next;
    }

    // ------------------------------------------------------------------ direct mode

    /** Enters direct mode for {@code evd}: the ring is new and empty, and nobody posts or places yet. */
    void enterDirect(final EvdImpl evd)
    {
        directEvd = evd;
        directQlen = evd.capacity();
        COUNTERS.setRelease(counters, PLACE, head());
        COUNTERS.setRelease(counters, PLACE_CACHE, head());
        COUNTERS.setRelease(counters, PLACER_HEAD, head());
        COUNTERS.setRelease(counters, TAKEN, head());
        mode = DIRECT;
    }

    /**
     * Whether one more completion in the slots would leave more than the EVD's length not
     * dequeued: the EVD then overflows, which its ring reports (the caller ends direct mode). The
     * placer reads the consumers' head only when its last look says so.
     */
    boolean crowdsEvd()
    {
        final long p = (long) COUNTERS.getOpaque(counters, PLACE);
        if (p - (long) COUNTERS.getOpaque(counters, PLACER_HEAD) < directQlen)
        {
            return false;
        }
        final long h = taken();
        COUNTERS.setOpaque(counters, PLACER_HEAD, h);
        return p - h >= directQlen;
    }

    /** The posted receive at the placer's position, or null; holes are completed as holes on the way. */
    private RecvBuffer peekDirect()
    {
        while (true)
        {
            final long p = (long) COUNTERS.getOpaque(counters, PLACE);
            final RecvBuffer b = slots[(int) p & mask];
            if (b.seq() != p + 1)
            {
                if (tail() <= p)
                {
                    return null;
                }
                settle(p, p + 1);
                continue;
            }
            if (!b.hole)
            {
                return b;
            }
            // a hole: complete, with no event; the consumer moves the head over it
            COUNTERS.setOpaque(counters, PLACE, p + 1);
            b.complete(p, -1);
        }
    }

    /**
     * Completes the receive at the placer's position into its slot: the completion word, length
     * and all, with one release store, then {@link AsymmetricFence#light}, so that the caller's
     * next look at {@link #mode} and at the EVD's waiter comes after it: the mover
     * ({@link #closeDirect}) and a waiter that parks ({@link EvdWait}) fence for both. Returns the
     * position. The placer only.
     */
    long placeDirect(final RecvBuffer b, final long length)
    {
        final long p = (long) COUNTERS.getOpaque(counters, PLACE);
        COUNTERS.setOpaque(counters, PLACE, p + 1);
        b.complete(p, length);
        // no fence instruction: the rare sides fence for both (a waiter about to park, the mover)
        AsymmetricFence.light();
        return p;
    }

    /**
     * Takes the completed receive at the head into {@code event}: its position, {@link #EMPTY} or
     * {@link #MOVED}. No lock; safe against other consumers, the placer and a move (a single-writer
     * ring's one consumer: no read-modify-write, see the class comment).
     */
    long takeDirect(final DatEvent event, final EvdImpl evd, final EpImpl ep)
    {
        while (true)
        {
            final long raw = (long) COUNTERS.getVolatile(counters, take);
            if ((raw & MOVED_BIT) != 0)
            {
                return MOVED;
            }
            final RecvBuffer b = slots[(int) raw & mask];
            final long seq = b.seq();
            if (!RecvBuffer.completes(seq, raw))
            {
                if (seq > raw + 1 || RecvBuffer.completesLater(seq, raw))
                {
                    // taken meanwhile and the slot reused: this head is stale
                    continue;
                }
                return EMPTY;
            }
            final long cookie = b.cookie();
            final long length = b.lengthIn(seq);
            if (singleWriter)
            {
                // a store (after the slot's reads), then a load of the mover's word with no fence
                // between: the mover stores mode and makes this thread fence before it reads taken
                // (closeDirect, AsymmetricFence)
                COUNTERS.setRelease(counters, TAKEN, raw + 1);
                AsymmetricFence.light();
                if (mode != DIRECT && !tookBesideMove(raw))
                {
                    return MOVED;
                }
            }
            // while head names it, no poster reuses the slot: what was read is the completion
            else if (!COUNTERS.compareAndSet(counters, HEAD, raw, raw + 1))
            {
                continue;
            }
            if (length < 0)
            {
                continue;
            }
            event.eventNumber = DTO_COMPLETION;
            if (event.evdHandle != evd)
            {
                event.evdHandle = evd;
            }
            final DtoCompletionEventData d = event.dto;
            if (d.epHandle != ep)
            {
                d.epHandle = ep;
            }
            d.userCookie = cookie;
            if (d.status != DtoStatus.SUCCESS)
            {
                d.status = DtoStatus.SUCCESS;
            }
            d.transferredLength = length;
            return raw;
        }
    }

    /**
     * The one consumer stored {@code taken} past {@code position} and then found direct mode ending:
     * whether the completion it read there is its own (the move began past it) or the move's (in
     * the EVD's ring now). Under the EVD's lock, so after the move.
     */
    private boolean tookBesideMove(final long position)
    {
        Locks.lock(directEvd.lock);
        try
        {
            if (movedFrom > position)
            {
                return true;
            }
            // this consumer's store may have come after the mover's bit: set it again for good
            COUNTERS.setVolatile(counters, TAKEN, position | MOVED_BIT);
            return false;
        }
        finally
        {
            directEvd.lock.unlock();
        }
    }

    private static final int DTO_COMPLETION = EventNumber.DTO_COMPLETION_EVENT.value();

    /** Whether the head is complete, or the mode ended (a waiter then looks again under the EVD's lock). */
    boolean readyDirect()
    {
        final long raw = (long) COUNTERS.getVolatile(counters, take);
        return (raw & MOVED_BIT) != 0 || RecvBuffer.completes(slots[(int) raw & mask].seqVolatile(), raw);
    }

    /** Completed receives (not holes) from position {@code from} on, in order (a snapshot). */
    int countCompleted(final long from)
    {
        int n = 0;
        for (long p = from; p < from + slots.length; p++)
        {
            final RecvBuffer b = slots[(int) p & mask];
            final long word = b.seqVolatile();
            if (!RecvBuffer.completes(word, p))
            {
                break;
            }
            if (b.lengthIn(word) >= 0)
            {
                n++;
            }
        }
        return n;
    }

    /**
     * Starts ending direct mode (the EVD's lock held): no consumer takes here once this returns.
     * Returns the head: the completed slots from it on are the mover's to copy.
     */
    long closeDirect()
    {
        // a store, then the fence the placer and a single consumer leave out (placeDirect,
        // takeDirect), then the consumers' word and the slots: a placer that flipped a slot and
        // then reads mode DIRECT is seen here, and so is a single consumer's take that then reads
        // mode DIRECT
        mode = MIGRATING;
        AsymmetricFence.heavy();
        final long h = (long) COUNTERS.getAndBitwiseOr(counters, take, MOVED_BIT) & ~MOVED_BIT;
        movedFrom = h;
        return h;
    }

    /** The consumers' position in direct mode: the oldest completion not taken. */
    long taken()
    {
        return (long) COUNTERS.getVolatile(counters, take) & ~MOVED_BIT;
    }

    /** Whether position {@code p} is completed in its slot (direct mode, or its end). */
    boolean completedAt(final long p)
    {
        return RecvBuffer.completes(slots[(int) p & mask].seqVolatile(), p);
    }

    /** Ends direct mode (the EVD's lock held): the positions below {@code to} were moved or skipped. */
    void endDirect(final long to)
    {
        COUNTERS.setVolatile(counters, HEAD, to | MOVED_BIT);
        mode = NORMAL;
    }
}

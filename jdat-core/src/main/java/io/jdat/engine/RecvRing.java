package io.jdat.engine;

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
 */
final class RecvRing extends ClaimedRing
{
    /** A single-writer ring's close word (1 while closed), on the posters' line. */
    private static final int SHUT = 36;

    private final RecvBuffer[] slots;
    private final int mask;
    /** Claims by plain stores: one posting thread (see above). */
    final boolean singleWriter;
    /** The tail the last {@link #close} returned; written and read under the endpoint's lock. */
    private long closedAt;

    /** An empty ring of {@code capacity} receives of up to {@code maxIov} segments, open, with atomic claims. */
    RecvRing(final int capacity, final int maxIov)
    {
        this(capacity, maxIov, false);
    }

    /** An empty ring, open; {@code singleWriter}: one posting thread, claims without an atomic. */
    RecvRing(final int capacity, final int maxIov, final boolean singleWriter)
    {
        super(capacity);
        this.singleWriter = singleWriter;
        final int physical = Math.max(1, Integer.highestOneBit(Math.max(1, capacity - 1)) << 1);
        this.slots = new RecvBuffer[physical];
        // each slot's sequence and cookie in one array, 128 bytes apart (RecvBuffer)
        final long[] lines = new long[physical * RecvBuffer.STRIDE];
        for (int i = 0; i < physical; i++)
        {
            slots[i] = new RecvBuffer(maxIov, lines, i * RecvBuffer.STRIDE);
        }
        this.mask = physical - 1;
    }

    /** Receives posted and not yet taken (a snapshot; claims in flight count). */
    int posted()
    {
        final long h = head();
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
            if (t - head() >= capacity)
            {
                return FULL;
            }
            COUNTERS.setRelease(counters, TAIL, t + 1);
            return t;
        }
        while (true)
        {
            final long raw = (long) COUNTERS.getVolatile(counters, TAIL);
            final long t = raw & ~CLOSED_BIT;
            if (t - head() >= capacity)
            {
                return FULL;
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
        if (!hasRoom(t))
        {
            return FULL;
        }
        return t;
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
            COUNTERS.setRelease(counters, HEAD, h + 1);
        }
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
     */
    long close()
    {
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
        COUNTERS.setRelease(counters, HEAD, tail);
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
}

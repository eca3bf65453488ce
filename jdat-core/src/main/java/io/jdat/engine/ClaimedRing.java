package io.jdat.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the engine's lock-free rings share ({@link EventRing}, {@link RecvRing}): any thread claims
 * the next position with one compare-and-set of {@code tail}; the consumer side moves
 * {@code head}; a bit in {@code tail} closes the ring to claims while its owner, under its lock,
 * moves or empties it (a resize, a flush, a destroy).
 *
 * <pre>
 *   counters  [16] head        the consumer side's line
 *             [32] tail        the claimers' line (bit 62: closed); 128 bytes from head
 *             [34] head cache  the claimers' last look at head: the real one is read only when
 *                              the ring looks full
 *             other indices are the subclass's own (kept off these two lines' neighbours' use)
 * </pre>
 *
 * <p>The array sits wherever the collector puts it, 8-byte aligned, so a "line" here is any 64
 * bytes: two words share one in some placements unless 8 longs or more lie between them. Words
 * that different threads write stay that far apart, and that far from the array's header (its
 * length, which every access of every thread reads for the bounds check) and from its end (the
 * next object on the heap). A subclass's word at index 4, written by the other thread on every
 * message, shared the header's line in three placements of eight, and the round trip of a run
 * that drew one of them took about 40 ns more per hop.
 */
abstract class ClaimedRing
{
    static final VarHandle COUNTERS = MethodHandles.arrayElementVarHandle(long[].class);
    static final int HEAD = 16;
    static final int TAIL = 32;
    static final int HEAD_CACHE = 34;
    static final int COUNTER_LONGS = 56;
    /** Set in {@code tail} while the ring takes no claims. */
    static final long CLOSED_BIT = 1L << 62;
    /**
     * Set in {@code head} of a receive ring whose completions left its slots for good
     * ({@link RecvRing}'s direct mode ended): no consumer takes from its slots again.
     */
    static final long MOVED_BIT = 1L << 61;

    /** {@link #claim}: no room. */
    static final long FULL = -1;
    /** {@link #claim}: closed; the caller goes to the ring owner's lock. */
    static final long CLOSED = -2;

    final long[] counters = new long[COUNTER_LONGS];
    final int capacity;

    ClaimedRing(final int capacity)
    {
        this.capacity = capacity;
    }

    final int capacity()
    {
        return capacity;
    }

    final long head()
    {
        return (long) COUNTERS.getVolatile(counters, HEAD) & ~MOVED_BIT;
    }

    /**
     * Whether position {@code t} has a free slot. A poster looks at the head it cached, on its own
     * line, and reads the consumers' {@code head} (and caches it) only when that says full.
     */
    final boolean hasRoom(final long t)
    {
        if (t - (long) COUNTERS.getOpaque(counters, HEAD_CACHE) < capacity)
        {
            return true;
        }
        final long h = head();
        COUNTERS.setOpaque(counters, HEAD_CACHE, h);
        return t - h < capacity;
    }

    /** Positions claimed so far (published, being written, or holes). */
    final long tail()
    {
        return (long) COUNTERS.getVolatile(counters, TAIL) & ~CLOSED_BIT;
    }

    final boolean closed()
    {
        return ((long) COUNTERS.getVolatile(counters, TAIL) & CLOSED_BIT) != 0;
    }

    /**
     * Claims the next position: its record is the caller's to fill and then publish. Returns the
     * position, {@link #FULL} or {@link #CLOSED}. One compare-and-set; no lock. (An
     * {@link EventRing} of a {@code nonthreadsafe} IA claims its own way.)
     */
    long claim()
    {
        while (true)
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
            if (COUNTERS.compareAndSet(counters, TAIL, t, t + 1))
            {
                return t;
            }
        }
    }

    /** Sets the closed bit; returns the tail at that moment (every claim before it is below). */
    final long closeToClaims()
    {
        return (long) COUNTERS.getAndBitwiseOr(counters, TAIL, CLOSED_BIT) & ~CLOSED_BIT;
    }

    /** Takes claims again after a close. Owner's lock held. */
    void reopen()
    {
        COUNTERS.getAndBitwiseAnd(counters, TAIL, ~CLOSED_BIT);
    }
}

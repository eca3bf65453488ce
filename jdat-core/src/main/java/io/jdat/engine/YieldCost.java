package io.jdat.engine;

/**
 * What a {@code Thread.yield} costs on this machine when it runs no other thread: the least one
 * timed, first over a few yields when the class loads, then lowered by every yield a wait times.
 * A yield that hands the core to another thread costs at least two system calls (this thread's,
 * and the other's as it gives the core back) and the other thread's work in between; one that
 * runs nobody costs one. That one call costs about 0.2 µs on some machines and 1.6 µs in some
 * virtual machines, so no fixed bound tells the two kinds apart on both: a yield counts as given
 * away from one and a half times the least seen ({@link #freeCoreBound}).
 *
 * <p>The least only ever falls: a yield that gave the core away is never shorter than one that
 * did not, so waits on a shared core do not raise it. The word is written without an atomic (a
 * lower value lost to a race is found again by the next yield that short).
 */
final class YieldCost
{
    /** Yields timed when the class loads: the least of them ran nobody unless both cores were busy throughout. */
    private static final int FIRST_YIELDS = 16;
    /** Below this a yield is never taken for one that gave the core away, nanoseconds (the bound before timing). */
    static final long FLOOR_NANOS = 1_000L;

    private static volatile long least = timeFirstYields();

    private YieldCost()
    {
    }

    private static long timeFirstYields()
    {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < FIRST_YIELDS; i++)
        {
            final long before = System.nanoTime();
            Thread.yield();
            min = Math.min(min, System.nanoTime() - before);
        }
        return min;
    }

    /** The least a yield has taken here, nanoseconds. */
    static long least()
    {
        return least;
    }

    /** A wait timed a yield at {@code tookNanos}. */
    static void observe(final long tookNanos)
    {
        if (tookNanos >= 0 && tookNanos < least)
        {
            least = tookNanos;
        }
    }

    /** The time from which a yield counts as one that ran another thread, nanoseconds. */
    static long freeCoreBound()
    {
        return bound(least);
    }

    /** {@link #freeCoreBound} for a least yield of {@code leastNanos}. */
    static long bound(final long leastNanos)
    {
        return Math.max(FLOOR_NANOS, leastNanos + leastNanos / 2);
    }
}

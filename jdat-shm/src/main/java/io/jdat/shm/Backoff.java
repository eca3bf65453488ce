package io.jdat.shm;

/**
 * How the I/O thread waits when there is nothing to do, as Aeron's backoff idle strategy but
 * measured in time: after the last work it spins ({@link Thread#onSpinWait()}) for a while, then
 * yields for a while, then parks for a time that doubles from a minimum to a maximum. Work resets
 * it. The park is the caller's: where futexes are available the I/O thread sleeps on its rings'
 * bells for that long, so a peer that publishes wakes it at once ({@link Futex}); elsewhere it
 * parks, and only threads of this process can unpark it.
 *
 * @param spinNanos  how long to spin after the last work ({@code idle_spin_ns})
 * @param yieldNanos how long to yield after that ({@code idle_yield_ns})
 * @param minParkNs  first park ({@code idle_park_min_ns})
 * @param maxParkNs  longest park ({@code idle_park_max_ns})
 */
record Backoff(long spinNanos, long yieldNanos, long minParkNs, long maxParkNs)
{
    /** The per-thread state of one waiter. */
    final class State
    {
        private long idleSince;
        private boolean idle;
        private long park = minParkNs;

        /**
         * Called after each round with the work it did: spins or yields here, or returns how long
         * the caller should park (0: go on at once). The caller may wake early (a peer rang).
         */
        long idle(final int work)
        {
            if (work > 0)
            {
                idle = false;
                park = minParkNs;
                return 0;
            }
            final long now = System.nanoTime();
            if (!idle)
            {
                idle = true;
                idleSince = now;
            }
            final long quiet = now - idleSince;
            if (quiet < spinNanos)
            {
                Thread.onSpinWait();
                return 0;
            }
            if (quiet < spinNanos + yieldNanos)
            {
                Thread.yield();
                return 0;
            }
            final long p = park;
            park = Math.min(park << 1, maxParkNs);
            return p;
        }
    }

    State newState()
    {
        return new State();
    }
}

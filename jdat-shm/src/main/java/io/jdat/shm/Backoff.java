package io.jdat.shm;

import java.util.concurrent.locks.LockSupport;

/**
 * How the I/O thread waits when there is nothing to do, as Aeron's backoff idle strategy but
 * measured in time: after the last work it spins ({@link Thread#onSpinWait()}) for a while, then
 * yields for a while, then parks for a time that doubles from a minimum to a maximum. Work resets
 * it. A process on the other side cannot unpark this thread, so while a peer keeps sending (a
 * ping-pong, a stream) the thread stays in its spin or yield phase, and only a quiet connection
 * pays the park; threads of this process unpark it at once.
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

        /** Called after each round with the work it did. */
        void idle(final int work)
        {
            idle(work, Long.MAX_VALUE);
        }

        /** Whether the next idle round parks (the spin and the yield are over). */
        boolean parks()
        {
            return idle && System.nanoTime() - idleSince >= spinNanos + yieldNanos;
        }

        /** As {@link #idle(int)}, parking for at most {@code maxPark} nanoseconds. */
        void idle(final int work, final long maxPark)
        {
            if (work > 0)
            {
                idle = false;
                park = minParkNs;
                return;
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
            }
            else if (quiet < spinNanos + yieldNanos)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(this, Math.min(park, maxPark));
                park = Math.min(park << 1, maxParkNs);
            }
        }
    }

    State newState()
    {
        return new State();
    }
}

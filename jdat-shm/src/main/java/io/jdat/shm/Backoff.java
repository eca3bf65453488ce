package io.jdat.shm;

import java.util.concurrent.locks.LockSupport;

/**
 * How the I/O thread waits when there is nothing to do, as Aeron's backoff idle strategy but
 * measured in time: after the last work it spins ({@link Thread#onSpinWait()}) for a while, then
 * yields for a while, then parks for a time that doubles from a minimum to a maximum. Work resets
 * it. The park is the owner's to make ({@link Sleeper}): an shm port sleeps on futex words the
 * peer process wakes ({@link Futex}), each time for the maximum ({@link #newWokenState}); without
 * one, or where that is not possible, it parks, and only threads of this process can unpark it.
 *
 * @param spinNanos  how long to spin after the last work ({@code idle_spin_ns})
 * @param yieldNanos how long to yield after that ({@code idle_yield_ns})
 * @param minParkNs  first park ({@code idle_park_min_ns})
 * @param maxParkNs  longest park ({@code idle_park_max_ns})
 */
record Backoff(long spinNanos, long yieldNanos, long minParkNs, long maxParkNs)
{
    /** Sleeps up to a time, returning true, or returns false at once and the caller parks. */
    interface Sleeper
    {
        boolean sleep(long nanos);
    }

    /** The per-thread state of one waiter. */
    final class State
    {
        private final Sleeper sleeper;
        /** Whether the sleeper's sleeps end when work comes: each then lasts the longest park. */
        private final boolean woken;
        private long idleSince;
        private boolean idle;
        private long park = minParkNs;

        State(final Sleeper sleeper, final boolean woken)
        {
            this.sleeper = sleeper;
            this.woken = woken;
        }

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
                final long p = Math.min(park, maxPark);
                if (sleeper == null || !sleeper.sleep(woken ? Math.min(maxParkNs, maxPark) : p))
                {
                    LockSupport.parkNanos(this, p);
                }
                park = Math.min(park << 1, maxParkNs);
            }
        }
    }

    State newState()
    {
        return new State(null, false);
    }

    /** A state whose parks go through {@code sleeper}. */
    State newState(final Sleeper sleeper)
    {
        return new State(sleeper, false);
    }

    /**
     * A state whose parks go through {@code sleeper}, whose sleeps end as soon as work comes (the
     * peer wakes them): each sleep lasts the longest park at once, with no doubling from the
     * shortest, which woke the thread into a run queue it had to wait in; where the sleeper
     * cannot sleep, the parks double as in {@link #newState(Sleeper)}.
     */
    State newWokenState(final Sleeper sleeper)
    {
        return new State(sleeper, true);
    }
}

package io.jdat.shm;

import java.util.concurrent.locks.LockSupport;

/**
 * How the I/O thread waits when there is nothing to do, as Aeron's backoff idle strategy: spin
 * ({@link Thread#onSpinWait()}) a few rounds, then yield a few, then park for a time that doubles
 * from a minimum to a maximum. Work resets it. A process on the other side cannot unpark this
 * thread, so the longest park bounds the latency of a peer that wakes a sleeping side; threads of
 * this process unpark it at once.
 *
 * @param spins    rounds of spinning ({@code idle_spins})
 * @param yields   rounds of yielding after that ({@code idle_yields})
 * @param minParkNs first park ({@code idle_park_min_ns})
 * @param maxParkNs longest park ({@code idle_park_max_ns})
 */
record Backoff(int spins, int yields, long minParkNs, long maxParkNs)
{
    /** The per-thread state of one waiter. */
    final class State
    {
        private long idle;
        private long park = minParkNs;

        /** Called after each round with the work it did. */
        void idle(final int work)
        {
            if (work > 0)
            {
                idle = 0;
                park = minParkNs;
                return;
            }
            idle++;
            if (idle <= spins)
            {
                Thread.onSpinWait();
            }
            else if (idle <= (long) spins + yields)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(this, park);
                park = Math.min(park << 1, maxParkNs);
            }
        }
    }

    State newState()
    {
        return new State();
    }
}

package io.jdat.engine;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Acquires the engine's short-held locks. The sections they guard last nanoseconds (or a memory
 * copy), so a contended acquire first spins with {@code tryLock}: a thread that parked inside
 * {@link ReentrantLock#lock()} would pay a wake-up of tens of microseconds, and its queue node
 * an allocation, on the hot path.
 */
final class Locks
{
    private static final int SPINS = 1 << 10;

    private Locks()
    {
    }

    static void lock(final ReentrantLock lock)
    {
        if (lock.tryLock())
        {
            return;
        }
        for (int i = 0; i < SPINS; i++)
        {
            Thread.onSpinWait();
            if (!lock.isLocked() && lock.tryLock())
            {
                return;
            }
        }
        lock.lock();
    }
}

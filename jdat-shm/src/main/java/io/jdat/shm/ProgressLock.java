package io.jdat.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The port's progress lock: held by whoever runs a round over the port's connections, writes a
 * Send into a ring on the posting thread ({@link ShmChannel#sendNow}), arms the futex words before
 * a sleep, or ends connections. Almost every taker only tries ({@link #tryLock()}) and goes on
 * without it; two rare paths must have it ({@link #lock()}: an abort, the port's shutdown).
 *
 * <p>One word, the holder's thread id, taken by compare-and-set and given back by a release store.
 * A {@code ReentrantLock} gives itself back with a volatile store, which on x86 is a full fence:
 * the posting thread, having just written a record into the lines the peer is polling, then
 * waited until those stores had left its store buffer, one line crossing per Send
 * (docs/perf.md, "Thirty-second step"). A release store keeps the holder's writes before it, which
 * is all that the next holder needs; nobody waits on the word, so there is nobody to wake and no
 * store-then-load to fence.
 *
 * <p>A thread that must have the lock announces itself in {@link #wanted}: from then on every
 * {@link #tryLock()} of another thread fails, so the holder of the moment is the last before it,
 * and it polls the word, parking {@value #PARK_NANOS} ns between looks once it has spun a while.
 * Holds are short (a round, one record), so that wait is bounded by one of them.
 */
final class ProgressLock
{
    private static final long FREE = 0;
    private static final int SPINS = 100;
    private static final long PARK_NANOS = 20_000;
    private static final VarHandle OWNER;
    private static final VarHandle WANTED;

    static
    {
        try
        {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            OWNER = l.findVarHandle(ProgressLock.class, "owner", long.class);
            WANTED = l.findVarHandle(ProgressLock.class, "wanted", int.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #FREE} or the holder's thread id (positive). */
    private volatile long owner;
    /** The holder's nested holds; touched by the holder only. */
    private int holds;
    /** Threads in {@link #lock()}: while non-zero, {@link #tryLock()} of anyone else fails. */
    private volatile int wanted;

    /** Takes the lock if it is free and nobody waits for it, or adds a hold of the calling holder. */
    boolean tryLock()
    {
        final long me = Thread.currentThread().threadId();
        final long o = owner;
        if (o == me)
        {
            holds++;
            return true;
        }
        if (o != FREE || wanted != 0 || !OWNER.compareAndSet(this, FREE, me))
        {
            return false;
        }
        holds = 1;
        return true;
    }

    /** Takes the lock, waiting for the holder of the moment to give it back. */
    void lock()
    {
        final long me = Thread.currentThread().threadId();
        if (owner == me)
        {
            holds++;
            return;
        }
        WANTED.getAndAdd(this, 1);
        try
        {
            int spins = 0;
            while (owner != FREE || !OWNER.compareAndSet(this, FREE, me))
            {
                if (++spins < SPINS)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    LockSupport.parkNanos(PARK_NANOS);
                }
            }
            holds = 1;
        }
        finally
        {
            WANTED.getAndAdd(this, -1);
        }
    }

    /** Gives back one hold; the last gives the lock back. Holder only. */
    void unlock()
    {
        if (owner != Thread.currentThread().threadId())
        {
            throw new IllegalMonitorStateException("the progress lock is not held by this thread");
        }
        if (--holds == 0)
        {
            OWNER.setRelease(this, FREE);
        }
    }

    boolean isHeldByCurrentThread()
    {
        return owner == Thread.currentThread().threadId();
    }
}

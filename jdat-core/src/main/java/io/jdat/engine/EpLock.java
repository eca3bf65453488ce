package io.jdat.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * An endpoint's lock: one word, the owning thread's id, taken with a compare-and-set and let go
 * with a release store. Reentrant. The sections it guards are short (a post, a completion, a
 * state change, a copy at most), so a thread that finds it taken spins, then yields, then naps
 * for a few microseconds at a time and looks again: no waiter ever parks until woken, so letting
 * go needs no look for waiters, and no fence. A {@code ReentrantLock}'s release is a volatile
 * store (a full fence on x86) followed by that look.
 *
 * <p>The word also carries {@link #PLACING}: a poster takes the lock with it set
 * ({@link #lockToPlace}) when it may place its own message into the peer's connection without
 * the peer's lock ({@code Channel#sendNow}). The receiving end's close waits while it is set
 * ({@link #placingByOther}); the compare-and-set that took the lock is the store the close must
 * see before the poster looks whether the connection closed, so the claim costs no fenced
 * operation of its own.
 */
final class EpLock
{
    /** Set in the word while its owner may place a message into the peer's connection. */
    static final long PLACING = 1L << 62;
    private static final int SPINS = 1 << 10;
    private static final int YIELDS = 1 << 6;
    private static final long MAX_NAP_NANOS = 50_000;
    private static final VarHandle WORD;

    static
    {
        try
        {
            WORD = MethodHandles.lookup().findVarHandle(EpLock.class, "word", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The owner's thread id, with {@link #PLACING} while it places; 0 when free. */
    private volatile long word;
    /** How often the owner holds it (read and written by the owner only). */
    private int holds;

    void lock()
    {
        acquire(0);
    }

    /**
     * Takes the lock as a poster that may place its message into the peer's connection: true
     * if the word now says {@link #PLACING}; false if this thread held the lock already (it may
     * not place then: it may be inside a delivery or a close).
     */
    boolean lockToPlace()
    {
        return acquire(PLACING);
    }

    /** The owner placed, or will not: the receiving end's close need not wait for it any more. */
    void donePlacing()
    {
        final long w = word;
        if ((w & PLACING) != 0)
        {
            // a release store: what the placement wrote is seen by the close that sees this
            WORD.setRelease(this, w & ~PLACING);
        }
    }

    /** Whether the owner holds {@link #PLACING}. Owner only. */
    boolean placing()
    {
        return (word & PLACING) != 0;
    }

    /** Whether a thread other than the one with id {@code self} holds the lock with {@link #PLACING}. */
    boolean placingByOther(final long self)
    {
        final long w = word;
        return (w & PLACING) != 0 && (w & ~PLACING) != self;
    }

    void unlock()
    {
        if (--holds == 0)
        {
            WORD.setRelease(this, 0L);
        }
    }

    private boolean acquire(final long mark)
    {
        final long me = Thread.currentThread().threadId();
        if (WORD.compareAndSet(this, 0L, me | mark))
        {
            holds = 1;
            return mark != 0;
        }
        if ((word & ~PLACING) == me)
        {
            holds++;
            return false;
        }
        long nap = 1_000;
        for (int i = 0; ; i++)
        {
            if (i < SPINS)
            {
                Thread.onSpinWait();
            }
            else if (i < SPINS + YIELDS || Thread.currentThread().isInterrupted())
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(this, nap);
                nap = Math.min(nap * 2, MAX_NAP_NANOS);
            }
            if (word == 0 && WORD.compareAndSet(this, 0L, me | mark))
            {
                holds = 1;
                return mark != 0;
            }
        }
    }

    @Override
    public String toString()
    {
        final long w = word;
        return "EpLock[" + (w == 0 ? "free" : "thread " + (w & ~PLACING) + ((w & PLACING) != 0 ? ", placing" : ""))
            + "]";
    }
}

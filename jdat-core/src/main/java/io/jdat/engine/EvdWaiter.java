package io.jdat.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What an EVD's consumer writes on every {@code dat_evd_wait}: the waiting thread, its threshold,
 * and the abort a destroy sets. Producers read the EVD's other fields (its ring, its CNO, whether
 * the waiter parked) after every event; in the EVD's own object these words shared a cache line
 * with those, which then moved between the consumer's core and the producer's on every event. Here
 * they sit between 64 bytes of padding on each side (a superclass's fields come first, a subclass's
 * last), on lines no producer reads while the waiter spins.
 */
final class EvdWaiter extends EvdWaiterWords
{
    private static final VarHandle THREAD;

    static
    {
        try
        {
            THREAD = MethodHandles.lookup().findVarHandle(EvdWaiterWords.class, "thread", Thread.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The waiter leaves with its event: a release store, no fence. Nothing it does next waits on
     * another thread seeing this first (a producer reads the word only after a park, and a
     * {@code dat_evd_dequeue} or another {@code dat_evd_wait} that still sees it refuses, as it
     * would have a moment earlier); the take's compare-and-set, or the next wait's lock, orders it.
     */
    void leave()
    {
        THREAD.setRelease(this, (Thread) null);
    }

    @SuppressWarnings("unused")
    private long q0;
    @SuppressWarnings("unused")
    private long q1;
    @SuppressWarnings("unused")
    private long q2;
    @SuppressWarnings("unused")
    private long q3;
    @SuppressWarnings("unused")
    private long q4;
    @SuppressWarnings("unused")
    private long q5;
    @SuppressWarnings("unused")
    private long q6;
    @SuppressWarnings("unused")
    private long q7;
}

/** The waiter's words ({@link EvdWaiter}), behind the leading padding. */
abstract class EvdWaiterWords extends EvdWaiterPadding
{
    /** The thread blocked in {@code dat_evd_wait}, or null. */
    volatile Thread thread;
    /** Its threshold; written before {@link #thread}. */
    int threshold;
    /** Set when the EVD is destroyed under the waiter: it returns {@code DAT_ABORT}. */
    volatile boolean aborted;
}

/** The 64 bytes ahead of {@link EvdWaiterWords}. */
@SuppressWarnings("unused")
abstract class EvdWaiterPadding
{
    private int p0;
    private long p1;
    private long p2;
    private long p3;
    private long p4;
    private long p5;
    private long p6;
    private long p7;
    private long p8;
}

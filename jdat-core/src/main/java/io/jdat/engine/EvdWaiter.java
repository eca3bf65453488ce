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
    /** How often a wait yields after one that gave its core away ({@link #yielding}), nanoseconds. */
    static final long SHARED_CORE_YIELD_NANOS = 1_000L;
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

    /**
     * How often this wait's spin yields its core, nanoseconds (0: never): the IA's
     * {@code evd_spin_yield_ns}, or, where that is 0 and the IA does not poll a transport in its
     * waits, {@link #SHARED_CORE_YIELD_NANOS} while the EVD's last wait had to give its core away
     * ({@link #yielding}).
     */
    long yieldEvery(final long configured, final boolean pollsInline)
    {
        return configured > 0 || pollsInline || !yielding ? configured : SHARED_CORE_YIELD_NANOS;
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
    /**
     * Whether the last wait that got its event had parked or yielded first (written by the waiter
     * only). When two threads of a
     * ping-pong end up on one core, each one's answer can come only once the other stops spinning:
     * a spin that never yields makes every half round trip a whole spin and a park, and both
     * threads stay in that state. A wait after one that had to give its core away therefore
     * yields every {@link EvdWaiter#SHARED_CORE_YIELD_NANOS} (after a spin of that long); the first wait
     * that gets its event without yielding ends it, so threads on cores of their own, whose
     * answers come within it, never yield.
     */
    boolean yielding;
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

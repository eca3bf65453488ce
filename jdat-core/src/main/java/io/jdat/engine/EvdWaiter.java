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
    /** The bit of {@link EvdWaiterWords#quickTakers} that closes the lock-free take. */
    private static final int QUICK_CLOSED = Integer.MIN_VALUE;
    private static final VarHandle THREAD;
    private static final VarHandle QUICK;
    private static final VarHandle ALONE;

    static
    {
        try
        {
            THREAD = MethodHandles.lookup().findVarHandle(EvdWaiterWords.class, "thread", Thread.class);
            QUICK = MethodHandles.lookup().findVarHandle(EvdWaiterWords.class, "quickTakers", int.class);
            ALONE = MethodHandles.lookup().findVarHandle(EvdWaiterWords.class, "quickAlone", int.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The EVD is of a single-writer IA ({@link IaImpl#singleWriter}): its one consumer thread enters
     * and leaves the lock-free take through {@link EvdWaiterWords#quickAlone}, with no
     * read-modify-write.
     */
    final boolean single;

    /** {@code single}: the EVD's IA is single-writer, one consumer thread. */
    EvdWaiter(final boolean single)
    {
        this.single = single;
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
     * A {@code dat_evd_wait} that would take a queued event without the EVD lock enters here; false
     * if {@code dat_evd_set_unwaitable} has closed that way (the wait then decides under the lock).
     * One atomic add: the count and the closed bit are one word, so a set either sees this taker
     * and waits for it, or this taker sees the set. The one consumer of a single-writer IA stores
     * its own word instead, then reads the closed bit; the set sets the bit (a full fence), then
     * reads that word: a store, then a load of the other's word on each side.
     */
    boolean enterQuick()
    {
        if (single)
        {
            ALONE.setVolatile(this, 1);
            if ((int) QUICK.getVolatile(this) < 0)
            {
                ALONE.setRelease(this, 0);
                return false;
            }
            return true;
        }
        if ((int) QUICK.getAndAdd(this, 1) < 0)
        {
            QUICK.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    /** The lock-free take is over, with or without its event. */
    void leaveQuick()
    {
        if (single)
        {
            // a release store: what the take read comes before it
            ALONE.setRelease(this, 0);
            return;
        }
        QUICK.getAndAdd(this, -1);
    }

    /**
     * Closes the lock-free take and waits for the takers already in it (each is a bounded look at
     * the ring): once this returns, no wait takes an event without first seeing, under the EVD
     * lock, what the caller changes next. Called with the EVD lock held.
     */
    void closeQuick()
    {
        QUICK.getAndBitwiseOr(this, QUICK_CLOSED);
        for (int spins = 0; ((int) QUICK.getVolatile(this) & ~QUICK_CLOSED) != 0 || (int) ALONE.getVolatile(this) != 0;
            spins++)
        {
            if (spins < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                // a taker's thread lost its core in the middle of its look
                Thread.yield();
            }
        }
    }

    /** Opens the lock-free take again. Called with the EVD lock held. */
    void openQuick()
    {
        QUICK.getAndBitwiseAnd(this, ~QUICK_CLOSED);
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

    /**
     * When this wait first yields, given its start and {@link #yieldEvery}: at once where the EVD's
     * last wait had to give its core away and the IA sets no {@code evd_spin_yield_ns} (a peer on this
     * core answers only once this thread lets it run, so a spin before the yield is time lost on every
     * half round trip), else after one interval.
     */
    long firstYield(final long start, final long every, final long configured)
    {
        return yielding && configured == 0 ? start : start + every;
    }

    /**
     * Whether a yield that took {@code tookNanos} gave the core away: one that returned sooner than
     * {@link YieldCost#freeCoreBound} ran nobody else (the core was free, so the waiter's peer was
     * not waiting for it). Where the IA sets {@code evd_spin_yield_ns}, every yield counts, as it
     * always did there.
     */
    static boolean gaveWay(final long tookNanos, final long configured)
    {
        return configured > 0 || tookNanos >= YieldCost.freeCoreBound();
    }

    /**
     * The interval to the next yield after one that took {@code tookNanos}: unchanged after a yield
     * that gave the core away, or where the IA sets {@code evd_spin_yield_ns}; doubled (from
     * {@link #SHARED_CORE_YIELD_NANOS}) after one that nobody took, since the peer is then not waiting
     * for this core, and yields that cost a system call each would only delay the look that finds
     * its answer.
     */
    static long nextYieldEvery(final long every, final long tookNanos, final long configured)
    {
        return gaveWay(tookNanos, configured) ? every : Math.max(SHARED_CORE_YIELD_NANOS, 2 * every);
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
     * Whether the last wait that got its event had given its core away first: parked, or yielded
     * to a thread that took the core ({@link EvdWaiter#gaveWay}) (written by the waiter only). When
     * two threads of a ping-pong end up on one core, each one's answer can come only once the other
     * stops spinning: a spin that never yields makes every half round trip a whole spin and a park,
     * and both threads stay in that state. A wait after one that had to give its core away therefore
     * yields at once and then every {@link EvdWaiter#SHARED_CORE_YIELD_NANOS}; a yield that nobody
     * took spaces the next ones out, and a wait that gets its event without giving its core away
     * ends it, so threads on cores of their own, whose answers come within a microsecond, pay at
     * most one yield's system call after a stray park.
     */
    boolean yielding;
    /**
     * The waits taking a queued event without the EVD lock right now, and in its sign bit whether
     * {@code dat_evd_set_unwaitable} has closed that way ({@link EvdWaiter#enterQuick}).
     */
    volatile int quickTakers;
    /** 1 while the one consumer of a single-writer IA's EVD takes without the lock ({@link EvdWaiter#enterQuick}). */
    volatile int quickAlone;
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

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
 *
 * <p>On an IA from a {@code nonthreadsafe} entry ({@link IaImpl#singleWriter}) the one consumer
 * thread posts without a read-modify-write: {@link #lockAsConsumer} stores its id into a word of
 * its own, {@link #consumer}, and then looks at {@link #word}; a thread taking the lock with the
 * compare-and-set looks at {@code consumer} after it and waits while it is set (a store, then a
 * load of the other's word, on each side: at least one sees the other). A consumer that finds the
 * word taken lets go of its own and takes the lock the usual way, so neither waits for the other
 * forever. The consumer's side has no fence either ({@link AsymmetricFence}): the takers, rare on
 * such an IA, fence for both sides after their compare-and-set, until they have done so often
 * enough that the consumer fences for itself from then on ({@link #fenceForConsumer}). Two
 * threads posting at once on one endpoint of such an IA (which DAT lets misbehave) can both hold
 * the lock.
 *
 * <p>On a threadsafe IA's lock, where {@link AsymmetricFence} has its heavy fence, the first
 * thread to post ({@link #lockToPlace}) becomes the lock's {@link #bias} for good and takes it
 * the consumer's way from then on; every other thread takes it with the compare-and-set and
 * fences for the bias as for a consumer. An endpoint posted to from one thread, the usual case,
 * then posts with no fenced instruction; one posted to from several pays as before, once the
 * others have fenced for the bias sixteen times and more often than once per 256 of its takes.
 *
 * <p><b>Marks left for the holder.</b> A thread that must not wait for the lock (a channel's
 * thread reporting a message sent, which may hold its port's progress lock) stores its news where
 * the holder can read it (a mark on the message), then calls {@link #markLeft}: that raises
 * {@link #marked} (a volatile store) and takes the lock if it is free, with one compare-and-set and
 * no waiting, to run {@link Marks#absorb}; if it is taken it returns at once and leaves the
 * absorbing to the holder. The holder, letting go, first asks {@link Marks#expected} (is anything
 * it handed to a channel still unreported?), and if so, after its release store, a full fence and
 * a look at {@code marked}: if raised, it tries the lock again (no waiting) and absorbs. Each side
 * stores its word, fences, and loads the other's (the marker: {@code marked}, then the lock word
 * through the compare-and-set; the holder: the lock word, then {@code marked}), so at least one
 * sees the other, and a mark is never left with nobody to absorb it: whoever fails to take the
 * lock found a holder that will look after letting go. A holder with nothing out with a channel
 * (an idle request queue: the path where a post's message is placed at once) lets go without the
 * fence, as before. The consumer of a single-writer IA lets go of {@link #consumer} the same way;
 * a marker that took {@link #word} while the consumer holds the lock lets go again, fences, and
 * tries again only if the consumer has let go meanwhile.
 */
final class EpLock
{
    /** Set in the word while its owner may place a message into the peer's connection. */
    static final long PLACING = 1L << 62;
    private static final int SPINS = 1 << 10;
    private static final int YIELDS = 1 << 6;
    private static final long MAX_NAP_NANOS = 50_000;
    private static final VarHandle WORD;
    private static final VarHandle CONSUMER;
    private static final VarHandle MARKED;
    private static final VarHandle BIAS;

    static
    {
        try
        {
            WORD = MethodHandles.lookup().findVarHandle(EpLock.class, "word", long.class);
            CONSUMER = MethodHandles.lookup().findVarHandle(EpLock.class, "consumer", long.class);
            MARKED = MethodHandles.lookup().findVarHandle(EpLock.class, "marked", int.class);
            BIAS = MethodHandles.lookup().findVarHandle(EpLock.class, "bias", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The owner's thread id, with {@link #PLACING} while it places; 0 when free. */
    private volatile long word;
    /**
     * The endpoint is of a single-writer IA: {@link #lockAsConsumer} may be used, and the
     * compare-and-set takers look at {@link #consumer}. Otherwise they never load it.
     */
    private final boolean singleWriter;
    /**
     * A threadsafe IA's lock where {@link AsymmetricFence} has a heavy fence: its first poster
     * becomes its {@link #bias} and takes it through {@link #consumer} as a single-writer IA's
     * consumer does; every other thread takes it with the compare-and-set, as before.
     */
    private final boolean biased;
    /** {@link #singleWriter} or {@link #biased}: {@link #consumer} may be held, and takers look at it. */
    private final boolean consumerWord;
    /** A biased lock's one thread that takes it through {@link #consumer}: its first poster, set once; 0 before. */
    private volatile long bias;
    /** A single-writer IA's consumer's id, with {@link #PLACING}, while it holds the lock through it; else 0. */
    private volatile long consumer;
    /** How often the owner holds it (read and written by the owner only). */
    private int holds;
    /** Whether the owner holds it through {@link #consumer} (owner only). */
    private boolean viaConsumer;
    /** {@link #fences}: the consumer stores and loads with no fence; takers fence for both. */
    private static final int ASYMMETRIC = 0;
    /** {@link #fences}: the consumer fences itself from now on, once one more heavy fence is over. */
    private static final int SWITCHING = 1;
    /** {@link #fences}: the consumer fences itself; a taker's compare-and-set is the other fence. */
    private static final int SYMMETRIC = 2;
    /** Heavy fences a lock's takers make, however rare its consumer's takes, before it may fence for itself. */
    private static final int MAX_HEAVY_FENCES = 16;
    /**
     * Beyond {@link #MAX_HEAVY_FENCES}: the consumer's takes per heavy fence below which it fences
     * for itself. A heavy fence costs a system call and an interrupt of every other core running
     * the process (microseconds); each take it spares the consumer a fence (tens of nanoseconds).
     */
    private static final int TAKES_PER_HEAVY = 256;
    /**
     * Who fences the consumer's acquisition of a single-writer IA's lock: {@link #ASYMMETRIC},
     * {@link #SWITCHING} or {@link #SYMMETRIC} (from the start where {@link AsymmetricFence} has
     * no heavy fence), never back.
     */
    private volatile int fences = AsymmetricFence.ASYMMETRIC ? ASYMMETRIC : SYMMETRIC;
    /** Heavy fences made so far (counted loosely by the takers). */
    private int heavyFences;
    /** The consumer's takes through {@link #consumer} so far (written by the consumer only; read loosely by takers). */
    private long consumerTakes;
    /** Raised by {@link #markLeft}: a mark waits to be absorbed; lowered by the thread that absorbs. */
    private volatile int marked;
    /** What the holder absorbs, or null: no marks are ever left. */
    private final Marks marks;

    /**
     * The holder's side of the marks left for it ({@link #markLeft}). Both methods run with the
     * lock held.
     */
    interface Marks
    {
        /**
         * Whether a mark may still be left for something the holder handed on (the holder then
         * fences and looks for one after letting go): true while any message given to a channel
         * is unreported and unabsorbed.
         */
        boolean expected();

        /**
         * Takes in every mark left so far. Returns something to run once the lock is let go (a
         * graceful close the marks made due), or null.
         */
        Runnable absorb();
    }

    /** A free lock; {@code singleWriter}: its endpoint's IA has one consumer thread ({@link IaImpl#singleWriter}). */
    EpLock(final boolean singleWriter)
    {
        this(singleWriter, null);
    }

    /** {@link #EpLock(boolean)}, whose holders absorb what {@link #markLeft} leaves through {@code marks}. */
    EpLock(final boolean singleWriter, final Marks marks)
    {
        this.singleWriter = singleWriter;
        this.biased = !singleWriter && AsymmetricFence.ASYMMETRIC;
        this.consumerWord = singleWriter || biased;
        this.marks = marks;
    }

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
        final long me = Thread.currentThread().threadId();
        if (biased)
        {
            final long b = bias;
            if (b == me)
            {
                return takeThroughConsumer(me);
            }
            if (b == 0)
            {
                final boolean placing = acquire(PLACING);
                // set once, by the first poster, under the word: nobody else writes consumer
                BIAS.compareAndSet(this, 0L, me);
                return placing;
            }
        }
        return acquire(PLACING);
    }

    /**
     * {@link #lockToPlace} for the one consumer thread of a single-writer IA: no read-modify-write
     * when nobody else holds the lock (a store, then a load).
     */
    boolean lockAsConsumer()
    {
        if (!singleWriter)
        {
            return lockToPlace();
        }
        return takeThroughConsumer(Thread.currentThread().threadId());
    }

    /**
     * Takes the lock through {@link #consumer}, as the one thread that writes it: a single-writer
     * IA's consumer, or a biased lock's {@link #bias}.
     */
    private boolean takeThroughConsumer(final long me)
    {
        if ((consumer & ~PLACING) == me || (word & ~PLACING) == me)
        {
            holds++;
            return false;
        }
        // a store, then the load of the word with no fence between while the takers fence for
        // both (fenceForConsumer); a full fence once they stopped doing so
        CONSUMER.setRelease(this, me | PLACING);
        consumerTakes++;
        // the JIT keeps the loads below after the store (AsymmetricFence#light, without its fence)
        VarHandle.acquireFence();
        if (!AsymmetricFence.ASYMMETRIC || fences != ASYMMETRIC)
        {
            VarHandle.fullFence();
        }
        if (word == 0)
        {
            viaConsumer = true;
            holds = 1;
            return true;
        }
        // an engine thread holds it, or is taking it and waits for this word: let go, take it as they do
        CONSUMER.setRelease(this, 0L);
        return acquire(PLACING);
    }

    /** The owner placed, or will not: the receiving end's close need not wait for it any more. */
    void donePlacing()
    {
        // a release store: what the placement wrote is seen by the close that sees this
        if (viaConsumer)
        {
            final long c = consumer;
            if ((c & PLACING) != 0)
            {
                CONSUMER.setRelease(this, c & ~PLACING);
            }
            return;
        }
        final long w = word;
        if ((w & PLACING) != 0)
        {
            WORD.setRelease(this, w & ~PLACING);
        }
    }

    /**
     * Whether the holder is the one consumer thread of a single-writer IA in its own call: it
     * took the lock through {@link #consumer}. Holder only.
     */
    boolean heldAsConsumer()
    {
        return viaConsumer && singleWriter;
    }

    /** Whether the owner holds {@link #PLACING}. Owner only. */
    boolean placing()
    {
        return ((viaConsumer ? consumer : word) & PLACING) != 0;
    }

    /** Whether a thread other than the one with id {@code self} holds the lock with {@link #PLACING}. */
    boolean placingByOther(final long self)
    {
        if (consumerWord)
        {
            // the caller's store (the connection's closed mark) before the load of consumer
            fenceForConsumer();
        }
        final long w = word;
        if ((w & PLACING) != 0 && (w & ~PLACING) != self)
        {
            return true;
        }
        final long c = consumerWord ? consumer : 0;
        return (c & PLACING) != 0 && (c & ~PLACING) != self;
    }

    void unlock()
    {
        if (--holds == 0)
        {
            final Marks m = marks;
            final boolean look = m != null && m.expected();
            release();
            if (look)
            {
                // the release store, then the look at marked: a StoreLoad fence between them
                VarHandle.fullFence();
                combine();
            }
        }
    }

    private void release()
    {
        if (viaConsumer)
        {
            viaConsumer = false;
            CONSUMER.setRelease(this, 0L);
        }
        else
        {
            WORD.setRelease(this, 0L);
        }
    }

    /**
     * The caller stored a mark for the holder to absorb (with at least a release store): the
     * holder will take it in, or this thread does now if the lock is free. Never waits for the
     * lock. A thread that holds the lock absorbs at once.
     */
    void markLeft()
    {
        final long me = Thread.currentThread().threadId();
        if ((word & ~PLACING) == me || consumerWord && (consumer & ~PLACING) == me)
        {
            // held by this thread: absorb now, under the hold it has
            holds++;
            Runnable after = null;
            try
            {
                MARKED.getAndSet(this, 0);
                after = marks.absorb();
            }
            finally
            {
                unlock();
            }
            if (after != null)
            {
                after.run();
            }
            return;
        }
        // a volatile store: the fence before the compare-and-set's (and the holder's) look
        MARKED.setVolatile(this, 1);
        combine();
    }

    /**
     * While a mark is raised: takes the lock if nobody holds it (no waiting), absorbs, lets go and
     * looks again; returns as soon as the lock is seen held by another thread, which looks after
     * letting go. The caller fenced after its last store.
     */
    private void combine()
    {
        while (marked != 0)
        {
            if (!tryTake())
            {
                return;
            }
            holds = 1;
            Runnable after = null;
            boolean look = true;
            try
            {
                // a read of marked too: every mark stored before a marker raised it is seen
                MARKED.getAndSet(this, 0);
                after = marks.absorb();
            }
            finally
            {
                holds = 0;
                look = marks.expected();
                release();
            }
            if (after != null)
            {
                after.run();
            }
            if (!look)
            {
                return;
            }
            VarHandle.fullFence();
        }
    }

    /**
     * Takes the lock with the compare-and-set if it is free, never waiting. On a single-writer IA
     * a consumer holding it through {@link #consumer} makes this let go again; it tries again only
     * if, after a fence, the consumer has let go (it looked at {@link #marked} then, or will).
     */
    private boolean tryTake()
    {
        final long me = Thread.currentThread().threadId();
        while (word == 0 && WORD.compareAndSet(this, 0L, me))
        {
            if (!consumerWord)
            {
                return true;
            }
            fenceForConsumer();
            if (consumer == 0)
            {
                return true;
            }
            WORD.setRelease(this, 0L);
            VarHandle.fullFence();
            if (consumer != 0)
            {
                return false;
            }
        }
        return false;
    }

    private boolean acquire(final long mark)
    {
        final long me = Thread.currentThread().threadId();
        if (consumerWord && (consumer & ~PLACING) == me)
        {
            // held through the consumer's word: taking the other one too would wait for itself
            holds++;
            return false;
        }
        if (WORD.compareAndSet(this, 0L, me | mark))
        {
            awaitConsumer();
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
                awaitConsumer();
                holds = 1;
                return mark != 0;
            }
        }
    }

    /**
     * A taker's fence between its store (the compare-and-set of {@link #word}, a close's mark)
     * and its load of {@link #consumer}: the heavy one, which also fences the consumer's side,
     * while the consumer runs without a fence; once there were more than {@link #MAX_HEAVY_FENCES}
     * of them and more than one per {@link #TAKES_PER_HEAVY} of the consumer's takes (engine
     * threads that take this lock often: a transport whose own thread reports each Send) the
     * consumer fences itself from then on, and the takers' compare-and-set is enough. A port's
     * thread that now and then reports a batch of Sends it wrote for a busy poster stays below
     * that, and the poster keeps its unfenced takes. The mode
     * changes once: announced ({@link #SWITCHING}), one more heavy fence, so that every later
     * acquisition of the consumer reads it, then {@link #SYMMETRIC}, which a taker trusts alone.
     */
    private void fenceForConsumer()
    {
        if (fences == SYMMETRIC)
        {
            return;
        }
        AsymmetricFence.heavy();
        if (++heavyFences > MAX_HEAVY_FENCES && (long) heavyFences * TAKES_PER_HEAVY > consumerTakes
            && fences == ASYMMETRIC)
        {
            fences = SWITCHING;
            AsymmetricFence.heavy();
            fences = SYMMETRIC;
        }
    }

    /**
     * After the compare-and-set took {@link #word}: waits while a single-writer consumer holds the
     * lock through {@link #consumer}, or is about to find the word taken and let go. The consumer
     * never waits for anything while it holds it that a thread here could hold.
     */
    private void awaitConsumer()
    {
        if (!consumerWord)
        {
            return;
        }
        // the compare-and-set's store before the load of consumer, against the consumer's store
        // and load with no fence between (lockAsConsumer)
        fenceForConsumer();
        int spins = 0;
        while (consumer != 0)
        {
            if ((++spins & 0xFF) == 0)
            {
                Thread.yield();
            }
            Thread.onSpinWait();
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

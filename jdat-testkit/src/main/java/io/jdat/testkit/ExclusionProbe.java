package io.jdat.testkit;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the lock tests share to see two holders at once: a section run under the lock that counts
 * itself in and out and adds one to a plain counter in two steps with a pause between, so that
 * two threads inside together both fail the count and lose an increment; and the loop each
 * contending thread runs.
 */
public final class ExclusionProbe
{
    private final AtomicInteger inside = new AtomicInteger();
    /** Increments made under the lock (plain: a second holder at once loses one). */
    private long counter;

    /** A probe with no one inside and a count of 0, one per lock under test. */
    public ExclusionProbe()
    {
    }

    /**
     * The section to run with the lock held: adds one to {@link #count()}.
     *
     * @throws AssertionError if another thread was inside at the same time
     */
    public void add()
    {
        final int n = inside.incrementAndGet();
        final long c = counter;
        Thread.onSpinWait();
        counter = c + 1;
        inside.decrementAndGet();
        if (n != 1)
        {
            throw new AssertionError("two threads held the lock at once");
        }
    }

    /** The increments so far; read once the threads that made them are joined. */
    public long count()
    {
        return counter;
    }

    /**
     * A contending thread's body: waits at {@code start}, then runs {@code step} {@code rounds}
     * times, or until some thread failed; keeps the first failure in {@code failed}.
     */
    public static void run(final CyclicBarrier start, final AtomicReference<Throwable> failed, final int rounds,
        final Runnable step)
    {
        try
        {
            start.await();
            for (int i = 0; i < rounds && failed.get() == null; i++)
            {
                step.run();
            }
        }
        catch (final Throwable e)
        {
            failed.compareAndSet(null, e);
        }
    }
}

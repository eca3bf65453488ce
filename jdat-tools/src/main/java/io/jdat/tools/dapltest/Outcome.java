package io.jdat.tools.dapltest;

import io.jdat.tools.Jdat;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one side of a test saw: how many checks passed and the failures, first one first. Threads
 * add to it concurrently.
 */
final class Outcome
{
    private final AtomicLong checks = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();

    /** The counter the workers add passed checks to. */
    AtomicLong checks()
    {
        return checks;
    }

    /** Records a failure. */
    void fail(final Throwable e)
    {
        failures.add(Jdat.describe(e));
    }

    /** Records a failure described by the peer. */
    void fail(final String why)
    {
        failures.add(why);
    }

    boolean passed()
    {
        return failures.isEmpty();
    }

    List<String> failures()
    {
        return List.copyOf(failures);
    }

    /**
     * Runs {@code body(t)} on {@code threads} named threads and waits for them; a thread that
     * fails records its failure and calls {@code onFailure}, so the others stop soon.
     */
    void runThreads(final String name, final int threads, final java.util.function.IntConsumer body,
        final Runnable onFailure)
    {
        final Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            final int index = t;
            all[t] = new Thread(() ->
            {
                try
                {
                    body.accept(index);
                }
                catch (final RuntimeException e)
                {
                    fail(e);
                    onFailure.run();
                }
            }, name + "-" + t);
            all[t].start();
        }
        for (final Thread th : all)
        {
            try
            {
                th.join();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                fail(e);
                return;
            }
        }
    }
}

package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The EVD's completion ring under real threads: {@code dat_evd_dequeue} takes no lock, so several
 * consumers race for each event while producers post and {@code dat_evd_resize} moves the queue
 * back and forth between two lengths. Every event must be taken exactly once, and each consumer
 * must see each producer's events in the order they were posted (FIFO). A ring whose consumers
 * move the head without a compare-and-set hands one event to two consumers; a resize that
 * consumers do not wait for loses events or hands them out twice: both fail here.
 */
class EvdDequeueStressTest
{
    private static final int PRODUCERS = 2;
    private static final int CONSUMERS = 2;
    private static final int PER_PRODUCER = 100_000;
    private static final int SMALL = 8;
    private static final int LARGE = 16;

    /** A software event's payload: which producer, which of its events. */
    private record Tag(int producer, int seq)
    {
    }

    @Test
    void concurrentDequeuesAndResizesTakeEveryEventExactlyOnceInOrder() throws Exception
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith(Fixture.RING_EVD)))
        {
            final EventDispatcher evd = f.ia.evdCreate(SMALL, null, EvdFlags.SOFTWARE_FLAG);
            final AtomicIntegerArray taken = new AtomicIntegerArray(PRODUCERS * PER_PRODUCER);
            final AtomicBoolean done = new AtomicBoolean();
            final CountDownLatch go = new CountDownLatch(1);
            final List<CompletableFuture<Void>> work = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++)
            {
                final int producer = p;
                work.add(start(go, () ->
                {
                    final DatEvent ev = new DatEvent();
                    for (int i = 0; i < PER_PRODUCER; i++)
                    {
                        ev.software(new Tag(producer, i));
                        while (evd.postSe(ev) == DatStatus.QUEUE_FULL && !done.get())
                        {
                            Thread.onSpinWait();
                        }
                    }
                }));
            }
            final List<CompletableFuture<Void>> consumers = new ArrayList<>();
            final int[] total = new int[CONSUMERS];
            for (int c = 0; c < CONSUMERS; c++)
            {
                final int consumer = c;
                consumers.add(start(go, () ->
                {
                    final DatEvent ev = new DatEvent();
                    final int[] last = new int[PRODUCERS];
                    java.util.Arrays.fill(last, -1);
                    while (!done.get())
                    {
                        if (evd.dequeue(ev) != DatStatus.SUCCESS)
                        {
                            Thread.onSpinWait();
                            continue;
                        }
                        final Tag t = (Tag) ev.software.pointer;
                        assertTrue(t.seq() > last[t.producer()], () -> "consumer " + consumer + " saw producer "
                            + t.producer() + "'s event " + t.seq() + " after " + last[t.producer()]);
                        last[t.producer()] = t.seq();
                        final int before = taken.getAndIncrement(t.producer() * PER_PRODUCER + t.seq());
                        assertEquals(0, before, () -> "event " + t + " was taken twice");
                        total[consumer]++;
                    }
                }));
            }
            final CompletableFuture<Void> resizer = start(go, () ->
            {
                int length = LARGE;
                while (!done.get())
                {
                    try
                    {
                        evd.resize(length);
                        length = length == LARGE ? SMALL : LARGE;
                    }
                    catch (final DatException e)
                    {
                        // more events queued than the small length holds: try again
                        assertEquals(DatReturnType.INVALID_STATE, e.type());
                    }
                    Thread.yield();
                }
            });
            go.countDown();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            try
            {
                while (missing(taken) > 0 && System.nanoTime() < deadline)
                {
                    for (final CompletableFuture<Void> c : consumers)
                    {
                        if (c.isDone())
                        {
                            // a consumer's assertion failed: report it
                            c.get();
                        }
                    }
                    Thread.sleep(1);
                }
            }
            finally
            {
                done.set(true);
            }
            CompletableFuture.allOf(work.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            CompletableFuture.allOf(consumers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            resizer.get(10, TimeUnit.SECONDS);
            assertEquals(0, missing(taken), "events never taken");
            assertEquals(PRODUCERS * PER_PRODUCER, total[0] + total[1]);
            evd.free();
        }
    }

    private static int missing(final AtomicIntegerArray taken)
    {
        int n = 0;
        for (int i = 0; i < taken.length(); i++)
        {
            if (taken.get(i) == 0)
            {
                n++;
            }
        }
        return n;
    }

    private static CompletableFuture<Void> start(final CountDownLatch go, final Runnable body)
    {
        return CompletableFuture.runAsync(() ->
        {
            try
            {
                go.await();
            }
            catch (final InterruptedException e)
            {
                throw new AssertionError(e);
            }
            body.run();
        }, Fixture.THREADS);
    }
}

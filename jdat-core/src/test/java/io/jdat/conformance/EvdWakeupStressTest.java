package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No lost wake-up in {@code dat_evd_wait} (digest §2.6): a thread blocked with threshold {@code t}
 * returns once {@code t} events are queued, however the posts of several producer threads fall
 * around the moment it parks; and {@code dat_evd_set_unwaitable} always releases a blocked waiter.
 * The model checker cannot show this (it lets a parked thread wake spuriously, which hides a
 * missed unpark), so real threads race here: thousands of rounds, each started together by a
 * latch, with random delays that spread the posts over the waiter's check-then-park window.
 * A waiter that has not returned 2 s after its last event was queued is a lost wake-up.
 *
 * <p>The EVD spins 0 µs before it parks (instance data {@code evd_spin_us=0}), so every round
 * exercises the park path; a second IA keeps the default spin. Rounds run for about 3 s, or
 * 60 s with {@code -Djdat.lincheck.long=true}.
 *
 * <p>The long run is what shows the waiter's last look before it parks must read the ring's
 * {@code tail}, not only the record at its head: a record is published with a release store,
 * which may pass the producer's later read of the parked flag. With that look broken to the head
 * record, the long run failed in 2 of 2 runs (a waiter spinning first, rounds 117,261 and
 * 187,040); the 3 s run is too short to rely on for it.
 */
class EvdWakeupStressTest
{
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(LONG ? 60 : 3);
    private static final int QLEN = 8;
    private static final int MAX_DELAY_SPINS = 4_000;

    private static ExecutorService threads;

    @BeforeAll
    static void startThreads()
    {
        threads = Executors.newFixedThreadPool(4, r -> Thread.ofPlatform().daemon().name("wakeup-stress").unstarted(r));
    }

    @AfterAll
    static void stopThreads()
    {
        threads.shutdownNow();
    }

    private static void spin(final int n)
    {
        for (int i = 0; i < n; i++)
        {
            Thread.onSpinWait();
        }
    }

    private static void await(final CountDownLatch go)
    {
        try
        {
            go.await();
        }
        catch (final InterruptedException e)
        {
            throw new AssertionError(e);
        }
    }

    private static <T> T get(final Future<T> f, final String what)
    {
        try
        {
            return f.get(2, TimeUnit.SECONDS);
        }
        catch (final TimeoutException e)
        {
            throw new AssertionError(what);
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
    }

    /** A blocked waiter's outcome: its status (or the DatException's), its event and nmore. */
    private record Woken(DatStatus status, Object pointer, int nmore)
    {
    }

    private static Woken waitOn(final EventDispatcher evd, final long timeoutMicros, final int threshold)
    {
        final DatEvent ev = new DatEvent();
        final DatCount nmore = new DatCount(-1);
        try
        {
            final DatStatus s = evd.wait(timeoutMicros, threshold, ev, nmore);
            return new Woken(s, ev.software.pointer, nmore.value);
        }
        catch (final DatException e)
        {
            return new Woken(e.status(), null, nmore.value);
        }
    }

    /**
     * One round: a waiter blocks with threshold {@code t}; one to three producers post exactly
     * {@code t} events between them after random delays. The waiter must return SUCCESS with the
     * first event and {@code nmore = t - 1}; the rest are then dequeued in order.
     */
    private static void thresholdRound(final EventDispatcher evd, final SplittableRandom rnd, final int round)
    {
        final int t = 1 + rnd.nextInt(4);
        final int producers = 1 + rnd.nextInt(Math.min(t, 3));
        final long timeout = rnd.nextBoolean() ? Dat.TIMEOUT_INFINITE : 30 * Fixture.SECOND;
        final CountDownLatch go = new CountDownLatch(1);
        final Future<Woken> waiter = threads.submit(() ->
        {
            await(go);
            return waitOn(evd, timeout, t);
        });
        final List<Future<?>> posting = new ArrayList<>();
        for (int p = 0; p < producers; p++)
        {
            final int producer = p;
            final int delay = rnd.nextInt(MAX_DELAY_SPINS);
            posting.add(threads.submit(() ->
            {
                await(go);
                spin(delay);
                // producer p posts events p, p + producers, ... below t
                for (int e = producer; e < t; e += producers)
                {
                    assertEquals(DatStatus.SUCCESS, evd.postSe(new DatEvent().software(round * 16 + e)));
                }
            }));
        }
        go.countDown();
        for (final Future<?> f : posting)
        {
            get(f, "a producer did not finish");
        }
        final Woken w;
        try
        {
            w = waiter.get(2, TimeUnit.SECONDS);
        }
        catch (final TimeoutException e)
        {
            // release it before failing, so that nothing is left blocked
            evd.setUnwaitable();
            fail("lost wake-up: a waiter with threshold " + t + " still blocks 2 s after " + t
                + " events were queued by " + producers + " producers (round " + round + ")");
            return;
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
        assertEquals(DatStatus.SUCCESS, w.status(), () -> "round " + round + ", threshold " + t);
        assertEquals(t - 1, w.nmore(), "nmore of a waiter woken by its threshold");
        final Set<Object> seen = new HashSet<>();
        seen.add(w.pointer());
        final DatEvent ev = new DatEvent();
        for (int i = 1; i < t; i++)
        {
            assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
            seen.add(ev.software.pointer);
        }
        assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(ev), "more events than were posted");
        assertEquals(t, seen.size(), "an event was lost or duplicated");
        for (int e = 0; e < t; e++)
        {
            assertTrue(seen.contains(round * 16 + e), "event " + e + " of round " + round + " is missing");
        }
    }

    /**
     * One round: a waiter blocks with a threshold no post reaches; {@code dat_evd_set_unwaitable}
     * from another thread, at a random moment around its park, must make it return
     * {@code DAT_INVALID_STATE} and leave the queued event to {@code dat_evd_dequeue}.
     */
    private static void unwaitableRound(final EventDispatcher evd, final SplittableRandom rnd, final int round)
    {
        final CountDownLatch go = new CountDownLatch(1);
        final Future<Woken> waiter = threads.submit(() ->
        {
            await(go);
            return waitOn(evd, Dat.TIMEOUT_INFINITE, 2);
        });
        final int delay = rnd.nextInt(MAX_DELAY_SPINS);
        final Future<?> unwaitable = threads.submit(() ->
        {
            await(go);
            assertEquals(DatStatus.SUCCESS, evd.postSe(new DatEvent().software(round)));
            spin(delay);
            evd.setUnwaitable();
        });
        go.countDown();
        get(unwaitable, "dat_evd_set_unwaitable did not return");
        final Woken w = get(waiter, "lost wake-up: dat_evd_set_unwaitable did not release the waiter (round "
            + round + ")");
        assertTrue(w.status().is(DatReturnType.INVALID_STATE), () -> "round " + round + ": " + w.status());
        final DatEvent ev = new DatEvent();
        assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
        assertEquals(round, ev.software.pointer);
        assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(ev));
        evd.clearUnwaitable();
    }

    private static void run(final String instanceData)
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith(instanceData + " " + Fixture.RING_EVD)))
        {
            final EventDispatcher evd = f.evd(QLEN, EvdFlags.SOFTWARE_FLAG);
            final SplittableRandom rnd = new SplittableRandom(42);
            final long end = System.nanoTime() + RUN_NANOS / 2;
            int round = 0;
            while (System.nanoTime() - end < 0 || round < 200)
            {
                if (round % 4 == 3)
                {
                    unwaitableRound(evd, rnd, round);
                }
                else
                {
                    thresholdRound(evd, rnd, round);
                }
                round++;
            }
            Connecting.assertEmpty(f.asyncEvd);
        }
    }

    @Test
    void aWaiterThatParksAtOnceIsWokenByTheEventThatMeetsItsThresholdOrByUnwaitable()
    {
        run("evd_spin_us=0");
    }

    @Test
    void aWaiterThatSpinsFirstIsWokenByTheEventThatMeetsItsThresholdOrByUnwaitable()
    {
        run("");
    }
}

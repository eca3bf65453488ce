package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_evd_wait} and {@code dat_evd_dequeue} while {@code dat_evd_resize} moves the events
 * into a new ring on another thread, over and over: a waiter with threshold 3 is woken by the
 * third event (not by its timeout), takes the first and reports the other two as {@code nmore},
 * whichever ring it took the first from and whichever holds the rest when it counts (a position
 * in one ring means nothing in the ring a resize replaced it with); {@code dat_evd_dequeue} then
 * finds both, though a resize may be moving them.
 */
class EvdResizeDuringWaitTest
{
    private static final int ROUNDS = 3_000;

    @Test
    void aWaiterIsWokenAndCountsAndDequeueFindsTheEventsWhileAResizeMovesThem() throws Exception
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("evd_spin_us=0")))
        {
            final EventDispatcher evd = f.ia.evdCreate(8, null, EvdFlags.SOFTWARE_FLAG);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final Thread resizer = Thread.ofPlatform().daemon().name("resizer").start(() ->
            {
                try
                {
                    while (!stop.get())
                    {
                        evd.resize(8);
                        evd.resize(16);
                    }
                }
                catch (final Throwable e)
                {
                    failed.compareAndSet(null, e);
                }
            });
            try
            {
                final DatEvent ev = new DatEvent();
                final DatCount nmore = new DatCount(-1);
                for (int round = 0; round < ROUNDS && failed.get() == null; round++)
                {
                    final int first = round * 3;
                    final Thread poster = Thread.ofPlatform().daemon().start(() ->
                    {
                        for (int i = 0; i < 3; i++)
                        {
                            evd.postSe(new DatEvent().software(first + i));
                        }
                    });
                    final long start = System.nanoTime();
                    assertEquals(DatStatus.SUCCESS, evd.wait(5 * Fixture.SECOND, 3, ev, nmore),
                        "round " + round + ": three events were posted");
                    // a lost wake-up ends only at the timeout (and then finds the events)
                    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4),
                        "round " + round + ": the waiter was not woken");
                    poster.join();
                    assertEquals(first, ev.software.pointer, "round " + round);
                    assertEquals(2, nmore.value, "round " + round + ": nmore after the first of three");
                    for (int i = 1; i < 3; i++)
                    {
                        assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
                        assertEquals(first + i, ev.software.pointer);
                    }
                }
            }
            finally
            {
                stop.set(true);
                resizer.join();
            }
            assertNull(failed.get());
            evd.free();
        }
    }
}

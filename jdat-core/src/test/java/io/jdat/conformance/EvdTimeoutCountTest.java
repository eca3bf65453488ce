package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The count a {@code dat_evd_wait} reports with {@code DAT_TIMEOUT_EXPIRED} is the queue's at a
 * moment its threshold was not met, while other threads post and take. At threshold 1 that count
 * is always 0: a wait that saw an event queued takes it. One thread posts an event and dequeues
 * it, over and over; another waits with no timeout. A wait that counted the event after its own
 * take failed, and then found it gone (the other thread's dequeue), reported {@code nmore} 1 with
 * its timeout, which no moment of the queue allows. Every event is also taken exactly once.
 */
class EvdTimeoutCountTest
{
    private static final int EVENTS = 300_000;

    @Test
    void aWaitThatTimesOutAtThresholdOneCountsNothingQueued() throws Exception
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith(Fixture.RING_EVD)))
        {
            final EventDispatcher evd = f.ia.evdCreate(4, null, EvdFlags.SOFTWARE_FLAG);
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicInteger byWait = new AtomicInteger();
            final AtomicInteger badCounts = new AtomicInteger();
            final AtomicInteger firstBad = new AtomicInteger(-1);
            final CompletableFuture<Void> waiter = CompletableFuture.runAsync(() ->
            {
                final DatEvent ev = new DatEvent();
                final DatCount nmore = new DatCount(-1);
                while (!done.get())
                {
                    final DatStatus s = evd.wait(0, 1, ev, nmore);
                    if (s == DatStatus.SUCCESS)
                    {
                        byWait.incrementAndGet();
                    }
                    else if (nmore.value != 0)
                    {
                        badCounts.incrementAndGet();
                        firstBad.compareAndSet(-1, nmore.value);
                    }
                }
            }, Fixture.THREADS);
            int byDequeue = 0;
            final DatEvent posted = new DatEvent().software("one");
            final DatEvent ev = new DatEvent();
            try
            {
                for (int i = 0; i < EVENTS; i++)
                {
                    assertEquals(DatStatus.SUCCESS, evd.postSe(posted));
                    if (evd.dequeue(ev) == DatStatus.SUCCESS)
                    {
                        byDequeue++;
                    }
                }
            }
            finally
            {
                done.set(true);
                waiter.join();
            }
            while (evd.dequeue(ev) == DatStatus.SUCCESS)
            {
                byDequeue++;
            }
            assertEquals(0, badCounts.get(), "timeouts at threshold 1 that counted an event queued (the first: nmore "
                + firstBad.get() + ")");
            assertEquals(EVENTS, byDequeue + byWait.get(), "events taken by the dequeues and the waits");
            evd.free();
        }
    }
}

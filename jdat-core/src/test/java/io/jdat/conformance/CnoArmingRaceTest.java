package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Cno;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.OsWaitProxyAgent;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_cno_modify_agent} racing a trigger: an agent is called once per arming, so an
 * arming made while events keep arriving is called soon after. A trigger takes the agent it
 * finds and leaves the CNO unarmed; were that read and that write not one step, an arming landing
 * between them would be wiped out, and the agent never called again however many events came.
 */
class CnoArmingRaceTest
{
    private static final int ARMINGS = 20_000;
    private static final long LIMIT_SECONDS = 20;

    @Test
    void everyArmingIsCalledWhileEventsKeepArriving() throws Exception
    {
        try (Fixture f = new Fixture())
        {
            final AtomicLong calls = new AtomicLong();
            final OsWaitProxyAgent agent = new OsWaitProxyAgent(null, (data, evd) ->
            {
                if (evd != null)
                {
                    calls.incrementAndGet();
                }
            });
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher evd = f.ia.evdCreate(64, cno, EvdFlags.SOFTWARE_FLAG);
            final AtomicBoolean stop = new AtomicBoolean();
            final Thread producer = Thread.ofPlatform().daemon().name("se-producer").start(() ->
            {
                final DatEvent out = EvdTest.software("tick");
                final DatEvent in = new DatEvent();
                while (!stop.get())
                {
                    evd.postSe(out);
                    while (evd.dequeue(in) == DatStatus.SUCCESS)
                    {
                        Thread.onSpinWait();
                    }
                }
            });
            final long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
            int armings = 0;
            try
            {
                for (; armings < ARMINGS && System.nanoTime() < limit; armings++)
                {
                    final long before = calls.get();
                    cno.modifyAgent(agent);
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (calls.get() == before)
                    {
                        assertTrue(System.nanoTime() < deadline, "arming " + armings
                            + " was never called while events kept arriving: it was lost");
                        Thread.onSpinWait();
                    }
                    assertEquals(before + 1, calls.get(), "arming " + armings + " was called more than once");
                }
            }
            finally
            {
                stop.set(true);
                producer.join();
            }
            assertTrue(armings >= 1_000, "only " + armings + " armings in " + LIMIT_SECONDS + " s");
            evd.free();
            cno.free();
        }
    }
}

package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.ProviderInfo;
import io.jdat.loopback.LoopbackLibrary;
import java.lang.reflect.Field;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A {@code dat_evd_wait} that had to give its core away (it parked) makes the EVD's next wait
 * yield while it spins, and a wait whose event comes before its first yield ends that: the
 * rule that lets two threads of a ping-pong that share one core answer each other within a
 * yield instead of a whole spin and a park, while threads on cores of their own never yield.
 */
class EvdSharedCoreYieldTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long SECOND_MICROS = 1_000_000L;

    private static InterfaceAdapter open(final String instanceData)
    {
        final String name = "loopback-yield" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, Dat.THREADSAFE), instanceData);
        return Dat.iaOpen(name, 8, null);
    }

    private static EvdWaiter waiterOf(final EventDispatcher evd) throws ReflectiveOperationException
    {
        final Field f = EvdImpl.class.getDeclaredField("waiting");
        f.setAccessible(true);
        return (EvdWaiter) f.get(evd);
    }

    /** A wait on {@code evd} that the caller's post ends once the waiting thread has parked. */
    private static void waitThroughAPark(final EventDispatcher evd)
    {
        final CompletableFuture<Thread> started = new CompletableFuture<>();
        final CompletableFuture<DatStatus> result = CompletableFuture.supplyAsync(() ->
        {
            started.complete(Thread.currentThread());
            return evd.wait(10 * SECOND_MICROS, 1, new DatEvent(), new DatCount());
        });
        final Thread t = started.join();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING)
        {
            assertTrue(System.nanoTime() < deadline, "the waiter did not park: " + t.getState());
            Thread.onSpinWait();
        }
        evd.postSe(new DatEvent().software("after the park"));
        assertEquals(DatStatus.SUCCESS, result.join());
    }

    @Test
    void aWaitThatParkedMakesTheNextOneYield() throws Exception
    {
        final InterfaceAdapter ia = open("");
        try
        {
            final EventDispatcher evd = ia.evdCreate(4, null, EvdFlags.SOFTWARE_FLAG);
            final EvdWaiter w = waiterOf(evd);
            assertEquals(0, w.yieldEvery(0, false), "a fresh EVD's wait spins without yielding");
            waitThroughAPark(evd);
            assertEquals(EvdWaiter.SHARED_CORE_YIELD_NANOS, w.yieldEvery(0, false),
                "after a wait that parked, the next one yields");
            assertEquals(2_000, w.yieldEvery(2_000, false), "an IA's own evd_spin_yield_ns stands");
            assertEquals(0, w.yieldEvery(0, true), "a waiter that polls its transport leaves yields to it");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    @Test
    void aWaitAnsweredWhileItSpinsEndsTheYields() throws Exception
    {
        final InterfaceAdapter ia = open("");
        try
        {
            final EventDispatcher evd = ia.evdCreate(4, null, EvdFlags.SOFTWARE_FLAG);
            final EvdWaiter w = waiterOf(evd);
            waitThroughAPark(evd);
            assertTrue(w.yielding);
            // answer waits as soon as they begin, until one gets its event before its first yield
            // (a microsecond into its spin): on a loaded machine some are answered later
            final DatEvent posted = new DatEvent().software("while it spins");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (w.yielding && System.nanoTime() < deadline)
            {
                final CompletableFuture<DatStatus> result = CompletableFuture.supplyAsync(() ->
                    evd.wait(10 * SECOND_MICROS, 1, new DatEvent(), new DatCount()));
                while (w.thread == null && !result.isDone())
                {
                    Thread.onSpinWait();
                }
                evd.postSe(posted);
                assertEquals(DatStatus.SUCCESS, result.join());
            }
            assertFalse(w.yielding, "a wait answered within its first microsecond still left the EVD yielding");
            assertEquals(0, w.yieldEvery(0, false));
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    @Test
    void aWaitAfterOneThatGaveItsCoreAwayYieldsAtOnce() throws Exception
    {
        final InterfaceAdapter ia = open("");
        try
        {
            final EventDispatcher evd = ia.evdCreate(4, null, EvdFlags.SOFTWARE_FLAG);
            final EvdWaiter w = waiterOf(evd);
            assertEquals(1_100, w.firstYield(100, 1_000, 0), "a fresh EVD's wait spins before a yield");
            waitThroughAPark(evd);
            assertEquals(100, w.firstYield(100, EvdWaiter.SHARED_CORE_YIELD_NANOS, 0),
                "after a wait that parked, the next one yields before it spins");
            assertEquals(1_100, w.firstYield(100, 1_000, 1_000), "an IA's own evd_spin_yield_ns keeps its cadence");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    @Test
    void aYieldNobodyTookIsNotAGivenCore()
    {
        final long bound = YieldCost.freeCoreBound();
        assertFalse(EvdWaiter.gaveWay(bound - 1, 0),
            "a yield that returned at once ran nobody: the peer is not on this core");
        assertTrue(EvdWaiter.gaveWay(bound, 0), "a yield that another thread took");
        assertTrue(EvdWaiter.gaveWay(0, 1_000), "with evd_spin_yield_ns every yield counts, as before");
        assertEquals(2_000, EvdWaiter.nextYieldEvery(1_000, 300, 0), "a yield nobody took spaces the next out");
        assertEquals(4_000, EvdWaiter.nextYieldEvery(2_000, 300, 0));
        assertEquals(1_000, EvdWaiter.nextYieldEvery(1_000, bound, 0), "a yield another thread took keeps the cadence");
        assertEquals(1_000, EvdWaiter.nextYieldEvery(1_000, 300, 1_000), "evd_spin_yield_ns keeps its cadence");
    }

    /**
     * This machine's own yield, with nobody else to run, does not count as one that gave the core
     * away, whatever its system call costs (1.6 µs in some virtual machines, where a fixed bound of
     * 1 µs made every wait after a stray park yield at once, and go on doing so, for good).
     */
    @Test
    void thisMachinesYieldThatRanNobodyIsNotAGivenCore()
    {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 64; i++)
        {
            final long before = System.nanoTime();
            Thread.yield();
            final long took = System.nanoTime() - before;
            // as a wait does with each yield it times
            YieldCost.observe(took);
            least = Math.min(least, took);
        }
        assertFalse(EvdWaiter.gaveWay(least, 0), "a yield of " + least + " ns counted as one another thread took"
            + " (bound " + YieldCost.freeCoreBound() + " ns)");
    }

    @Test
    void theBoundFollowsTheLeastYieldSeen()
    {
        assertEquals(YieldCost.FLOOR_NANOS, YieldCost.bound(200), "a cheap yield keeps the floor");
        assertEquals(2_400, YieldCost.bound(1_600), "half as much again as a yield that ran nobody");
        final long before = YieldCost.least();
        YieldCost.observe(before + 1_000_000);
        assertEquals(before, YieldCost.least(), "a longer yield (one that gave the core away) never raises it");
    }
}

package io.jdat.conformance;

import static io.jdat.conformance.EvdTest.awaitBlocked;
import static io.jdat.conformance.EvdTest.software;
import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.OsWaitProxyAgent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The rules of the seed man page {@code dat_evd_wait(3DAT)} (seed 003), one test per rule, each
 * named after its rule.
 */
class SeedEvdWaitTest
{
    /** A thread blocked in {@code dat_evd_wait}, and what the call did. */
    private static final class Waiter
    {
        final DatEvent event = new DatEvent();
        final DatCount nmore = new DatCount(-1);
        final AtomicReference<Thread> thread = new AtomicReference<>();
        final CompletableFuture<DatStatus> result;

        Waiter(final EventDispatcher evd, final long timeoutMicros, final int threshold)
        {
            result = CompletableFuture.supplyAsync(() ->
            {
                thread.set(Thread.currentThread());
                return evd.wait(timeoutMicros, threshold, event, nmore);
            }, Fixture.THREADS);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (thread.get() == null)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("the waiter thread did not start");
                }
                Thread.onSpinWait();
            }
            awaitBlocked(thread.get());
        }

        /** The status the wait returned (within 5 s), or the DatException it threw. */
        DatStatus status()
        {
            try
            {
                return result.get(5, TimeUnit.SECONDS);
            }
            catch (final ExecutionException e)
            {
                if (e.getCause() instanceof DatException d)
                {
                    return d.status();
                }
                throw new AssertionError(e.getCause());
            }
            catch (final InterruptedException | TimeoutException e)
            {
                throw new AssertionError("the waiter did not return", e);
            }
        }

        boolean stillBlocked()
        {
            return !result.isDone();
        }
    }

    @Test
    void evdWaitThresholdAboveQueueLengthIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            final int qlen = EvdTest.query(evd).evdQlen;
            final DatException e = expect(DatReturnType.INVALID_PARAMETER,
                () -> evd.wait(0, qlen + 1, new DatEvent(), new DatCount()));
            assertEquals(DatReturnSubtype.INVALID_ARG3, e.subtype());
            // exactly the queue length is allowed
            assertEquals(DatStatus.TIMEOUT_EXPIRED, evd.wait(0, qlen, new DatEvent(), new DatCount()));
        }
    }

    @Test
    void evdWaitNonPositiveThresholdIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            for (final int threshold : new int[] {0, -1, Integer.MIN_VALUE})
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> evd.wait(0, threshold, new DatEvent(), new DatCount()));
            }
            assertEquals(DatStatus.SUCCESS, evd.dequeue(new DatEvent()));
        }
    }

    @Test
    void evdWaitByASecondWaiterIsInvalidState()
    {
        // a blocked waiter takes exclusive ownership of the EVD
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            final Waiter first = new Waiter(evd, 5 * SECOND, 1);
            final DatException e = expect(DatReturnType.INVALID_STATE,
                () -> evd.wait(0, 1, new DatEvent(), new DatCount()));
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_WAITER, e.subtype());
            evd.postSe(software("mine"));
            assertEquals(DatStatus.SUCCESS, first.status());
            assertEquals("mine", first.event.software.pointer);
        }
    }

    @Test
    void evdWaitByASecondWaiterIsInvalidStateEvenWithAnEventQueued()
    {
        // an event the second caller could take at once does not let it past the first waiter
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            // threshold 2 keeps the first waiter blocked with one event queued
            final Waiter first = new Waiter(evd, 5 * SECOND, 2);
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_WAITER, expect(DatReturnType.INVALID_STATE,
                () -> evd.wait(5 * SECOND, 1, new DatEvent(), new DatCount())).subtype());
            evd.postSe(software(2));
            assertEquals(DatStatus.SUCCESS, first.status());
            assertEquals(1, first.event.software.pointer);
            assertEquals(1, first.nmore.value);
        }
    }

    @Test
    void evdDequeueWhileAWaiterBlocksIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            // threshold 2 keeps the waiter blocked with one event queued
            final Waiter waiter = new Waiter(evd, 5 * SECOND, 2);
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                expect(DatReturnType.INVALID_STATE, () -> evd.dequeue(new DatEvent())).subtype());
            evd.postSe(software(2));
            assertEquals(DatStatus.SUCCESS, waiter.status());
            assertEquals(1, waiter.event.software.pointer);
            // the waiter is gone: dequeue works again
            assertEquals(DatStatus.SUCCESS, evd.dequeue(new DatEvent()));
        }
    }

    @Test
    void evdSetUnwaitableWakesABlockedWaiterWithInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            final Waiter waiter = new Waiter(evd, Dat.TIMEOUT_INFINITE, 1);
            evd.setUnwaitable();
            final DatStatus s = waiter.status();
            assertTrue(s.is(DatReturnType.INVALID_STATE), s.toString());
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, s.subtype());
        }
    }

    @Test
    void evdWaitOnAnUnwaitableEvdIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            evd.setUnwaitable();
            // fails at once, even with an event queued, and dequeues nothing
            final DatException e = expect(DatReturnType.INVALID_STATE,
                () -> evd.wait(Dat.TIMEOUT_INFINITE, 1, new DatEvent(), new DatCount()));
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, e.subtype());
            assertEquals(DatStatus.SUCCESS, evd.dequeue(new DatEvent()));
        }
    }

    @Test
    void evdWaitTimeoutIsTimeoutExpiredWithNmoreSetAndNothingDequeued()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            evd.postSe(software(2));
            final DatEvent ev = new DatEvent();
            final DatCount nmore = new DatCount(-1);
            final long start = System.nanoTime();
            assertSame(DatStatus.TIMEOUT_EXPIRED, evd.wait(20_000, 3, ev, nmore));
            assertTrue(System.nanoTime() - start >= TimeUnit.MICROSECONDS.toNanos(20_000), "waited the timeout");
            assertEquals(0x800F0000, DatStatus.TIMEOUT_EXPIRED.value());
            assertEquals(2, nmore.value);
            // timeout 0 polls (dapltest FFT connmgt case 1)
            nmore.value = -1;
            assertSame(DatStatus.TIMEOUT_EXPIRED, evd.wait(0, 3, ev, nmore));
            assertEquals(2, nmore.value);
            for (int i = 1; i <= 2; i++)
            {
                assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
                assertEquals(i, ev.software.pointer);
            }
        }
    }

    @Test
    void evdWaitWithThresholdNWaitsForNEventsAndNmoreIsAtLeastThresholdMinusOne()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final Waiter waiter = new Waiter(evd, 5 * SECOND, 3);
            evd.postSe(software(1));
            evd.postSe(software(2));
            sleepMillis(30);
            assertTrue(waiter.stillBlocked(), "two events do not reach a threshold of three");
            evd.postSe(software(3));
            assertEquals(DatStatus.SUCCESS, waiter.status());
            assertEquals(1, waiter.event.software.pointer);
            assertTrue(waiter.nmore.value >= 2, "nmore " + waiter.nmore.value);
            // already queued events satisfy a threshold at once
            final DatCount nmore = new DatCount();
            evd.postSe(software(4));
            assertEquals(DatStatus.SUCCESS, evd.wait(0, 3, new DatEvent(), nmore));
            assertEquals(2, nmore.value);
        }
    }

    @Test
    void evdWaitWithAnInfiniteTimeoutWaitsUntilAnEventArrives()
    {
        // trap T-38: 0xFFFFFFFF is for ever, not 71 minutes
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final Waiter waiter = new Waiter(evd, Dat.TIMEOUT_INFINITE, 1);
            sleepMillis(30);
            assertTrue(waiter.stillBlocked());
            evd.postSe(software("late"));
            assertEquals(DatStatus.SUCCESS, waiter.status());
            assertEquals("late", waiter.event.software.pointer);
            assertEquals(0, waiter.nmore.value);
        }
    }

    @Test
    void evdWaitIsAbortedWhenTheIaIsClosed()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final Waiter onEvd = new Waiter(evd, Dat.TIMEOUT_INFINITE, 1);
            final Waiter onAsync = new Waiter(f.asyncEvd, Dat.TIMEOUT_INFINITE, 1);
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertTrue(onEvd.status().is(DatReturnType.ABORT), onEvd.status().toString());
            assertTrue(onAsync.status().is(DatReturnType.ABORT), onAsync.status().toString());
            assertEquals(0x80010000, onEvd.status().value());
        }
    }

    @Test
    void evdWaitIsAbortedWhenTheEvdIsFreed()
    {
        // digest §2.6: freeing an EVD under a waiter wakes it with DAT_ABORT, then frees
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final Waiter waiter = new Waiter(evd, Dat.TIMEOUT_INFINITE, 1);
            evd.free();
            assertTrue(waiter.status().is(DatReturnType.ABORT), waiter.status().toString());
            expect(DatReturnType.INVALID_HANDLE, () -> evd.wait(0, 1, new DatEvent(), new DatCount()));
        }
    }

    @Test
    void evdWaitOfAnInterruptedThreadIsInterruptedCall()
    {
        // digest §2.6 [INF]: Thread.interrupt() is the Java signal
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            final Waiter waiter = new Waiter(evd, Dat.TIMEOUT_INFINITE, 2);
            waiter.thread.get().interrupt();
            final DatStatus s = waiter.status();
            assertTrue(s.is(DatReturnType.INTERRUPTED_CALL), s.toString());
            // nmore is defined for DAT_INTERRUPTED_CALL, and nothing was dequeued
            assertEquals(1, waiter.nmore.value);
            assertEquals(DatStatus.SUCCESS, evd.dequeue(new DatEvent()));
            // a thread already interrupted when it calls does not block
            final CompletableFuture<DatStatus> early = CompletableFuture.supplyAsync(() ->
            {
                Thread.currentThread().interrupt();
                try
                {
                    return evd.wait(Dat.TIMEOUT_INFINITE, 1, new DatEvent(), new DatCount());
                }
                catch (final DatException e)
                {
                    return e.status();
                }
                finally
                {
                    Thread.interrupted();
                }
            }, Fixture.THREADS);
            assertTrue(early.orTimeout(5, TimeUnit.SECONDS).join().is(DatReturnType.INTERRUPTED_CALL));
        }
    }

    @Test
    void evdWaitThresholdAboveOneOnAnEvdFedByAnUnsignalledOrSolicitedWaitStreamIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher recv = f.evd(8, EvdFlags.DTO_FLAG);
            final EpAttr solicited = new EpAttr();
            solicited.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG;
            final Endpoint a = f.ia.epCreate(f.pz, recv, null, null, solicited);
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_CONFIG_SOLICITED, expect(DatReturnType.INVALID_STATE,
                () -> recv.wait(0, 2, new DatEvent(), new DatCount())).subtype());
            // threshold 1 is fine
            assertEquals(DatStatus.TIMEOUT_EXPIRED, recv.wait(0, 1, new DatEvent(), new DatCount()));
            a.free();
            final EventDispatcher request = f.evd(8, EvdFlags.DTO_FLAG);
            final EpAttr unsignalled = new EpAttr();
            unsignalled.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            final Endpoint b = f.ia.epCreate(f.pz, null, request, null, unsignalled);
            expect(DatReturnType.INVALID_STATE, () -> request.wait(0, 2, new DatEvent(), new DatCount()));
            b.free();
            final EpAttr unsignalledRecv = new EpAttr();
            unsignalledRecv.recvCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            final Endpoint c = f.ia.epCreate(f.pz, recv, null, null, unsignalledRecv);
            expect(DatReturnType.INVALID_STATE, () -> recv.wait(0, 2, new DatEvent(), new DatCount()));
            c.free();
            // with those streams gone the threshold is allowed again
            assertEquals(DatStatus.TIMEOUT_EXPIRED, recv.wait(0, 2, new DatEvent(), new DatCount()));
            // threshold-configured (default) streams allow it
            final Endpoint d = f.ia.epCreate(f.pz, recv, request, null, null);
            assertEquals(DatStatus.TIMEOUT_EXPIRED, recv.wait(0, 2, new DatEvent(), new DatCount()));
            d.free();
        }
    }

    @Test
    void cnoOfTheEvdIsNotTriggeredWhileAThreadWaitsOnIt()
    {
        try (Fixture f = new Fixture())
        {
            final AtomicInteger agentCalls = new AtomicInteger();
            final Cno cno = f.ia.cnoCreate(new OsWaitProxyAgent("data", (d, e) -> agentCalls.incrementAndGet()));
            final EventDispatcher evd = f.ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
            final Waiter waiter = new Waiter(evd, 5 * SECOND, 2);
            evd.postSe(software(1));
            final DatOut<EventDispatcher> hint = new DatOut<>();
            assertEquals(DatStatus.QUEUE_EMPTY, cno.wait(30_000, hint));
            assertNull(hint.value);
            assertEquals(0, agentCalls.get());
            evd.postSe(software(2));
            assertEquals(DatStatus.SUCCESS, waiter.status());
            // without a waiter the next arrival triggers the CNO again
            evd.postSe(software(3));
            assertEquals(DatStatus.SUCCESS, cno.wait(SECOND, hint));
            assertSame(evd, hint.value);
            assertTrue(agentCalls.get() >= 1);
        }
    }

    @Test
    void eventsOfOneStreamComeOutInOrder()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(64 * 16);
            final int n = 12;
            for (int i = 0; i < n; i++)
            {
                pair[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 64L * i, 64)}, 100 + i, 0);
            }
            final Lmr src = f.lmr(64);
            for (int i = 0; i < n; i++)
            {
                pair[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, 0, i + 1)}, 200 + i, 0);
            }
            final DatEvent ev = new DatEvent();
            final DatCount nmore = new DatCount();
            for (int i = 0; i < n; i++)
            {
                assertEquals(DatStatus.SUCCESS, pair[1].recv().wait(5 * SECOND, 1, ev, nmore));
                assertEquals(100 + i, ev.dto.userCookie, "receive completions in posting order");
                assertEquals(i + 1, ev.dto.transferredLength);
                assertEquals(DatStatus.SUCCESS, pair[0].req().wait(5 * SECOND, 1, ev, nmore));
                assertEquals(200 + i, ev.dto.userCookie, "send completions in posting order");
            }
        }
    }

    @Test
    void evdWaitFillsTheWholeEvent()
    {
        // trap T-20: every field is OUT, including evd_handle
        try (Fixture f = new Fixture())
        {
            final EventDispatcher other = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(64);
            pair[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 0xC0FFEEL, 0);
            pair[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 10)}, 0xBEEFL, 0);
            final DatEvent ev = garbage(other);
            final DatCount nmore = new DatCount(-1);
            assertEquals(DatStatus.SUCCESS, pair[1].recv().wait(5 * SECOND, 1, ev, nmore));
            assertEquals(EventNumber.DTO_COMPLETION_EVENT.value(), ev.eventNumber);
            assertSame(pair[1].recv(), ev.evdHandle);
            assertSame(pair[1].ep(), ev.dto.epHandle);
            assertEquals(0xC0FFEEL, ev.dto.userCookie);
            assertEquals(DtoStatus.SUCCESS, ev.dto.status);
            assertEquals(10, ev.dto.transferredLength);
            assertEquals(0, nmore.value);
            final DatEvent sw = garbage(pair[1].recv());
            other.postSe(software("p"));
            assertEquals(DatStatus.SUCCESS, other.wait(SECOND, 1, sw, nmore));
            assertEquals(EventNumber.SOFTWARE_EVENT.value(), sw.eventNumber);
            assertSame(other, sw.evdHandle);
            assertEquals("p", sw.software.pointer);
            pair[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            final DatEvent conn = garbage(other);
            assertEquals(DatStatus.SUCCESS, pair[1].conn().wait(5 * SECOND, 1, conn, nmore));
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED.value(), conn.eventNumber);
            assertSame(pair[1].conn(), conn.evdHandle);
            assertSame(pair[1].ep(), conn.connection.epHandle);
            assertEquals(0, conn.connection.privateDataSize);
            assertFalse(sw.is(EventNumber.DTO_COMPLETION_EVENT));
        }
    }

    /** An event record full of stale values from an earlier use. */
    private static DatEvent garbage(final EventDispatcher staleEvd)
    {
        final DatEvent ev = new DatEvent();
        ev.eventNumber = 0x7777;
        ev.evdHandle = staleEvd;
        ev.dto.userCookie = -1;
        ev.dto.transferredLength = -1;
        ev.dto.status = DtoStatus.ERR_TRANSPORT;
        ev.software.pointer = "stale";
        ev.connection.privateDataSize = 99;
        return ev;
    }

    private static void sleepMillis(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            throw new AssertionError(e);
        }
    }
}

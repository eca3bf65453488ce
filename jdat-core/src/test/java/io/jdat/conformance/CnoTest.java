package io.jdat.conformance;

import static io.jdat.conformance.EvdTest.awaitBlocked;
import static io.jdat.conformance.EvdTest.software;
import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.CnoParam;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.OsWaitProxyAgent;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_cno_create}, {@code dat_cno_free}, {@code dat_cno_wait}, {@code dat_cno_query} and
 * {@code dat_cno_modify_agent} (digest §2.7, trap T-29): every documented return code, how EVDs
 * trigger a CNO, and the OS wait proxy agent.
 *
 * <p>Codes that cannot arise here:
 * <ul>
 *   <li>{@code dat_cno_free} {@code DAT_INVALID_STATE} because of a blocked waiter alone: a
 *       waiter is released (with no EVD) as soon as the last EVD lets go of the CNO, so a CNO
 *       with a waiter always has an EVD referencing it; the refusal is tested through the EVD.</li>
 *   <li>{@code DAT_INVALID_HANDLE} for a handle of another type: refused by Java's types; freed
 *       CNOs and closed IAs are the cases that remain.</li>
 * </ul>
 */
class CnoTest
{
    /** Calls an agent received, in order: the instance data and the EVD (null when released). */
    private record Call(Object data, EventDispatcher evd)
    {
    }

    private static OsWaitProxyAgent recording(final Object data, final List<Call> calls)
    {
        return new OsWaitProxyAgent(data, (d, e) -> calls.add(new Call(d, e)));
    }

    /** {@code dat_cno_wait} on its own thread, blocked before this returns. */
    private static final class Waiter
    {
        final DatOut<EventDispatcher> evd = new DatOut<>();
        final AtomicReference<Thread> thread = new AtomicReference<>();
        final CompletableFuture<DatStatus> result;

        Waiter(final Cno cno, final long timeoutMicros)
        {
            // a stale value the call must overwrite
            evd.value = Dat.EVD_OUT_OF_SCOPE;
            result = CompletableFuture.supplyAsync(() ->
            {
                thread.set(Thread.currentThread());
                return cno.wait(timeoutMicros, evd);
            }, Fixture.THREADS);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (thread.get() == null)
            {
                assertTrue(System.nanoTime() < deadline, "the waiter did not start");
                Thread.onSpinWait();
            }
            awaitBlocked(thread.get());
        }

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
                throw new AssertionError("the CNO waiter did not return", e);
            }
        }
    }

    private static CnoParam query(final Cno cno)
    {
        final CnoParam p = new CnoParam();
        cno.query(CnoParam.FIELD_ALL, p);
        return p;
    }

    // ------------------------------------------------------------------ dat_cno_create

    @Test
    void cnoCreateMakesACnoWithNoEvdsAndAtMostOneAgent()
    {
        try (Fixture f = new Fixture())
        {
            final OsWaitProxyAgent agent = recording("x", new CopyOnWriteArrayList<>());
            final Cno cno = f.ia.cnoCreate(agent);
            final CnoParam p = query(cno);
            assertSame(f.ia, p.iaHandle);
            assertSame(agent, p.agent);
            // no EVD feeds it: a wait has nothing to wait for
            final DatOut<EventDispatcher> hint = new DatOut<>();
            assertEquals(DatStatus.QUEUE_EMPTY, cno.wait(SECOND, hint));
            assertNull(hint.value);
            for (final OsWaitProxyAgent none : new OsWaitProxyAgent[] {null, OsWaitProxyAgent.NULL})
            {
                assertTrue(query(f.ia.cnoCreate(none)).agent.isNull());
            }
        }
    }

    @Test
    void cnoCreateBeyondMaxCnosIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_cnos=2")))
        {
            final Cno a = f.ia.cnoCreate(null);
            f.ia.cnoCreate(null);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.cnoCreate(null));
            a.free();
            f.ia.cnoCreate(null);
        }
    }

    @Test
    void cnoCreateOnAClosedIaIsInvalidHandle()
    {
        final Fixture f = new Fixture();
        f.close();
        assertEquals(DatReturnSubtype.INVALID_HANDLE_IA,
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.cnoCreate(null)).subtype());
    }

    @Test
    void cnoCreateWithAnAgentWithoutAFunctionIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_cnos=1")))
        {
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.cnoCreate(new OsWaitProxyAgent("data", null)));
            // nothing was created
            f.ia.cnoCreate(null);
        }
    }

    // ------------------------------------------------------------------ dat_cno_free

    @Test
    void cnoFreeDestroysTheCno()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            cno.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CNO,
                expect(DatReturnType.INVALID_HANDLE, () -> cno.wait(0, new DatOut<>())).subtype());
            // an EVD cannot be attached to it any more
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG));
        }
    }

    @Test
    void cnoFreeWhileAnEvdReferencesItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher a = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final EventDispatcher b = f.evd(4, EvdFlags.DTO_FLAG);
            b.modifyCno(cno);
            final DatException e = expect(DatReturnType.INVALID_STATE, cno::free);
            assertEquals(DatReturnSubtype.INVALID_STATE_CNO_IN_USE, e.subtype());
            a.free();
            expect(DatReturnType.INVALID_STATE, cno::free);
            // a waiter is released when the last EVD lets go; then the CNO can be freed
            final Waiter w = new Waiter(cno, Dat.TIMEOUT_INFINITE);
            expect(DatReturnType.INVALID_STATE, cno::free);
            b.modifyCno(null);
            assertEquals(DatStatus.SUCCESS, w.status());
            cno.free();
        }
    }

    @Test
    void cnoFreeRightAfterTheLastEvdReleasedItsWaiterSucceeds()
    {
        // dat_cno_free(3DAT) usage: release the waiter by freeing the EVDs, then free the CNO; a
        // released waiter no longer counts even before its thread has run again
        try (Fixture f = new Fixture())
        {
            for (int round = 0; round < 20; round++)
            {
                final Cno cno = f.ia.cnoCreate(null);
                final EventDispatcher evd = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
                final Waiter w = new Waiter(cno, Dat.TIMEOUT_INFINITE);
                evd.free();
                cno.free();
                assertEquals(DatStatus.SUCCESS, w.status());
                assertNull(w.evd.value);
            }
        }
    }

    @Test
    void cnoFreeOfAFreedCnoIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            cno.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CNO,
                expect(DatReturnType.INVALID_HANDLE, cno::free).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_cno_wait

    @Test
    void cnoWaitReturnsTheEvdThatNotifiedAsAHint()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher quiet = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final EventDispatcher busy = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final Waiter w = new Waiter(cno, 5 * SECOND);
            busy.postSe(software("wake"));
            assertEquals(DatStatus.SUCCESS, w.status());
            assertSame(busy, w.evd.value);
            // the event stays on the EVD: the CNO carries none
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, busy.dequeue(ev));
            assertEquals("wake", ev.software.pointer);
            assertEquals(DatStatus.QUEUE_EMPTY, quiet.dequeue(ev));
        }
    }

    @Test
    void cnoWaitReturnsAtOnceForANotificationThatArrivedBeforeIt()
    {
        // digest §2.7: level-triggered, so a notification before the wait is not lost
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher a = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final EventDispatcher b = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            b.postSe(software(1));
            final DatOut<EventDispatcher> hint = new DatOut<>();
            assertEquals(DatStatus.SUCCESS, cno.wait(0, hint));
            assertSame(b, hint.value);
            a.postSe(software(2));
            b.dequeue(new DatEvent());
            assertEquals(DatStatus.SUCCESS, cno.wait(SECOND, hint));
            assertSame(a, hint.value);
        }
    }

    @Test
    void cnoWaitTimeoutIsQueueEmptyWithNoEvd()
    {
        // trap T-29: not DAT_TIMEOUT_EXPIRED
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher evd = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final DatOut<EventDispatcher> hint = new DatOut<>(evd);
            final long start = System.nanoTime();
            assertSame(DatStatus.QUEUE_EMPTY, cno.wait(20_000, hint));
            assertTrue(System.nanoTime() - start >= 20_000_000L, "returned before the timeout");
            assertNull(hint.value);
            assertEquals(0x800D0000, cno.wait(0, hint).value());
        }
    }

    @Test
    void cnoWaitOnAFreedCnoIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            cno.free();
            expect(DatReturnType.INVALID_HANDLE, () -> cno.wait(Dat.TIMEOUT_INFINITE, new DatOut<>()));
        }
    }

    @Test
    void cnoWaitWithABadTimeoutOrNoEvdHolderIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG).postSe(software(1));
            expect(DatReturnType.INVALID_PARAMETER, () -> cno.wait(-1, new DatOut<>()));
            expect(DatReturnType.INVALID_PARAMETER, () -> cno.wait(Dat.TIMEOUT_INFINITE + 1, new DatOut<>()));
            expect(DatReturnType.INVALID_PARAMETER, () -> cno.wait(0, null));
        }
    }

    @Test
    void cnoWaitOfAnInterruptedThreadIsInterruptedCall()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final Waiter w = new Waiter(cno, Dat.TIMEOUT_INFINITE);
            w.thread.get().interrupt();
            final DatStatus s = w.status();
            assertTrue(s.is(DatReturnType.INTERRUPTED_CALL), s.toString());
            // the waiter is gone: the CNO can be waited on again
            assertEquals(DatStatus.QUEUE_EMPTY, cno.wait(0, new DatOut<>()));
        }
    }

    @Test
    void cnoWaitIsReleasedWithNoEvdWhenTheIaIsClosed()
    {
        final Fixture f = new Fixture();
        final Cno cno = f.ia.cnoCreate(null);
        f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
        final Waiter w = new Waiter(cno, Dat.TIMEOUT_INFINITE);
        f.close();
        assertEquals(DatStatus.SUCCESS, w.status());
        assertNull(w.evd.value);
    }

    @Test
    void cnoWaitIsReleasedWithNoEvdWhenItsLastEvdIsFreed()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher a = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final EventDispatcher b = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            final Waiter w = new Waiter(cno, Dat.TIMEOUT_INFINITE);
            a.free();
            assertTrue(!w.result.isDone(), "one EVD is left: the waiter keeps waiting");
            b.free();
            assertEquals(DatStatus.SUCCESS, w.status());
            assertNull(w.evd.value);
        }
    }

    @Test
    void cnoIsTriggeredByNotifyingDtoCompletionsButNotByUnsignalledOnes()
    {
        // digest §2.7: only notification events trigger; an unsignalled completion is queued silently
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher recv = f.ia.evdCreate(16, cno, EvdFlags.DTO_FLAG);
            final EventDispatcher req = f.ia.evdCreate(16, cno, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = f.evd(4, EvdFlags.CONNECTION_FLAG);
            final EpAttr unsignalled = new EpAttr();
            unsignalled.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            final Fixture.Ep client = new Fixture.Ep(f.ia.epCreate(f.pz, recv, req, conn, unsignalled), recv, req,
                conn);
            final Fixture.Ep server = f.ep(null);
            connect(f, client, server);
            final Lmr lmr = f.lmr(64);
            final LmrTriplet[] iov = {LmrTriplet.of(lmr, 0, 8)};
            server.ep().postRecv(1, iov, 1, 0);
            client.ep().postSend(1, iov, 2, CompletionFlags.UNSIGNALLED_FLAG);
            Connecting.event(server.recv(), io.jdat.EventNumber.DTO_COMPLETION_EVENT);
            final DatOut<EventDispatcher> hint = new DatOut<>();
            assertEquals(DatStatus.QUEUE_EMPTY, cno.wait(20_000, hint));
            // it was queued all the same
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, req.dequeue(ev));
            assertEquals(2, ev.dto.userCookie);
            // a signalled receive completion on an EVD of the CNO triggers it
            client.ep().postRecv(1, iov, 3, 0);
            server.ep().postSend(1, iov, 4, 0);
            assertEquals(DatStatus.SUCCESS, cno.wait(5 * SECOND, hint));
            assertSame(recv, hint.value);
        }
    }

    /** Connects {@code client} to {@code server} through a PSP of the fixture. */
    private static void connect(final Fixture f, final Fixture.Ep client, final Fixture.Ep server)
    {
        final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
        final io.jdat.PublicServicePoint psp = f.ia.pspCreateAny(crEvd, io.jdat.PspFlags.CONSUMER_FLAG);
        Connecting.connect(f, client, psp.connQual(), null);
        Connecting.request(crEvd).crArrival.crHandle.accept(server.ep(), null);
        Connecting.connection(client, io.jdat.EventNumber.CONNECTION_EVENT_ESTABLISHED);
        Connecting.connection(server, io.jdat.EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
    }

    // ------------------------------------------------------------------ dat_cno_query

    @Test
    void cnoQueryReportsTheIaAndTheAgent()
    {
        try (Fixture f = new Fixture())
        {
            final OsWaitProxyAgent agent = recording(1, new CopyOnWriteArrayList<>());
            final Cno cno = f.ia.cnoCreate(agent);
            final CnoParam one = new CnoParam();
            cno.query(CnoParam.FIELD_IA_HANDLE, one);
            assertSame(f.ia, one.iaHandle);
            cno.query(CnoParam.FIELD_AGENT, one);
            assertSame(agent, one.agent);
            cno.query(0, null);
        }
    }

    @Test
    void cnoQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            expect(DatReturnType.INVALID_PARAMETER, () -> cno.query(CnoParam.FIELD_ALL, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> cno.query(0x4, new CnoParam()));
        }
    }

    @Test
    void cnoQueryOfAFreedCnoIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            cno.free();
            expect(DatReturnType.INVALID_HANDLE, () -> cno.query(CnoParam.FIELD_ALL, new CnoParam()));
        }
    }

    // ------------------------------------------------------------------ dat_cno_modify_agent

    @Test
    void cnoModifyAgentReplacesTheAgentAndNullDetachesIt()
    {
        try (Fixture f = new Fixture())
        {
            final List<Call> first = new CopyOnWriteArrayList<>();
            final List<Call> second = new CopyOnWriteArrayList<>();
            final Cno cno = f.ia.cnoCreate(recording("first", first));
            final EventDispatcher evd = f.ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
            final OsWaitProxyAgent replacement = recording("second", second);
            cno.modifyAgent(replacement);
            assertSame(replacement, query(cno).agent);
            evd.postSe(software(1));
            assertEquals(List.of(), first);
            assertEquals(List.of(new Call("second", evd)), second);
            evd.dequeue(new DatEvent());
            cno.modifyAgent(OsWaitProxyAgent.NULL);
            assertTrue(query(cno).agent.isNull());
            evd.postSe(software(2));
            assertEquals(1, second.size());
            // the trigger still reached the CNO itself
            assertEquals(DatStatus.SUCCESS, cno.wait(0, new DatOut<>()));
        }
    }

    @Test
    void cnoAgentIsInvokedOnceAndThenNoLongerAssociated()
    {
        // dat_cno_create(3DAT): "After it is invoked, it is no longer associated with the CNO."
        try (Fixture f = new Fixture())
        {
            final List<Call> calls = new CopyOnWriteArrayList<>();
            final Cno cno = f.ia.cnoCreate(recording("once", calls));
            final EventDispatcher evd = f.ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            assertEquals(List.of(new Call("once", evd)), calls);
            assertTrue(query(cno).agent.isNull());
            evd.postSe(software(2));
            assertEquals(1, calls.size());
            // dat_cno_modify_agent arms it again
            cno.modifyAgent(recording("again", calls));
            evd.postSe(software(3));
            assertEquals(new Call("again", evd), calls.get(1));
        }
    }

    @Test
    void cnoAgentIsReleasedWithNoEvdWhenTheIaIsClosedOrTheLastEvdIsFreed()
    {
        // dat_cno_wait(3DAT): all waiters, including the agent, are unblocked with a NULL handle
        final List<Call> calls = new CopyOnWriteArrayList<>();
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(recording("freed", calls));
            final EventDispatcher evd = f.ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
            evd.free();
            assertEquals(List.of(new Call("freed", null)), calls);
            final Cno other = f.ia.cnoCreate(recording("closed", calls));
            f.ia.evdCreate(8, other, EvdFlags.SOFTWARE_FLAG);
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertEquals(List.of(new Call("freed", null), new Call("closed", null)), calls);
        }
    }

    @Test
    void cnoModifyAgentWithAnAgentWithoutAFunctionIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final OsWaitProxyAgent agent = recording(1, new CopyOnWriteArrayList<>());
            final Cno cno = f.ia.cnoCreate(agent);
            expect(DatReturnType.INVALID_PARAMETER, () -> cno.modifyAgent(new OsWaitProxyAgent(2, null)));
            assertSame(agent, query(cno).agent);
        }
    }

    @Test
    void cnoModifyAgentOfAFreedCnoIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            cno.free();
            expect(DatReturnType.INVALID_HANDLE, () -> cno.modifyAgent(OsWaitProxyAgent.NULL));
        }
    }
}

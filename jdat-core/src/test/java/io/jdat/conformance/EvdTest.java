package io.jdat.conformance;

import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.AsyncErrorReason;
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
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.EvdState;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The twelve {@code dat_evd_*} calls (digest §2.6, §4.7): every documented return code. The
 * seed man page's rules for {@code dat_evd_wait} are in {@link SeedEvdWaitTest}.
 */
class EvdTest
{
    static DatEvent software(final Object pointer)
    {
        return new DatEvent().software(pointer);
    }

    static EvdParam query(final EventDispatcher evd)
    {
        final EvdParam p = new EvdParam();
        evd.query(EvdParam.FIELD_ALL, p);
        return p;
    }

    /** Waits (bounded) until {@code thread} is parked or waiting: it blocked in a DAT call. */
    static void awaitBlocked(final Thread thread)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING)
        {
            assertTrue(System.nanoTime() < deadline, "the thread did not block: " + thread.getState());
            Thread.onSpinWait();
        }
    }

    /**
     * Makes a one-slot connection EVD of {@code ia} overflow: ESTABLISHED fills it, and the
     * peer's disconnect adds DISCONNECTED. Returns the overflowed EVD.
     */
    static EventDispatcher overflowAConnectionEvd(final io.jdat.InterfaceAdapter ia)
    {
        final io.jdat.IaAttr attr = new io.jdat.IaAttr();
        ia.query(io.jdat.IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);
        final io.jdat.ProtectionZone pz = ia.pzCreate();
        final EventDispatcher conn = ia.evdCreate(1, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher serverConn = ia.evdCreate(4, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher crEvd = ia.evdCreate(4, null, EvdFlags.CR_FLAG);
        final Endpoint client = ia.epCreate(pz, null, null, conn, null);
        final Endpoint server = ia.epCreate(pz, null, null, serverConn, null);
        final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        client.connect(attr.iaAddress, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        Fixture.next(crEvd).crArrival.crHandle.accept(server, null);
        assertTrue(Fixture.next(serverConn).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        server.disconnect(CloseFlags.ABRUPT_FLAG);
        return conn;
    }

    // ------------------------------------------------------------------ dat_evd_create

    @Test
    void aFirstEventThatDoesNotNotifyKeepsTheQueueInOrderAndItsNotificationsCounted()
    {
        // b's receives complete quietly unless the Send was solicited: the EVD first holds only
        // notifying events, then gets one that does not notify, then notifying ones again
        try (Fixture f = new Fixture())
        {
            final EpAttr attr = new EpAttr();
            attr.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG;
            final Fixture.Ep[] p = f.connectedPair(attr);
            final Fixture.Ep a = p[0];
            final Fixture.Ep b = p[1];
            final io.jdat.Lmr lmr = f.lmr(4096);
            final int[] sendFlags = {CompletionFlags.SOLICITED_WAIT_FLAG, CompletionFlags.SOLICITED_WAIT_FLAG,
                CompletionFlags.DEFAULT_FLAG, CompletionFlags.SOLICITED_WAIT_FLAG};
            for (int i = 0; i < sendFlags.length; i++)
            {
                b.ep().postRecv(1, new io.jdat.LmrTriplet[] {io.jdat.LmrTriplet.of(lmr, i * 64, 64)}, i + 1, 0);
            }
            final DatEvent ev = new DatEvent();
            final DatCount nmore = new DatCount();
            for (int i = 0; i < 3; i++)
            {
                a.ep().postSend(1, new io.jdat.LmrTriplet[] {io.jdat.LmrTriplet.of(lmr, 2048, 8)}, i + 1, sendFlags[i]);
                assertEquals(io.jdat.DtoStatus.SUCCESS, Fixture.next(a.req()).dto.status);
            }
            for (int i = 1; i <= 2; i++)
            {
                assertEquals(DatStatus.SUCCESS, b.recv().dequeue(ev));
                assertEquals(i, ev.dto.userCookie);
            }
            // left: the quiet completion alone, which wakes no waiter
            assertEquals(DatStatus.TIMEOUT_EXPIRED, b.recv().wait(0, 1, ev, nmore));
            assertEquals(1, nmore.value);
            a.ep().postSend(1, new io.jdat.LmrTriplet[] {io.jdat.LmrTriplet.of(lmr, 2048, 8)}, 4, sendFlags[3]);
            assertEquals(io.jdat.DtoStatus.SUCCESS, Fixture.next(a.req()).dto.status);
            // a notifying completion behind it: a waiter returns, with the oldest event first
            assertEquals(DatStatus.SUCCESS, b.recv().wait(0, 1, ev, nmore));
            assertEquals(3, ev.dto.userCookie);
            assertEquals(1, nmore.value);
            assertEquals(DatStatus.SUCCESS, b.recv().wait(0, 1, ev, nmore));
            assertEquals(4, ev.dto.userCookie);
            assertEquals(DatStatus.QUEUE_EMPTY, b.recv().dequeue(ev));
        }
    }

    @Test
    void evdCreateGivesAnEnabledWaitableQueueOfAtLeastTheRequestedLength()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.ia.evdCreate(13, null, EvdFlags.DTO_FLAG | EvdFlags.SOFTWARE_FLAG);
            final EvdParam p = query(evd);
            assertTrue(p.evdQlen >= 13);
            assertSame(f.ia, p.iaHandle);
            assertNull(p.cnoHandle);
            assertEquals(EvdFlags.DTO_FLAG | EvdFlags.SOFTWARE_FLAG, p.evdFlags);
            assertEquals(EvdState.ENABLED | EvdState.WAITABLE | EvdState.CONFIG_NOTIFY, p.evdState);
            assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(new DatEvent()));
        }
    }

    @Test
    void evdCreateAcceptsEveryCombinationOfStreams()
    {
        // trap T-23: one EVD may merge any streams (dapltest uses DTO|CR|RMR_BIND)
        try (Fixture f = new Fixture())
        {
            final int[] bits = {EvdFlags.SOFTWARE_FLAG, EvdFlags.CR_FLAG, EvdFlags.DTO_FLAG, EvdFlags.CONNECTION_FLAG,
                EvdFlags.RMR_BIND_FLAG, EvdFlags.ASYNC_FLAG};
            for (int set = 1; set < 1 << bits.length; set++)
            {
                int flags = 0;
                for (int i = 0; i < bits.length; i++)
                {
                    if ((set & 1 << i) != 0)
                    {
                        flags |= bits[i];
                    }
                }
                final EventDispatcher evd = f.ia.evdCreate(1, null, flags);
                assertEquals(flags, query(evd).evdFlags);
                evd.free();
            }
            f.ia.evdCreate(1, null, EvdFlags.DEFAULT_FLAG).free();
        }
    }

    @Test
    void evdCreateWithACnoAttachesIt()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher evd = f.ia.evdCreate(4, cno, EvdFlags.SOFTWARE_FLAG);
            assertSame(cno, query(evd).cnoHandle);
            expect(DatReturnType.INVALID_STATE, cno::free);
        }
    }

    @Test
    void evdCreateWithNonPositiveQueueLengthIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            for (final int qlen : new int[] {0, -1})
            {
                assertEquals(DatReturnSubtype.INVALID_ARG2, expect(DatReturnType.INVALID_PARAMETER,
                    () -> f.ia.evdCreate(qlen, null, EvdFlags.DTO_FLAG)).subtype());
            }
        }
    }

    @Test
    void evdCreateWithNoOrUndefinedFlagsIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            for (final int flags : new int[] {0, 0x002, 0x200, EvdFlags.DTO_FLAG | 0x8000})
            {
                assertEquals(DatReturnSubtype.INVALID_ARG4, expect(DatReturnType.INVALID_PARAMETER,
                    () -> f.ia.evdCreate(4, null, flags)).subtype());
            }
        }
    }

    @Test
    void evdCreateLongerThanMaxEvdQlenIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_evd_qlen=100")))
        {
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> f.ia.evdCreate(101, null, EvdFlags.DTO_FLAG));
            assertEquals(DatReturnSubtype.RESOURCE_TEVD, e.subtype());
            f.ia.evdCreate(100, null, EvdFlags.DTO_FLAG).free();
        }
    }

    @Test
    void evdCreateBeyondMaxEvdsIsInsufficientResources()
    {
        // the async EVD dat_ia_open made does not count against max_evds
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_evds=2")))
        {
            final EventDispatcher a = f.evd(1, EvdFlags.DTO_FLAG);
            final EventDispatcher b = f.evd(1, EvdFlags.DTO_FLAG);
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.evd(1, EvdFlags.DTO_FLAG));
            assertEquals(DatReturnSubtype.RESOURCE_TEVD, e.subtype());
            a.free();
            f.evd(1, EvdFlags.CR_FLAG).free();
            b.free();
        }
    }

    @Test
    void evdCreateWithABadCnoOrIaIsInvalidHandle()
    {
        try (Fixture f = new Fixture(); Fixture g = new Fixture())
        {
            final Cno freed = f.ia.cnoCreate(null);
            freed.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CNO, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.evdCreate(4, freed, EvdFlags.DTO_FLAG)).subtype());
            final Cno foreign = g.ia.cnoCreate(null);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CNO, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.evdCreate(4, foreign, EvdFlags.DTO_FLAG)).subtype());
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.evdCreate(4, null, EvdFlags.DTO_FLAG)).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_evd_free

    @Test
    void evdFreeDropsQueuedEventsAndKillsTheHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software("lost"));
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, () -> evd.dequeue(new DatEvent()));
            expect(DatReturnType.INVALID_HANDLE, evd::free);
        }
    }

    @Test
    void evdFreeWhileAnEndpointStreamFeedsItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher dto = f.evd(8, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            final Endpoint ep = f.ia.epCreate(f.pz, dto, dto, conn, null);
            for (final EventDispatcher e : new EventDispatcher[] {dto, conn})
            {
                final DatException x = expect(DatReturnType.INVALID_STATE, e::free);
                assertEquals(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, x.subtype());
            }
            ep.free();
            dto.free();
            conn.free();
        }
    }

    @Test
    void evdFreeWhileAServicePointFeedsItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher cr = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG);
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                expect(DatReturnType.INVALID_STATE, cr::free).subtype());
            psp.free();
            cr.free();
        }
    }

    @Test
    void evdFreeOfTheAsyncEvdIaOpenCreatedIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                expect(DatReturnType.INVALID_STATE, f.asyncEvd::free).subtype());
            // dat_ia_close frees it, and a graceful close does not ask the consumer to
            f.pz.free();
            f.ia.close(CloseFlags.GRACEFUL_FLAG);
            expect(DatReturnType.INVALID_HANDLE, f.asyncEvd::free);
        }
    }

    // ------------------------------------------------------------------ dat_evd_query

    @Test
    void evdQueryReportsTheStateBitsAndTheCompletionConfiguration()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.DTO_FLAG);
            evd.disable();
            evd.setUnwaitable();
            assertEquals(EvdState.DISABLED | EvdState.UNWAITABLE | EvdState.CONFIG_NOTIFY, query(evd).evdState);
            evd.enable();
            evd.clearUnwaitable();
            // an EP with the default (threshold) completion flags
            final Endpoint threshold = f.ia.epCreate(f.pz, evd, null, null, null);
            assertEquals(EvdState.ENABLED | EvdState.WAITABLE | EvdState.CONFIG_THRESHOLD, query(evd).evdState);
            threshold.free();
            final EpAttr solicited = new EpAttr();
            solicited.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG;
            final Endpoint ep = f.ia.epCreate(f.pz, evd, null, null, solicited);
            assertEquals(EvdState.CONFIG_SOLICITED, query(evd).evdState & EvdState.CONFIG_MASK);
            ep.free();
            final EvdParam some = new EvdParam();
            evd.query(EvdParam.FIELD_EVD_QLEN, some);
            assertEquals(8, some.evdQlen);
        }
    }

    @Test
    void evdQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        // FFT queryinfo: NULL param -> DAT_INVALID_PARAMETER
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.DTO_FLAG);
            expect(DatReturnType.INVALID_PARAMETER, () -> evd.query(EvdParam.FIELD_ALL, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> evd.query(0x20, new EvdParam()));
        }
    }

    @Test
    void evdQueryOfAFreedEvdIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.DTO_FLAG);
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, () -> evd.query(EvdParam.FIELD_ALL, new EvdParam()));
        }
    }

    // ------------------------------------------------------------------ dat_evd_wait (codes; rules in SeedEvdWaitTest)

    @Test
    void evdWaitOnAFreedEvdOrASpecialValueIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, () -> evd.wait(0, 1, new DatEvent(), new DatCount()));
            expect(DatReturnType.INVALID_HANDLE, () -> Dat.EVD_ASYNC_EXISTS.wait(0, 1, new DatEvent(), new DatCount()));
            expect(DatReturnType.INVALID_HANDLE, () -> Dat.EVD_OUT_OF_SCOPE.dequeue(new DatEvent()));
        }
    }

    @Test
    void evdWaitWithATimeoutOutsideTheDatRangeOrNoEventIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            expect(DatReturnType.INVALID_PARAMETER, () -> evd.wait(-1, 1, new DatEvent(), new DatCount()));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> evd.wait(Dat.TIMEOUT_INFINITE + 1, 1, new DatEvent(), new DatCount()));
            expect(DatReturnType.INVALID_PARAMETER, () -> evd.wait(0, 1, null, new DatCount()));
            // nothing was dequeued by the refused calls; an infinite timeout is valid
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, evd.wait(Dat.TIMEOUT_INFINITE, 1, ev, new DatCount()));
            assertEquals(1, ev.software.pointer);
        }
    }

    @Test
    void evdWaitAfterTheEvdOverflowedIsInvalidStateAndTheOverflowIsReportedToTheAsyncEvd()
    {
        // digest §4.7, trap T-13: the async event names the overflowed EVD
        try (Fixture f = new Fixture())
        {
            final EventDispatcher conn = overflowAConnectionEvd(f.ia);
            final DatEvent ev = Fixture.next(f.asyncEvd);
            assertTrue(ev.is(EventNumber.ASYNC_ERROR_EVD_OVERFLOW), ev.toString());
            assertSame(conn, ev.asyncError.datHandle);
            assertEquals(AsyncErrorReason.EVD_OVERFLOW_ERROR, ev.asyncError.reason);
            expect(DatReturnType.INVALID_STATE, () -> conn.wait(0, 1, new DatEvent(), new DatCount()));
            // what was queued can still be dequeued
            assertEquals(DatStatus.SUCCESS, conn.dequeue(ev));
            assertTrue(ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        }
    }

    // ------------------------------------------------------------------ dat_evd_dequeue

    @Test
    void evdDequeueTakesEventsInOrderThenReportsQueueEmpty()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            for (int i = 0; i < 5; i++)
            {
                assertEquals(DatStatus.SUCCESS, evd.postSe(software(i)));
            }
            final DatEvent ev = new DatEvent();
            for (int i = 0; i < 5; i++)
            {
                assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
                assertEquals(i, ev.software.pointer);
                assertSame(evd, ev.evdHandle);
            }
            assertSame(DatStatus.QUEUE_EMPTY, evd.dequeue(ev));
            assertEquals(0x800D0000, evd.dequeue(ev).value());
        }
    }

    @Test
    void evdDequeueWorksOnAnUnwaitableOrDisabledEvd()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.setUnwaitable();
            evd.disable();
            evd.postSe(software("x"));
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
            assertEquals("x", ev.software.pointer);
        }
    }

    @Test
    void evdDequeueOfAFreedEvdIsInvalidHandleAndOfNoEventIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            expect(DatReturnType.INVALID_PARAMETER, () -> evd.dequeue(null));
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, () -> evd.dequeue(new DatEvent()));
        }
    }

    // ------------------------------------------------------------------ dat_evd_post_se

    @Test
    void evdPostSeQueuesACopyOfTheEvent()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final DatEvent posted = software("first");
            evd.postSe(posted);
            // the consumer may reuse its event structure at once
            posted.software.pointer = "second";
            evd.postSe(posted);
            final DatEvent ev = new DatEvent();
            evd.dequeue(ev);
            assertEquals(EventNumber.SOFTWARE_EVENT.value(), ev.eventNumber);
            assertEquals("first", ev.software.pointer);
            evd.dequeue(ev);
            assertEquals("second", ev.software.pointer);
        }
    }

    @Test
    void evdPostSeOnAFullQueueIsQueueFullAndNotAnOverflow()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(2, EvdFlags.SOFTWARE_FLAG);
            assertEquals(DatStatus.SUCCESS, evd.postSe(software(1)));
            assertEquals(DatStatus.SUCCESS, evd.postSe(software(2)));
            assertSame(DatStatus.QUEUE_FULL, evd.postSe(software(3)));
            assertEquals(0x800E0000, evd.postSe(software(3)).value());
            // no overflow: the async EVD is told nothing and the EVD still waits normally
            assertEquals(DatStatus.QUEUE_EMPTY, f.asyncEvd.dequeue(new DatEvent()));
            final DatEvent ev = new DatEvent();
            final DatCount nmore = new DatCount();
            assertEquals(DatStatus.SUCCESS, evd.wait(0, 2, ev, nmore));
            assertEquals(1, ev.software.pointer);
            assertEquals(1, nmore.value);
        }
    }

    @Test
    void evdPostSeOfABadEventIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            expect(DatReturnType.INVALID_PARAMETER, () -> evd.postSe(null));
            final DatEvent notSoftware = new DatEvent();
            notSoftware.eventNumber = EventNumber.DTO_COMPLETION_EVENT.value();
            expect(DatReturnType.INVALID_PARAMETER, () -> evd.postSe(notSoftware));
            // an EVD made without DAT_EVD_SOFTWARE_FLAG takes no software events
            final EventDispatcher dto = f.evd(8, EvdFlags.DEFAULT_FLAG);
            expect(DatReturnType.INVALID_PARAMETER, () -> dto.postSe(software(1)));
            assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(new DatEvent()));
            assertEquals(DatStatus.QUEUE_EMPTY, dto.dequeue(new DatEvent()));
        }
    }

    @Test
    void evdPostSeOnAFreedEvdIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, () -> evd.postSe(software(1)));
        }
    }

    // ------------------------------------------------------------------ dat_evd_enable / dat_evd_disable

    @Test
    void evdDisableStopsCnoNotificationAndEnableRestoresIt()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher evd = f.ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
            final DatOut<EventDispatcher> hint = new DatOut<>();
            evd.disable();
            // disabling twice is a no-op
            evd.disable();
            evd.postSe(software(1));
            assertEquals(DatStatus.QUEUE_EMPTY, cno.wait(20_000, hint));
            assertNull(hint.value);
            // events kept queuing while disabled
            assertEquals(EvdState.DISABLED, query(evd).evdState & (EvdState.ENABLED | EvdState.DISABLED));
            evd.enable();
            evd.enable();
            assertEquals(DatStatus.SUCCESS, cno.wait(SECOND, hint));
            assertSame(evd, hint.value);
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
            assertEquals(1, ev.software.pointer);
        }
    }

    @Test
    void evdEnableWakesACnoWaiterWhenEventsArrivedWhileDisabled()
    {
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher evd = f.ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
            evd.disable();
            evd.postSe(software(1));
            final DatOut<EventDispatcher> hint = new DatOut<>();
            final CompletableFuture<DatStatus> waiter = CompletableFuture.supplyAsync(() -> cno.wait(5 * SECOND, hint),
                Fixture.THREADS);
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException e)
            {
                throw new AssertionError(e);
            }
            evd.enable();
            assertEquals(DatStatus.SUCCESS, waiter.join());
            assertSame(evd, hint.value);
        }
    }

    @Test
    void evdEnableAndDisableOfAFreedEvdAreInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, evd::enable);
            expect(DatReturnType.INVALID_HANDLE, evd::disable);
        }
    }

    // ------------------------------------------------------------------ dat_evd_set_unwaitable / clear

    @Test
    void evdClearUnwaitableAllowsWaitingAgain()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.postSe(software(1));
            evd.setUnwaitable();
            evd.setUnwaitable();
            expect(DatReturnType.INVALID_STATE, () -> evd.wait(0, 1, new DatEvent(), new DatCount()));
            evd.clearUnwaitable();
            evd.clearUnwaitable();
            assertEquals(EvdState.WAITABLE, query(evd).evdState & (EvdState.WAITABLE | EvdState.UNWAITABLE));
            assertEquals(DatStatus.SUCCESS, evd.wait(0, 1, new DatEvent(), new DatCount()));
        }
    }

    @Test
    void evdUnwaitableStillTriggersTheCno()
    {
        // trap T-33
        try (Fixture f = new Fixture())
        {
            final Cno cno = f.ia.cnoCreate(null);
            final EventDispatcher evd = f.ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
            evd.setUnwaitable();
            evd.postSe(software(1));
            final DatOut<EventDispatcher> hint = new DatOut<>();
            assertEquals(DatStatus.SUCCESS, cno.wait(SECOND, hint));
            assertSame(evd, hint.value);
        }
    }

    @Test
    void evdSetAndClearUnwaitableOfAFreedEvdAreInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, evd::setUnwaitable);
            expect(DatReturnType.INVALID_HANDLE, evd::clearUnwaitable);
        }
    }

    // ------------------------------------------------------------------ dat_evd_modify_cno

    @Test
    void evdModifyCnoAttachesReplacesAndDetaches()
    {
        try (Fixture f = new Fixture())
        {
            final Cno first = f.ia.cnoCreate(null);
            final Cno second = f.ia.cnoCreate(null);
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.modifyCno(first);
            assertSame(first, query(evd).cnoHandle);
            expect(DatReturnType.INVALID_STATE, first::free);
            evd.modifyCno(second);
            assertSame(second, query(evd).cnoHandle);
            // the old CNO is no longer referenced
            first.free();
            evd.postSe(software(1));
            final DatOut<EventDispatcher> hint = new DatOut<>();
            assertEquals(DatStatus.SUCCESS, second.wait(SECOND, hint));
            assertSame(evd, hint.value);
            evd.modifyCno(null);
            assertNull(query(evd).cnoHandle);
            second.free();
        }
    }

    @Test
    void evdModifyCnoWithABadEvdOrCnoIsInvalidHandle()
    {
        try (Fixture f = new Fixture(); Fixture g = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final Cno freed = f.ia.cnoCreate(null);
            freed.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CNO,
                expect(DatReturnType.INVALID_HANDLE, () -> evd.modifyCno(freed)).subtype());
            final Cno foreign = g.ia.cnoCreate(null);
            expect(DatReturnType.INVALID_HANDLE, () -> evd.modifyCno(foreign));
            assertNull(query(evd).cnoHandle);
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, () -> evd.modifyCno(null));
        }
    }

    // ------------------------------------------------------------------ dat_evd_resize

    @Test
    void evdResizeKeepsEveryQueuedEventInOrder()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            final DatEvent ev = new DatEvent();
            // wrap the ring first
            evd.postSe(software(-2));
            evd.postSe(software(-1));
            evd.dequeue(ev);
            evd.dequeue(ev);
            for (int i = 0; i < 4; i++)
            {
                evd.postSe(software(i));
            }
            evd.resize(10);
            assertEquals(10, query(evd).evdQlen);
            for (int i = 4; i < 10; i++)
            {
                assertEquals(DatStatus.SUCCESS, evd.postSe(software(i)));
            }
            assertEquals(DatStatus.QUEUE_FULL, evd.postSe(software(10)));
            for (int i = 0; i < 5; i++)
            {
                evd.dequeue(ev);
                assertEquals(i, ev.software.pointer);
            }
            evd.resize(5);
            assertEquals(5, query(evd).evdQlen);
            for (int i = 5; i < 10; i++)
            {
                evd.dequeue(ev);
                assertEquals(i, ev.software.pointer);
            }
            assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(ev));
            // the async EVD may be resized too
            f.asyncEvd.resize(128);
            assertEquals(128, query(f.asyncEvd).evdQlen);
        }
    }

    @Test
    void evdResizeKeepsQueuedDtoCompletionsWhole()
    {
        // a DTO completion's cookie and length live apart from the rest of its record: a resize
        // (up, then down to the queued count) must carry both, with the endpoint and the status
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(new EpAttr());
            final Fixture.Ep a = p[0];
            final Fixture.Ep b = p[1];
            final io.jdat.Lmr lmr = f.lmr(4096);
            final int sends = 5;
            for (int i = 0; i < sends; i++)
            {
                b.ep().postRecv(1, new io.jdat.LmrTriplet[] {io.jdat.LmrTriplet.of(lmr, i * 64, 64)}, 100 + i, 0);
            }
            for (int i = 0; i < sends; i++)
            {
                a.ep().postSend(1, new io.jdat.LmrTriplet[] {io.jdat.LmrTriplet.of(lmr, 2048, 8 + i)}, i + 1, 0);
                assertEquals(io.jdat.DtoStatus.SUCCESS, Fixture.next(a.req()).dto.status);
            }
            b.recv().resize(300);
            b.recv().resize(sends);
            assertEquals(sends, query(b.recv()).evdQlen);
            final DatEvent ev = new DatEvent();
            for (int i = 0; i < sends; i++)
            {
                assertEquals(DatStatus.SUCCESS, b.recv().dequeue(ev));
                assertEquals(EventNumber.DTO_COMPLETION_EVENT, ev.number(), ev::toString);
                assertSame(b.ep(), ev.dto.epHandle, ev::toString);
                assertEquals(io.jdat.DtoStatus.SUCCESS, ev.dto.status, ev::toString);
                assertEquals(100 + i, ev.dto.userCookie, ev::toString);
                assertEquals(8 + i, ev.dto.transferredLength, ev::toString);
            }
            assertEquals(DatStatus.QUEUE_EMPTY, b.recv().dequeue(ev));
        }
    }

    @Test
    void evdResizeToABadLengthIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_evd_qlen=64")))
        {
            final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
            // digest §2.6 [INF]: <= 0 or > max_evd_qlen is a bad length
            for (final int qlen : new int[] {0, -3, 65})
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> evd.resize(qlen));
            }
            assertEquals(4, query(evd).evdQlen);
            evd.resize(64);
        }
    }

    @Test
    void evdResizeBelowTheQueuedCountIsInvalidStateAndChangesNothing()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            for (int i = 0; i < 3; i++)
            {
                evd.postSe(software(i));
            }
            expect(DatReturnType.INVALID_STATE, () -> evd.resize(2));
            assertEquals(8, query(evd).evdQlen);
            evd.resize(3);
            final DatEvent ev = new DatEvent();
            for (int i = 0; i < 3; i++)
            {
                evd.dequeue(ev);
                assertEquals(i, ev.software.pointer);
            }
        }
    }

    @Test
    void evdResizeBelowAWaitersThresholdIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            final Thread[] waiting = new Thread[1];
            final CompletableFuture<DatStatus> waiter = CompletableFuture.supplyAsync(() ->
            {
                waiting[0] = Thread.currentThread();
                return evd.wait(5 * SECOND, 6, new DatEvent(), new DatCount());
            }, Fixture.THREADS);
            while (waiting[0] == null)
            {
                Thread.onSpinWait();
            }
            awaitBlocked(waiting[0]);
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                expect(DatReturnType.INVALID_STATE, () -> evd.resize(5)).subtype());
            for (int i = 0; i < 6; i++)
            {
                evd.postSe(software(i));
            }
            assertEquals(DatStatus.SUCCESS, waiter.join());
        }
    }

    @Test
    void evdResizeOfAFreedEvdIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            evd.free();
            expect(DatReturnType.INVALID_HANDLE, () -> evd.resize(16));
        }
    }
}

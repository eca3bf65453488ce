package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Connecting.connection;
import static io.jdat.conformance.Connecting.request;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.AsyncErrorReason;
import io.jdat.CloseFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RegionDescription;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;
import io.jdat.SrqState;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_srq_create}, {@code dat_srq_free}, {@code dat_srq_post_recv}, {@code dat_srq_query},
 * {@code dat_srq_resize} and {@code dat_srq_set_lw} (digest §2.10, §4.6, traps T-27, T-28): every
 * documented return code, the buffer counts of {@code dat_srq_query}'s worked example, and the
 * low watermark event. The seed man page's rules for {@code dat_srq_create} are in
 * {@link SeedSrqCreateTest}.
 *
 * <p>Codes that cannot arise here:
 * <ul>
 *   <li>{@code DAT_MODEL_NOT_SUPPORTED} ({@code dat_srq_create}, {@code dat_srq_set_lw}): the
 *       engine reports {@code srq_supported} and {@code srq_watermarks_supported} and implements
 *       both.</li>
 *   <li>{@code dat_srq_resize} {@code DAT_INSUFFICIENT_RESOURCES}: buffer records are plain heap
 *       objects, and a size beyond {@code max_recv_per_srq} is a bad parameter (digest §2.10
 *       [INF]); only an {@code OutOfMemoryError} could stand for it.</li>
 *   <li>{@code DAT_INVALID_HANDLE} for a handle of another type: refused by Java's types; freed
 *       SRQs, PZs and IAs are the cases that remain.</li>
 * </ul>
 */
class SrqTest
{
    private static final int LEN = 64;

    static SrqParam query(final SharedReceiveQueue srq)
    {
        final SrqParam p = new SrqParam();
        srq.query(SrqParam.FIELD_ALL, p);
        return p;
    }

    /** An endpoint of {@code srq} with its own recv, request and connect EVDs. */
    static Fixture.Ep srqEp(final Fixture f, final SharedReceiveQueue srq)
    {
        final EventDispatcher recv = f.evd(64, EvdFlags.DTO_FLAG);
        final EventDispatcher req = f.evd(64, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
        return new Fixture.Ep(f.ia.epCreateWithSrq(f.pz, recv, req, conn, srq, new EpAttr()), recv, req, conn);
    }

    /** Connects a new client endpoint to {@code server}; returns the client. */
    static Fixture.Ep connectTo(final Fixture f, final Fixture.Ep server)
    {
        final Fixture.Ep client = f.ep(null);
        final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        Connecting.connect(f, client, psp.connQual(), null);
        request(crEvd).crArrival.crHandle.accept(server.ep(), null);
        connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
        crEvd.free();
        return client;
    }

    /** Sends {@code value} (8 bytes) from {@code client} and waits for the send's completion. */
    static void send(final Fixture f, final Fixture.Ep client, final long value)
    {
        final MemorySegment m = f.memory(8);
        m.set(ValueLayout.JAVA_LONG, 0, value);
        final Lmr lmr = f.lmr(m, MemPriv.ALL_FLAG);
        client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 8)}, value, 0);
        final DatEvent ev = Connecting.event(client.req(), EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(DtoStatus.SUCCESS, ev.dto.status);
        lmr.free();
    }

    private static LmrTriplet[] buffer(final Lmr lmr, final int slot)
    {
        return new LmrTriplet[] {LmrTriplet.of(lmr, (long) slot * LEN, LEN)};
    }

    private static void post(final SharedReceiveQueue srq, final Lmr lmr, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            srq.postRecv(1, buffer(lmr, i), 100 + i);
        }
    }

    // ------------------------------------------------------------------ dat_srq_create

    @Test
    void srqCreateMakesAnOperationalEmptyQueue()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(8, 2));
            final SrqParam p = query(srq);
            assertSame(f.ia, p.iaHandle);
            assertSame(f.pz, p.pzHandle);
            assertEquals(SrqState.OPERATIONAL, p.srqState);
            assertTrue(p.maxRecvDtos >= 8);
            assertTrue(p.maxRecvIov >= 2);
            assertEquals(0, p.lowWatermark);
            assertEquals(0, p.availableDtoCount);
            assertEquals(0, p.outstandingDtoCount);
            // it holds a reference on its PZ
            expect(DatReturnType.INVALID_STATE, f.pz::free);
        }
    }

    @Test
    void srqCreateBeyondMaxSrqsIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_srqs=1")))
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> f.ia.srqCreate(f.pz, new SrqAttr(4, 1)));
            assertEquals(DatReturnSubtype.RESOURCE_SRQ, e.subtype());
            srq.free();
            f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
        }
    }

    @Test
    void srqCreateWithABadIaOrPzIsInvalidHandle()
    {
        try (Fixture f = new Fixture(); Fixture g = new Fixture())
        {
            final ProtectionZone freed = f.ia.pzCreate();
            freed.free();
            for (final ProtectionZone bad : new ProtectionZone[] {null, freed, g.pz})
            {
                assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ, expect(DatReturnType.INVALID_HANDLE,
                    () -> f.ia.srqCreate(bad, new SrqAttr(4, 1))).subtype());
            }
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.srqCreate(f.pz, new SrqAttr(4, 1))).subtype());
        }
    }

    @Test
    void srqCreateWithBadAttributesIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_recv_per_srq=32 max_iov=4")))
        {
            final SrqAttr armed = new SrqAttr(4, 1);
            armed.lowWatermark = 2;
            final SrqAttr[] bad = {null, new SrqAttr(0, 1), new SrqAttr(-1, 1), new SrqAttr(33, 1),
                new SrqAttr(4, 5), new SrqAttr(4, -1), armed};
            for (final SrqAttr attr : bad)
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.srqCreate(f.pz, attr));
            }
            // nothing was created: the PZ is unused
            f.ia.srqCreate(f.pz, new SrqAttr(32, 4)).free();
            f.pz.free();
        }
    }

    // ------------------------------------------------------------------ dat_srq_free

    @Test
    void srqFreeDestroysTheQueueAndReleasesItsPz()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Lmr lmr = f.lmr(4 * LEN);
            post(srq, lmr, 2);
            srq.free();
            expect(DatReturnType.INVALID_HANDLE, () -> query(srq));
            // the buffers it held are let go: the LMR and then the PZ can be freed
            lmr.free();
            f.pz.free();
        }
    }

    @Test
    void srqFreeWhileAnEndpointUsesItIsInvalidState()
    {
        // trap T-27: DAT_INVALID_STATE with DAT_INVALID_STATE_SRQ_IN_USE
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Fixture.Ep a = srqEp(f, srq);
            final Fixture.Ep b = srqEp(f, srq);
            final DatException e = expect(DatReturnType.INVALID_STATE, srq::free);
            assertEquals(DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, e.subtype());
            a.ep().free();
            expect(DatReturnType.INVALID_STATE, srq::free);
            b.ep().free();
            srq.free();
        }
    }

    @Test
    void srqFreeOfAFreedSrqIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            srq.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_SRQ,
                expect(DatReturnType.INVALID_HANDLE, srq::free).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_srq_post_recv

    @Test
    void srqPostRecvBufferIsTakenByAConnectedEndpointAndCompletesOnItsRecvEvd()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final MemorySegment m = f.memory(4 * LEN);
            final Lmr lmr = f.lmr(m, MemPriv.ALL_FLAG);
            final Fixture.Ep server = srqEp(f, srq);
            // a buffer posted before the connection is waiting on the SRQ, not on the endpoint
            srq.postRecv(1, buffer(lmr, 0), 7);
            final Fixture.Ep client = connectTo(f, server);
            send(f, client, 0x1122334455667788L);
            final DatEvent ev = Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertSame(server.ep(), ev.dto.epHandle);
            assertEquals(7, ev.dto.userCookie);
            assertEquals(DtoStatus.SUCCESS, ev.dto.status);
            assertEquals(8, ev.dto.transferredLength);
            assertEquals(0x1122334455667788L, m.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    void srqPostRecvOnAFullSrqIsInsufficientResources()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(3, 1));
            final int capacity = query(srq).maxRecvDtos;
            final Lmr lmr = f.lmr((capacity + 1) * LEN);
            post(srq, lmr, capacity);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> srq.postRecv(1, buffer(lmr, capacity), 0));
            assertEquals(capacity, query(srq).availableDtoCount);
        }
    }

    @Test
    void srqPostRecvCountsBuffersWhoseCompletionsAreNotReapedAgainstTheSize()
    {
        // dat_srq_resize(3DAT): the SRQ holds a buffer until its completion is reaped
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(2, 1));
            final int capacity = query(srq).maxRecvDtos;
            final Lmr lmr = f.lmr((capacity + 1) * LEN);
            post(srq, lmr, capacity);
            final Fixture.Ep server = srqEp(f, srq);
            final Fixture.Ep client = connectTo(f, server);
            for (int i = 0; i < capacity; i++)
            {
                send(f, client, i);
            }
            SrqParam p = query(srq);
            assertEquals(0, p.availableDtoCount);
            assertEquals(capacity, p.outstandingDtoCount);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> srq.postRecv(1, buffer(lmr, capacity), 0));
            // the size still holds what is outstanding
            srq.resize(capacity);
            // reaping one completion makes room for one buffer
            Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
            srq.postRecv(1, buffer(lmr, capacity), 0);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> srq.postRecv(1, buffer(lmr, 0), 0));
            p = query(srq);
            assertEquals(1, p.availableDtoCount);
            assertEquals(capacity, p.outstandingDtoCount);
        }
    }

    @Test
    void srqCompletionsDroppedWithTheirEvdAreNoLongerOutstanding()
    {
        // freeing the recv EVD loses its queued completions: their buffers are no longer outstanding
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(2, 1));
            final Lmr lmr = f.lmr(2 * LEN);
            post(srq, lmr, 2);
            final Fixture.Ep server = srqEp(f, srq);
            final Fixture.Ep client = connectTo(f, server);
            send(f, client, 1);
            send(f, client, 2);
            assertEquals(2, query(srq).outstandingDtoCount);
            server.ep().free();
            server.recv().free();
            assertEquals(0, query(srq).outstandingDtoCount);
            post(srq, lmr, 2);
            assertEquals(2, query(srq).availableDtoCount);
        }
    }

    @Test
    void srqPostRecvWithBadSegmentsIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 2));
            final int maxIov = query(srq).maxRecvIov;
            final Lmr lmr = f.lmr(LEN);
            final LmrTriplet inside = LmrTriplet.of(lmr, 0, LEN);
            final LmrTriplet[] many = new LmrTriplet[maxIov + 1];
            java.util.Arrays.fill(many, inside);
            // outside the LMR, too many segments, a negative count, fewer triplets than the count
            expect(DatReturnType.INVALID_PARAMETER, () ->
                srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 1, LEN)}, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> srq.postRecv(maxIov + 1, many, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> srq.postRecv(-1, many, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> srq.postRecv(2, new LmrTriplet[] {inside}, 0));
            final SrqParam p = query(srq);
            assertEquals(0, p.availableDtoCount);
            assertEquals(0, p.outstandingDtoCount);
            // zero segments is a buffer for a zero-length message
            srq.postRecv(0, null, 1);
            assertEquals(1, query(srq).availableDtoCount);
        }
    }

    @Test
    void srqPostRecvWithAnLmrOfAnotherPzIsProtectionViolation()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final ProtectionZone other = f.ia.pzCreate();
            final MemorySegment m = f.memory(LEN);
            final Lmr lmr = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), LEN, other, MemPriv.ALL_FLAG);
            final DatException e = expect(DatReturnType.PROTECTION_VIOLATION,
                () -> srq.postRecv(1, buffer(lmr, 0), 0));
            assertEquals(DatReturnSubtype.PROTECTION_WRITE, e.subtype());
            assertEquals(0, query(srq).outstandingDtoCount);
        }
    }

    @Test
    void srqPostRecvIntoMemoryWithoutLocalWriteOrAStaleContextIsPrivilegesViolation()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Lmr readOnly = f.lmr(f.memory(LEN), MemPriv.LOCAL_READ_FLAG | MemPriv.REMOTE_READ_FLAG);
            assertEquals(DatReturnSubtype.PRIVILEGES_WRITE, expect(DatReturnType.PRIVILEGES_VIOLATION,
                () -> srq.postRecv(1, buffer(readOnly, 0), 0)).subtype());
            final Lmr gone = f.lmr(LEN);
            final LmrTriplet[] stale = buffer(gone, 0);
            gone.free();
            expect(DatReturnType.PRIVILEGES_VIOLATION, () -> srq.postRecv(1, stale, 0));
            assertEquals(0, query(srq).availableDtoCount);
        }
    }

    @Test
    void srqPostRecvOnAFreedSrqIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Lmr lmr = f.lmr(LEN);
            srq.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_SRQ,
                expect(DatReturnType.INVALID_HANDLE, () -> srq.postRecv(1, buffer(lmr, 0), 0)).subtype());
        }
    }

    @Test
    void srqBuffersLeftOnTheSrqSurviveADisconnect()
    {
        // dat_srq_post_recv(3DAT): only buffers an endpoint took complete on its disconnect
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Lmr lmr = f.lmr(4 * LEN);
            final Fixture.Ep server = srqEp(f, srq);
            post(srq, lmr, 3);
            final Fixture.Ep client = connectTo(f, server);
            send(f, client, 1);
            Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
            server.ep().disconnect(CloseFlags.ABRUPT_FLAG);
            connection(server, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEmpty(server.recv());
            final SrqParam p = query(srq);
            assertEquals(2, p.availableDtoCount);
            assertEquals(2, p.outstandingDtoCount);
        }
    }

    // ------------------------------------------------------------------ dat_srq_query

    @Test
    void srqQueryCountsAvailableAndOutstandingBuffersAsTheManPageExample()
    {
        // dat_srq_query(3DAT): 3 posted -> 3/3; a Send arrives -> 2/3; its completion reaped -> 2/2
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(10, 1));
            final Lmr lmr = f.lmr(4 * LEN);
            final Fixture.Ep server = srqEp(f, srq);
            post(srq, lmr, 3);
            SrqParam p = query(srq);
            assertEquals(3, p.availableDtoCount);
            assertEquals(3, p.outstandingDtoCount);
            final Fixture.Ep client = connectTo(f, server);
            send(f, client, 1);
            p = query(srq);
            assertEquals(2, p.availableDtoCount);
            assertEquals(3, p.outstandingDtoCount);
            Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
            p = query(srq);
            assertEquals(2, p.availableDtoCount);
            assertEquals(2, p.outstandingDtoCount);
            final SrqParam one = new SrqParam();
            srq.query(SrqParam.FIELD_AVAILABLE_DTO_COUNT, one);
            assertEquals(2, one.availableDtoCount);
        }
    }

    @Test
    void srqQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            expect(DatReturnType.INVALID_PARAMETER, () -> srq.query(SrqParam.FIELD_ALL, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> srq.query(0x100, new SrqParam()));
        }
    }

    @Test
    void srqQueryOfAFreedSrqIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            srq.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_SRQ,
                expect(DatReturnType.INVALID_HANDLE, () -> srq.query(SrqParam.FIELD_ALL, new SrqParam())).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_srq_resize

    @Test
    void srqResizeKeepsEveryBufferAndChangesTheCapacity()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(2, 1));
            final Lmr lmr = f.lmr(6 * LEN);
            post(srq, lmr, 2);
            srq.resize(6);
            assertTrue(query(srq).maxRecvDtos >= 6);
            for (int i = 2; i < 6; i++)
            {
                srq.postRecv(1, buffer(lmr, i), 100 + i);
            }
            assertEquals(6, query(srq).availableDtoCount);
            // every buffer, old and new, is still there to receive
            final Fixture.Ep server = srqEp(f, srq);
            final Fixture.Ep client = connectTo(f, server);
            final java.util.Set<Long> cookies = new java.util.HashSet<>();
            for (int i = 0; i < 6; i++)
            {
                send(f, client, i);
                cookies.add(Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT).dto.userCookie);
            }
            assertEquals(java.util.Set.of(100L, 101L, 102L, 103L, 104L, 105L), cookies);
            // shrinking an empty SRQ
            srq.resize(1);
            srq.postRecv(1, buffer(lmr, 0), 1);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> srq.postRecv(1, buffer(lmr, 1), 2));
        }
    }

    @Test
    void srqResizeBelowTheOutstandingCountOrTheLowWatermarkIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(8, 1));
            final Lmr lmr = f.lmr(8 * LEN);
            post(srq, lmr, 4);
            expect(DatReturnType.INVALID_STATE, () -> srq.resize(3));
            assertEquals(8, query(srq).maxRecvDtos);
            srq.resize(4);
            srq.resize(8);
            srq.setLw(6);
            expect(DatReturnType.INVALID_STATE, () -> srq.resize(5));
            assertEquals(8, query(srq).maxRecvDtos);
            assertEquals(4, query(srq).availableDtoCount);
        }
    }

    @Test
    void srqResizeToABadSizeIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_recv_per_srq=16")))
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            for (final int size : new int[] {0, -1, 17})
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> srq.resize(size));
            }
            assertEquals(4, query(srq).maxRecvDtos);
            srq.resize(16);
        }
    }

    @Test
    void srqResizeOfAFreedSrqIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            srq.free();
            expect(DatReturnType.INVALID_HANDLE, () -> srq.resize(8));
        }
    }

    // ------------------------------------------------------------------ dat_srq_set_lw

    @Test
    void srqSetLwSendsOneAsyncEventWhenTheAvailableCountFallsBelowIt()
    {
        // digest §4.6: jdat's JDAT_ASYNC_SRQ_LOW_WATERMARK on the async EVD, reason SRQ_LOW_WATERMARK_EVENT
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(8, 1));
            final Lmr lmr = f.lmr(8 * LEN);
            post(srq, lmr, 4);
            srq.setLw(3);
            assertEquals(3, query(srq).lowWatermark);
            assertEmpty(f.asyncEvd);
            final Fixture.Ep server = srqEp(f, srq);
            final Fixture.Ep client = connectTo(f, server);
            // 4 -> 3 available: not below 3
            send(f, client, 1);
            assertEmpty(f.asyncEvd);
            // 3 -> 2: below
            send(f, client, 2);
            final DatEvent ev = Connecting.event(f.asyncEvd, EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK);
            assertSame(srq, ev.asyncError.datHandle);
            assertEquals(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT, ev.asyncError.reason);
            // once per setting
            send(f, client, 3);
            assertEmpty(f.asyncEvd);
            // replenish and re-arm
            post(srq, lmr, 4);
            srq.setLw(3);
            assertEmpty(f.asyncEvd);
            send(f, client, 4);
            send(f, client, 5);
            send(f, client, 6);
            Connecting.event(f.asyncEvd, EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK);
        }
    }

    @Test
    void srqSetLwAboveTheAvailableCountFiresAtOnce()
    {
        // trap T-28: fire immediately iff the available count is already below the new watermark
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(8, 1));
            final Lmr lmr = f.lmr(8 * LEN);
            post(srq, lmr, 2);
            srq.setLw(2);
            assertEmpty(f.asyncEvd);
            srq.setLw(3);
            assertSame(srq,
                Connecting.event(f.asyncEvd, EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK).asyncError.datHandle);
            assertEmpty(f.asyncEvd);
            // DAT_SRQ_LW_DEFAULT disarms
            srq.setLw(0);
            assertEquals(0, query(srq).lowWatermark);
            assertEmpty(f.asyncEvd);
        }
    }

    @Test
    void srqSetLwAboveMaxRecvDtosIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final int max = query(srq).maxRecvDtos;
            expect(DatReturnType.INVALID_PARAMETER, () -> srq.setLw(max + 1));
            expect(DatReturnType.INVALID_PARAMETER, () -> srq.setLw(-1));
            assertEquals(0, query(srq).lowWatermark);
            assertEmpty(f.asyncEvd);
            srq.setLw(max);
        }
    }

    @Test
    void srqSetLwOfAFreedSrqIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            srq.free();
            expect(DatReturnType.INVALID_HANDLE, () -> srq.setLw(1));
        }
    }

    @Test
    void srqEndpointsShareTheBuffersAndEachCompletesOnItsOwnRecvEvd()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Lmr lmr = f.lmr(4 * LEN);
            post(srq, lmr, 2);
            final Fixture.Ep a = srqEp(f, srq);
            final Fixture.Ep b = srqEp(f, srq);
            final Fixture.Ep toA = connectTo(f, a);
            final Fixture.Ep toB = connectTo(f, b);
            send(f, toA, 1);
            send(f, toB, 2);
            final DatEvent ea = Connecting.event(a.recv(), EventNumber.DTO_COMPLETION_EVENT);
            final DatEvent eb = Connecting.event(b.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertSame(a.ep(), ea.dto.epHandle);
            assertSame(b.ep(), eb.dto.epHandle);
            assertEquals(java.util.Set.of(100L, 101L), java.util.Set.of(ea.dto.userCookie, eb.dto.userCookie));
            assertEquals(0, query(srq).outstandingDtoCount);
            assertSame(srq, epSrq(a.ep()));
            assertSame(srq, epSrq(b.ep()));
        }
    }

    private static SharedReceiveQueue epSrq(final Endpoint ep)
    {
        final io.jdat.EpParam p = new io.jdat.EpParam();
        ep.query(io.jdat.EpParam.FIELD_SRQ_HANDLE, p);
        return p.srqHandle;
    }

    // ------------------------------------------------------------------ reposting at once

    @Test
    void aFullSrqTakesARepostAsSoonAsTheCompletionIsDequeued() throws Exception
    {
        // every buffer posted; a sender on another thread keeps all of them busy, and the consumer
        // reposts each buffer the moment its completion is dequeued: that must always succeed
        final int messages = 3000;
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(2, 1));
            final int capacity = query(srq).maxRecvDtos;
            final Lmr lmr = f.lmr(f.memory((long) capacity * LEN), MemPriv.ALL_FLAG);
            post(srq, lmr, capacity);
            final Fixture.Ep server = srqEp(f, srq);
            final Fixture.Ep client = connectTo(f, server);
            final Lmr src = f.lmr(f.memory(8), MemPriv.ALL_FLAG);
            final java.util.concurrent.Semaphore credits = new java.util.concurrent.Semaphore(capacity);
            final java.util.concurrent.CompletableFuture<Void> sender = java.util.concurrent.CompletableFuture.runAsync(
                () ->
                {
                    for (int i = 0; i < messages; i++)
                    {
                        credits.acquireUninterruptibly();
                        client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, 0, 8)}, i,
                            io.jdat.CompletionFlags.SUPPRESS_FLAG);
                    }
                }, Fixture.THREADS);
            for (int i = 0; i < messages; i++)
            {
                final DatEvent ev = Fixture.next(server.recv());
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
                final int slot = (int) ev.dto.userCookie - 100;
                srq.postRecv(1, buffer(lmr, slot), 100 + slot);
                credits.release();
            }
            sender.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(capacity, query(srq).availableDtoCount, "every buffer is posted again");
        }
    }
}

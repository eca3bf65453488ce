package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Connecting.connection;
import static io.jdat.conformance.Connecting.request;
import static io.jdat.conformance.Connecting.state;
import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EpStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.ReservedServicePoint;
import io.jdat.Rmr;
import io.jdat.RmrTriplet;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of the seed man page {@code dat_ep_create(3DAT)} (seed 002), one test per rule, each
 * named after its rule. {@link EpTest} has every return code of the sixteen {@code dat_ep_*}
 * calls.
 *
 * <p>Not tested, because they advise the consumer rather than require anything of the provider:
 * that a consumer should not rely on provider defaults in portable code, and should check that
 * the number of posted operations cannot overflow its EVDs.
 */
class SeedEpCreateTest
{
    private static final int LEN = 64;

    private static LmrTriplet[] iov(final Lmr lmr, final long offset, final long length)
    {
        return new LmrTriplet[] {LmrTriplet.of(lmr, offset, length)};
    }

    private static RmrTriplet remote(final Lmr lmr, final long offset, final long length)
    {
        return new RmrTriplet(lmr.rmrContext(), lmr.registeredAddress() + offset, length);
    }

    private static DatEvent dto(final EventDispatcher evd, final long cookie, final DtoStatus status)
    {
        final DatEvent ev = Connecting.event(evd, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(cookie, ev.dto.userCookie, ev::toString);
        assertEquals(status, ev.dto.status, ev::toString);
        return ev;
    }

    private static Lmr lmrIn(final Fixture f, final ProtectionZone pz)
    {
        return f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(f.memory(LEN)), LEN, pz, MemPriv.ALL_FLAG);
    }

    private static EpAttr attr(final java.util.function.Consumer<EpAttr> change)
    {
        final EpAttr a = new EpAttr();
        change.accept(a);
        return a;
    }

    // ------------------------------------------------------------------ DESCRIPTION

    @Test
    void epCreateReturnsTheHandleOfANewEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint a = f.ia.epCreate(f.pz, null, null, null, null);
            final Endpoint b = f.ia.epCreate(f.pz, null, null, null, null);
            assertNotSame(a, b);
            assertEquals(HandleType.EP, a.handleType());
            final EpParam p = new EpParam();
            a.query(EpParam.FIELD_IA_HANDLE, p);
            assertSame(f.ia, p.iaHandle);
        }
    }

    @Test
    void epHandleIsUndefinedOnFailureAndNothingIsCreated()
    {
        // the failed call holds no PZ or EVD and takes no place under max_eps
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_eps=1")))
        {
            final EventDispatcher recv = f.evd(4, EvdFlags.DTO_FLAG);
            expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreate(f.pz, recv, null, null, attr(a -> a.maxRecvDtos = -1)));
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> f.ia.epCreate(f.pz, recv, null, null, attr(a -> a.serviceType = 3)));
            recv.free();
            final ProtectionZone pz = f.ia.pzCreate();
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(pz, f.evd(4, EvdFlags.CR_FLAG), null, null, null));
            pz.free();
            f.ia.epCreate(f.pz, null, null, null, null);
        }
    }

    @Test
    void endpointIsCreatedInTheUnconnectedState()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep ep = f.ep(new EpAttr());
            assertEquals(EpState.UNCONNECTED, state(ep.ep()));
            final EpStatus st = new EpStatus();
            ep.ep().getStatus(st);
            assertEquals(EpState.UNCONNECTED, st.epState);
            assertTrue(st.recvIdle);
            assertTrue(st.requestIdle);
        }
    }

    @Test
    void endpointDtosAccessOnlyLocalMemoryOfTheEndpointPz()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr mine = f.lmr(LEN);
            final Lmr foreign = lmrIn(f, f.ia.pzCreate());
            final Endpoint ep = p[0].ep();
            expect(DatReturnType.PROTECTION_VIOLATION, () -> ep.postRecv(1, iov(foreign, 0, 8), 1, 0));
            expect(DatReturnType.PROTECTION_VIOLATION, () -> ep.postSend(1, iov(foreign, 0, 8), 1, 0));
            expect(DatReturnType.PROTECTION_VIOLATION,
                () -> ep.postRdmaWrite(1, iov(foreign, 0, 8), 1, remote(mine, 0, 8), 0));
            expect(DatReturnType.PROTECTION_VIOLATION,
                () -> ep.postRdmaRead(1, iov(foreign, 0, 8), 1, remote(mine, 0, 8), 0));
            // the same posts with memory of its own PZ go through
            p[1].ep().postRecv(1, iov(mine, 0, 8), 2, 0);
            ep.postSend(1, iov(mine, 8, 8), 3, 0);
            dto(p[0].req(), 3, DtoStatus.SUCCESS);
            dto(p[1].recv(), 2, DtoStatus.SUCCESS);
        }
    }

    @Test
    void remoteRdmaOverTheConnectionReachesOnlyMemoryOfTheEndpointPz()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr local = f.lmr(LEN);
            local.memory().fill((byte) 7);
            // registered with every right, but in another PZ than the target endpoint
            final Lmr foreign = lmrIn(f, f.ia.pzCreate());
            assertTrue(foreign.rmrContext() != 0);
            p[0].ep().postRdmaWrite(1, iov(local, 0, 8), 1, remote(foreign, 0, 8), 0);
            dto(p[0].req(), 1, DtoStatus.ERR_REMOTE_ACCESS);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            assertArrayEquals(new byte[LEN], foreign.memory().toArray(ValueLayout.JAVA_BYTE));
            // and a read of it fails the same way
            final Fixture.Ep[] q = f.connectedPair(null);
            q[0].ep().postRdmaRead(1, iov(local, 0, 8), 2, remote(foreign, 0, 8), 0);
            dto(q[0].req(), 2, DtoStatus.ERR_REMOTE_ACCESS);
        }
    }

    @Test
    void receiveCompletionsAreReportedOnTheRecvEvd()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(2 * LEN);
            p[1].ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            p[0].ep().postSend(1, iov(lmr, LEN, 8), 2, 0);
            final DatEvent ev = dto(p[1].recv(), 1, DtoStatus.SUCCESS);
            assertSame(p[1].recv(), ev.evdHandle);
            assertSame(p[1].ep(), ev.dto.epHandle);
            assertEmpty(p[1].req());
            assertEmpty(p[1].conn());
        }
    }

    @Test
    void sendRdmaReadAndRdmaWriteCompletionsAreReportedOnTheRequestEvd()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(4 * LEN);
            p[1].ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            p[0].ep().postSend(1, iov(lmr, LEN, 8), 10, 0);
            p[0].ep().postRdmaWrite(1, iov(lmr, LEN, 8), 11, remote(lmr, 2 * LEN, 8), 0);
            p[0].ep().postRdmaRead(1, iov(lmr, 3 * LEN, 8), 12, remote(lmr, 2 * LEN, 8), 0);
            for (final long cookie : new long[] {10, 11, 12})
            {
                final DatEvent ev = dto(p[0].req(), cookie, DtoStatus.SUCCESS);
                assertSame(p[0].req(), ev.evdHandle);
            }
            assertEmpty(p[0].recv());
            assertEmpty(p[0].conn());
        }
    }

    @Test
    void rmrBindCompletionsAreReportedOnTheRequestEvd()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(LEN);
            final Rmr rmr = f.pz.rmrCreate();
            rmr.bind(LmrTriplet.of(lmr, 0, LEN), MemPriv.REMOTE_WRITE_FLAG, p[0].ep(), 5, 0);
            final DatEvent ev = Connecting.event(p[0].req(), EventNumber.RMR_BIND_COMPLETION_EVENT);
            assertSame(rmr, ev.rmrBind.rmrHandle);
            assertEquals(5, ev.rmrBind.userCookie);
            assertEquals(DtoStatus.SUCCESS, ev.rmrBind.status);
            assertEmpty(p[0].recv());
        }
    }

    @Test
    void connectionEventsAreReportedOnTheConnectEvd()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            request(crEvd).crArrival.crHandle.accept(b.ep(), null);
            assertSame(a.conn(), connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED).evdHandle);
            assertSame(b.conn(), connection(b, EventNumber.CONNECTION_EVENT_ESTABLISHED).evdHandle);
            a.ep().disconnect(io.jdat.CloseFlags.ABRUPT_FLAG);
            connection(a, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            connection(b, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEmpty(a.recv());
            assertEmpty(a.req());
        }
    }

    @Test
    void nullRecvEvdMeansTheConsumerIsNotInterestedInReceiveCompletions()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final EventDispatcher req = f.evd(8, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            final Fixture.Ep b = new Fixture.Ep(f.ia.epCreate(f.pz, null, req, conn, null), null, req, conn);
            EpTest.connect(f, a, b);
            final Lmr lmr = f.lmr(2 * LEN);
            lmr.memory().asSlice(LEN, 8).fill((byte) 3);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            a.ep().postSend(1, iov(lmr, LEN, 8), 2, 0);
            dto(a.req(), 2, DtoStatus.SUCCESS);
            // the receive completed (the bytes are there, the buffer is no longer held), silently
            assertEquals(3, lmr.memory().get(ValueLayout.JAVA_BYTE, 0));
            final DatCount held = new DatCount(-1);
            b.ep().recvQuery(held, null);
            assertEquals(0, held.value);
            assertEmpty(req);
            assertEmpty(conn);
        }
    }

    @Test
    void nullRequestEvdMeansTheConsumerIsNotInterestedInRequestCompletions()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher recv = f.evd(8, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            final Fixture.Ep a = new Fixture.Ep(f.ia.epCreate(f.pz, recv, null, conn, null), recv, null, conn);
            final Fixture.Ep b = f.ep(null);
            EpTest.connect(f, a, b);
            final Lmr lmr = f.lmr(2 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            a.ep().postSend(1, iov(lmr, LEN, 8), 2, 0);
            dto(b.recv(), 1, DtoStatus.SUCCESS);
            final EpStatus st = new EpStatus();
            a.ep().getStatus(st);
            assertTrue(st.requestIdle);
            assertEmpty(recv);
            assertEmpty(conn);
        }
    }

    @Test
    void nullConnectEvdMeansNoInterestInConnectionEventsForNow()
    {
        // "for now": one can be given later with dat_ep_modify; a connection needs one
        try (Fixture f = new Fixture())
        {
            final EventDispatcher recv = f.evd(8, EvdFlags.DTO_FLAG);
            final EventDispatcher req = f.evd(8, EvdFlags.DTO_FLAG);
            final Endpoint ep = f.ia.epCreate(f.pz, recv, req, null, null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            expect(DatReturnType.INVALID_STATE, () -> ep.connect(f.address, psp.connQual(), SECOND, null,
                Qos.BEST_EFFORT, 0));
            final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            final EpParam set = new EpParam();
            set.connectEvdHandle = conn;
            ep.modify(EpParam.FIELD_CONNECT_EVD_HANDLE, set);
            final Fixture.Ep a = new Fixture.Ep(ep, recv, req, conn);
            Connecting.connect(f, a, psp.connQual(), null);
            request(crEvd).crArrival.crHandle.accept(f.ep(null).ep(), null);
            connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void nullAttributesAreFilledWithProviderDefaultsWithinTheIaLimits()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith(
            "max_dto_per_ep=8 max_iov=2 max_message_size=4096 max_rdma_size=8192 max_rdma_read_per_ep=1")))
        {
            final EpParam p = new EpParam();
            f.ia.epCreate(f.pz, null, null, null, null).query(EpParam.FIELD_EP_ATTR_ALL, p);
            final EpAttr a = p.epAttr;
            assertEquals(io.jdat.ServiceType.RC, a.serviceType);
            assertEquals(Qos.BEST_EFFORT, a.qos);
            assertEquals(4096, a.maxMessageSize);
            assertEquals(8192, a.maxRdmaSize);
            assertEquals(8, a.maxRecvDtos);
            assertEquals(8, a.maxRequestDtos);
            assertEquals(2, a.maxRecvIov);
            assertEquals(2, a.maxRequestIov);
            assertEquals(2, a.maxRdmaReadIov);
            assertEquals(2, a.maxRdmaWriteIov);
            assertEquals(1, a.maxRdmaReadIn);
            assertEquals(1, a.maxRdmaReadOut);
            assertEquals(CompletionFlags.EVD_THRESHOLD_FLAG, a.recvCompletionFlags);
            assertEquals(CompletionFlags.EVD_THRESHOLD_FLAG, a.requestCompletionFlags);
        }
    }

    @Test
    void endpointWithNullAttributesCanBeQueriedModifiedAndFreedAndConfiguredBeforeUse()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EpStatus st = new EpStatus();
            a.ep().getStatus(st);
            assertEquals(EpState.UNCONNECTED, st.epState);
            final EpParam set = new EpParam();
            set.epAttr.maxMessageSize = 16;
            set.epAttr.maxRequestDtos = 1;
            a.ep().modify(EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE | EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS, set);
            final EpParam p = new EpParam();
            a.ep().query(EpParam.FIELD_EP_ATTR_ALL, p);
            assertEquals(16, p.epAttr.maxMessageSize);
            assertEquals(1, p.epAttr.maxRequestDtos);
            // the endpoint then works as configured
            EpTest.connect(f, a, b);
            final Lmr lmr = f.lmr(2 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().postSend(1, iov(lmr, LEN, 17), 2, 0));
            a.ep().postSend(1, iov(lmr, LEN, 16), 3, 0);
            dto(a.req(), 3, DtoStatus.SUCCESS);
        }
    }

    @Test
    void providerDefaultsAreReasonableForSendsRdmaAndSeveralSegments()
    {
        // dapltest's limit and FFT tests create endpoints with NULL attributes and post to them
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(16 * LEN);
            final LmrTriplet[] four = {LmrTriplet.of(lmr, 0, LEN), LmrTriplet.of(lmr, LEN, LEN),
                LmrTriplet.of(lmr, 2 * LEN, LEN), LmrTriplet.of(lmr, 3 * LEN, LEN)};
            for (int i = 0; i < 16; i++)
            {
                p[1].ep().postRecv(4, four, i, 0);
            }
            for (int i = 0; i < 16; i++)
            {
                p[0].ep().postSend(4, four, 100 + i, 0);
            }
            p[0].ep().postRdmaWrite(4, four, 200, remote(lmr, 8 * LEN, 4 * LEN), 0);
            p[0].ep().postRdmaRead(4, four, 201, remote(lmr, 8 * LEN, 4 * LEN), 0);
            for (int i = 0; i < 16; i++)
            {
                assertEquals(4 * LEN, dto(p[1].recv(), i, DtoStatus.SUCCESS).dto.transferredLength);
                dto(p[0].req(), 100 + i, DtoStatus.SUCCESS);
            }
            dto(p[0].req(), 200, DtoStatus.SUCCESS);
            dto(p[0].req(), 201, DtoStatus.SUCCESS);
        }
    }

    @Test
    void passiveSideMayCreateWithNullAttributesAndSetThemFromTheConnectionRequest()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep client = f.ep(null);
            final Fixture.Ep server = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            // the client asks, in its private data, for messages of at most 24 bytes
            Connecting.connect(f, client, psp.connQual(), new byte[] {24});
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            final CrParam cp = new CrParam();
            cr.query(CrParam.FIELD_PRIVATE_DATA, cp);
            final EpParam set = new EpParam();
            set.epAttr.maxMessageSize = cp.privateData[0];
            server.ep().modify(EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE, set);
            cr.accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final EpParam p = new EpParam();
            server.ep().query(EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE, p);
            assertEquals(24, p.epAttr.maxMessageSize);
            final Lmr lmr = f.lmr(LEN);
            expect(DatReturnType.INVALID_PARAMETER, () -> server.ep().postSend(1, iov(lmr, 0, 25), 1, 0));
        }
    }

    // ------------------------------------------------------------------ USAGE

    @Test
    void unconnectedEndpointCanRequestAConnectionWithConnectOrDupConnect()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep c = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            request(crEvd).crArrival.crHandle.accept(f.ep(null).ep(), null);
            connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.ep().dupConnect(a.ep(), 5 * SECOND, null, Qos.BEST_EFFORT);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, state(c.ep()));
            request(crEvd).crArrival.crHandle.accept(f.ep(null).ep(), null);
            connection(c, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void unconnectedEndpointCanAcceptAPendingRequestThatHasNoEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            final CrParam cp = new CrParam();
            cr.query(CrParam.FIELD_LOCAL_EP_HANDLE, cp);
            assertNull(cp.localEpHandle);
            cr.accept(b.ep(), null);
            connection(b, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, state(b.ep()));
        }
    }

    @Test
    void unconnectedEndpointCanBeReservedForAnRspAndAcceptItsRequest()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final ReservedServicePoint rsp = f.ia.rspCreate(99, b.ep(), crEvd);
            assertEquals(EpState.RESERVED, state(b.ep()));
            Connecting.connect(f, a, 99, null);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            final CrParam cp = new CrParam();
            cr.query(CrParam.FIELD_LOCAL_EP_HANDLE, cp);
            assertSame(b.ep(), cp.localEpHandle);
            cr.accept(null, null);
            connection(b, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            rsp.free();
        }
    }

    // ------------------------------------------------------------------ completion flags of shared EVDs

    @Test
    void dtoStreamsSharingAnEvdMustUseMatchingCompletionFlags()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher shared = f.evd(16, EvdFlags.DTO_FLAG);
            final EpAttr unsignalled = attr(a ->
            {
                a.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
                a.recvCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            });
            f.ia.epCreate(f.pz, null, shared, null, unsignalled);
            // a threshold stream of another endpoint does not match
            assertEquals(DatReturnSubtype.INVALID_ARG4, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreate(f.pz, null, shared, null, null)).subtype());
            // matching flags do
            f.ia.epCreate(f.pz, shared, shared, null, unsignalled);
        }
    }

    @Test
    void evdAlsoFedByOtherEventStreamsAllowsOnlyThresholdCompletionFlags()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher merged = f.evd(16, EvdFlags.DTO_FLAG | EvdFlags.CONNECTION_FLAG);
            f.ia.epCreate(f.pz, merged, merged, merged, null);
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, merged, null,
                attr(a -> a.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG)));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, merged, null, null,
                attr(a -> a.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG)));
            // and the other way round: an EVD of unsignalled streams takes no connection events
            final EventDispatcher dto = f.evd(16, EvdFlags.DTO_FLAG | EvdFlags.CONNECTION_FLAG);
            f.ia.epCreate(f.pz, null, dto, null,
                attr(a -> a.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, null, dto, null));
        }
    }

    @Test
    void unsignalledStreamOnAnEvdMakesEveryRequestAndRecvStreamThereUnsignalled()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher shared = f.evd(16, EvdFlags.DTO_FLAG);
            // request unsignalled but recv threshold on one EVD: refused
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, shared, shared, null,
                attr(a -> a.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG)));
            f.ia.epCreate(f.pz, shared, shared, null, attr(a ->
            {
                a.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
                a.recvCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            }));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, shared, null, null, null));
        }
    }

    @Test
    void solicitedWaitRecvEvdTakesOnlySolicitedWaitRecvStreams()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher solicited = f.evd(16, EvdFlags.DTO_FLAG | EvdFlags.CONNECTION_FLAG);
            final EpAttr sw = attr(a -> a.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG);
            f.ia.epCreate(f.pz, solicited, null, null, sw);
            // another solicited-wait recv stream may share it
            f.ia.epCreate(f.pz, solicited, null, null, sw);
            // nothing else may: a threshold recv stream, a request stream, connection events
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, solicited, null, null, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, solicited, null, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, null, solicited, null));
        }
    }

    // ------------------------------------------------------------------ RETURN VALUES

    @Test
    void returnsInsufficientResourcesWhenResourcesRunOut()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_eps=2")))
        {
            f.ia.epCreate(f.pz, null, null, null, null);
            f.ia.epCreate(f.pz, null, null, null, null);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.epCreate(f.pz, null, null, null, null));
        }
    }

    @Test
    void returnsInvalidHandleForABadIaPzOrEvd()
    {
        try (Fixture f = new Fixture(); Fixture other = new Fixture())
        {
            final ProtectionZone freed = f.ia.pzCreate();
            freed.free();
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(freed, null, null, null, null));
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(other.pz, null, null, null, null));
            final EventDispatcher foreign = other.evd(4, EvdFlags.DTO_FLAG);
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(f.pz, foreign, null, null, null));
            other.ia.close(io.jdat.CloseFlags.ABRUPT_FLAG);
            expect(DatReturnType.INVALID_HANDLE, () -> other.ia.epCreate(other.pz, null, null, null, null));
        }
    }

    @Test
    void returnsInvalidParameterForABadAttributeOrCombination()
    {
        try (Fixture f = new Fixture())
        {
            expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreate(f.pz, null, null, null, attr(a -> a.maxRequestIov = -1)));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, null, null,
                attr(a -> a.recvCompletionFlags = CompletionFlags.BARRIER_FENCE_FLAG)));
            final EventDispatcher shared = f.evd(8, EvdFlags.DTO_FLAG);
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, shared, shared, null,
                attr(a -> a.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG)));
        }
    }

    @Test
    void returnsModelNotSupportedForAProviderModelItDoesNotSupport()
    {
        try (Fixture f = new Fixture())
        {
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> f.ia.epCreate(f.pz, null, null, null, attr(a -> a.serviceType = 1)));
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> f.ia.epCreate(f.pz, null, null, null, attr(a -> a.qos = Qos.ECONOMY)));
        }
    }

    // ------------------------------------------------------------------ ATTRIBUTES

    @Test
    void epCreateIsSafeToCallFromManyThreadsAtOnce()
    {
        // MT-Level Safe
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_eps=40")))
        {
            final EventDispatcher shared = f.evd(16, EvdFlags.DTO_FLAG | EvdFlags.CONNECTION_FLAG);
            final CountDownLatch start = new CountDownLatch(1);
            final List<CompletableFuture<List<Endpoint>>> creators = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                creators.add(CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        start.await();
                    }
                    catch (final InterruptedException e)
                    {
                        throw new AssertionError(e);
                    }
                    final List<Endpoint> mine = new ArrayList<>();
                    for (int i = 0; i < 10; i++)
                    {
                        mine.add(f.ia.epCreate(f.pz, shared, shared, shared, null));
                    }
                    return mine;
                }, Fixture.THREADS));
            }
            start.countDown();
            final Set<Endpoint> all = new HashSet<>();
            for (final CompletableFuture<List<Endpoint>> c : creators)
            {
                all.addAll(c.orTimeout(5, TimeUnit.SECONDS).join());
            }
            assertEquals(40, all.size());
            // the limit and the EVD's stream count were kept right under contention
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.epCreate(f.pz, null, null, null, null));
            for (final Endpoint ep : all)
            {
                ep.free();
            }
            shared.free();
            f.pz.free();
        }
    }
}

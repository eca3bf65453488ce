package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Connecting.connect;
import static io.jdat.conformance.Connecting.connection;
import static io.jdat.conformance.Connecting.request;
import static io.jdat.conformance.Connecting.state;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Endpoint;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.ReservedServicePoint;
import io.jdat.RspParam;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_rsp_create}, {@code dat_rsp_free} and {@code dat_rsp_query} (digest §2.9, §3.2
 * transitions 9-12): every documented return code, and the one-shot life of an RSP.
 *
 * <p>Codes that cannot arise here:
 * <ul>
 *   <li>{@code dat_rsp_create} {@code DAT_INVALID_PARAMETER} for {@code conn_qual}: every u64
 *       (Java {@code long}) names a qualifier of a loopback address, and the call has no other
 *       plain parameter.</li>
 *   <li>{@code dat_rsp_query} {@code DAT_INVALID_HANDLE} for a handle of another type: refused by
 *       Java's types at compile time; a freed RSP is the case that remains.</li>
 *   <li>NULL {@code rsp_handle} OUT pointer: Java returns the handle.</li>
 * </ul>
 */
class RspTest
{
    private static final long QUAL = 815;

    private static RspParam query(final ReservedServicePoint rsp)
    {
        final RspParam p = new RspParam();
        rsp.query(RspParam.FIELD_ALL, p);
        return p;
    }

    // ------------------------------------------------------------------ dat_rsp_create

    @Test
    void rspCreateReservesTheEndpointAndListensForOneRequest()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, server.ep(), cr);
            assertEquals(EpState.RESERVED, state(server.ep()));
            // a reserved endpoint belongs to the RSP: it cannot be freed or connected
            expect(DatReturnType.INVALID_STATE, server.ep()::free);
            expect(DatReturnType.INVALID_STATE, () -> connect(f, server, QUAL + 1, null));
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, new byte[] {5, 6});
            final DatEvent ev = request(cr);
            // trap T-12: the event names the RSP
            assertSame(rsp, ev.crArrival.spHandle);
            assertEquals(QUAL, ev.crArrival.connQual);
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, state(server.ep()));
            expect(DatReturnType.INVALID_STATE, server.ep()::free);
            final CrParam p = new CrParam();
            ev.crArrival.crHandle.query(CrParam.FIELD_ALL, p);
            assertSame(server.ep(), p.localEpHandle);
            assertArrayEquals(new byte[] {5, 6}, p.privateData);
        }
    }

    @Test
    void rspCreateBeyondMaxRspsIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_rsps=1")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Endpoint first = f.ep(null).ep();
            final Endpoint second = f.ep(null).ep();
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, first, cr);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.rspCreate(QUAL + 1, second, cr));
            // the refused call did not reserve the endpoint
            assertEquals(EpState.UNCONNECTED, state(second));
            rsp.free();
            f.ia.rspCreate(QUAL + 1, second, cr);
        }
    }

    @Test
    void rspCreateWithABadIaEndpointOrEvdIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")); Fixture g = new Fixture())
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Endpoint freed = f.ep(null).ep();
            freed.free();
            final Endpoint foreign = g.ep(null).ep();
            for (final Endpoint bad : new Endpoint[] {freed, foreign})
            {
                assertEquals(DatReturnSubtype.INVALID_HANDLE_EP,
                    expect(DatReturnType.INVALID_HANDLE, () -> f.ia.rspCreate(QUAL, bad, cr)).subtype());
            }
            final Endpoint ep = f.ep(null).ep();
            final EventDispatcher freedEvd = f.evd(4, EvdFlags.CR_FLAG);
            freedEvd.free();
            final EventDispatcher dto = f.evd(4, EvdFlags.DTO_FLAG);
            for (final EventDispatcher bad : new EventDispatcher[] {null, freedEvd, dto})
            {
                assertEquals(DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                    expect(DatReturnType.INVALID_HANDLE, () -> f.ia.rspCreate(QUAL, ep, bad)).subtype());
            }
            assertEquals(EpState.UNCONNECTED, state(ep));
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA,
                expect(DatReturnType.INVALID_HANDLE, () -> f.ia.rspCreate(QUAL, null, cr)).subtype());
        }
    }

    @Test
    void rspCreateWithAnEndpointThatIsNotUnconnectedIsInvalidState()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep reserved = f.ep(null);
            f.ia.rspCreate(QUAL, reserved.ep(), cr);
            assertEquals(DatReturnSubtype.INVALID_STATE_EP_RESERVED, expect(DatReturnType.INVALID_STATE,
                () -> f.ia.rspCreate(QUAL + 1, reserved.ep(), cr)).subtype());
            final Fixture.Ep[] pair = f.connectedPair(null);
            assertEquals(DatReturnSubtype.INVALID_STATE_EP_CONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> f.ia.rspCreate(QUAL + 1, pair[0].ep(), cr)).subtype());
            pair[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            connection(pair[0], EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> f.ia.rspCreate(QUAL + 1, pair[0].ep(), cr)).subtype());
            // nothing listens on the refused qualifier
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL + 1, null);
            connection(client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            // after dat_ep_reset the endpoint may be reserved again
            pair[0].ep().reset();
            f.ia.rspCreate(QUAL + 1, pair[0].ep(), cr);
            assertEquals(EpState.RESERVED, state(pair[0].ep()));
        }
    }

    @Test
    void rspCreateOnAQualifierInUseIsConnQualInUse()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            f.ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG);
            final EventDispatcher other = f.evd(4, EvdFlags.CR_FLAG);
            final Endpoint ep = f.ep(null).ep();
            expect(DatReturnType.CONN_QUAL_IN_USE, () -> f.ia.rspCreate(QUAL, ep, other));
            // the endpoint was given back and the EVD has no stream
            assertEquals(EpState.UNCONNECTED, state(ep));
            other.free();
            f.ia.rspCreate(QUAL + 1, ep, cr);
            final Endpoint ep2 = f.ep(null).ep();
            expect(DatReturnType.CONN_QUAL_IN_USE, () -> f.ia.rspCreate(QUAL + 1, ep2, cr));
            assertEquals(EpState.UNCONNECTED, state(ep2));
        }
    }

    @Test
    void rspCreateWithoutAnEndpointHandsTheRequestAProviderEndpoint()
    {
        // digest §2.9: ep_handle DAT_HANDLE_NULL asks the provider to supply the endpoint
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, null, cr);
            assertNull(query(rsp).epHandle);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(cr).crArrival.crHandle;
            final CrParam p = new CrParam();
            r.query(CrParam.FIELD_LOCAL_EP_HANDLE, p);
            assertNotNull(p.localEpHandle);
            assertEquals(EpState.TENTATIVE_CONNECTION_PENDING, state(p.localEpHandle));
            r.reject();
            connection(client, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            expect(DatReturnType.INVALID_HANDLE, () -> state(p.localEpHandle));
        }
    }

    // ------------------------------------------------------------------ dat_rsp_free

    @Test
    void rspFreeGivesAReservedEndpointBackAndStopsListening()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, server.ep(), cr);
            rsp.free();
            assertEquals(EpState.UNCONNECTED, state(server.ep()));
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            connection(client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEmpty(cr);
            // the endpoint is the consumer's again: it can connect, and the EVD lost its stream
            cr.free();
            final Fixture.Ep[] pair = {server, f.ep(null)};
            final EventDispatcher cr2 = f.evd(4, EvdFlags.CR_FLAG);
            f.ia.pspCreate(QUAL, cr2, PspFlags.CONSUMER_FLAG);
            connect(f, pair[0], QUAL, null);
            request(cr2).crArrival.crHandle.accept(pair[1].ep(), null);
            connection(pair[0], EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void rspFreeAfterItsRequestArrivedLeavesTheRequestAndItsEndpointValid()
    {
        // dat_rsp_free(3DAT): a CR already generated keeps the endpoint PASSIVE_CONNECTION_PENDING
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, server.ep(), cr);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(cr).crArrival.crHandle;
            rsp.free();
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, state(server.ep()));
            r.accept(null, new byte[] {3});
            assertArrayEquals(new byte[] {3},
                connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED).connection.privateData);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, state(server.ep()));
        }
    }

    @Test
    void rspFreeOfAFreedRspIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, f.ep(null).ep(), f.evd(4, EvdFlags.CR_FLAG));
            rsp.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_RSP,
                expect(DatReturnType.INVALID_HANDLE, rsp::free).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_rsp_query

    @Test
    void rspQueryReportsIaQualifierEvdAndEndpoint()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Endpoint ep = f.ep(null).ep();
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, ep, cr);
            final RspParam p = query(rsp);
            assertSame(f.ia, p.iaHandle);
            assertEquals(QUAL, p.connQual);
            assertSame(cr, p.evdHandle);
            assertSame(ep, p.epHandle);
            final RspParam one = new RspParam();
            rsp.query(RspParam.FIELD_EP_HANDLE, one);
            assertSame(ep, one.epHandle);
            rsp.query(0, null);
        }
    }

    @Test
    void rspQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, null, f.evd(4, EvdFlags.CR_FLAG));
            expect(DatReturnType.INVALID_PARAMETER, () -> rsp.query(RspParam.FIELD_ALL, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> rsp.query(0x10, new RspParam()));
        }
    }

    @Test
    void rspQueryOfAFreedRspIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, null, f.evd(4, EvdFlags.CR_FLAG));
            rsp.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_RSP, expect(DatReturnType.INVALID_HANDLE,
                () -> rsp.query(RspParam.FIELD_ALL, new RspParam())).subtype());
        }
    }

    // ------------------------------------------------------------------ semantics

    @Test
    void rspIsOneShotButItsHandleStaysValidUntilFreed()
    {
        // trap T-12: after its one request the RSP stops listening, the handle lives on
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, server.ep(), cr);
            final Fixture.Ep first = f.ep(null);
            final Fixture.Ep second = f.ep(null);
            connect(f, first, QUAL, null);
            connect(f, second, QUAL, null);
            connection(second, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            final ConnectionRequest r = request(cr).crArrival.crHandle;
            assertEmpty(cr);
            assertEquals(QUAL, query(rsp).connQual);
            r.accept(null, null);
            connection(first, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final Fixture.Ep third = f.ep(null);
            connect(f, third, QUAL, null);
            connection(third, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertSame(f.ia, query(rsp).iaHandle);
            rsp.free();
            // the connected endpoint is not disturbed by freeing its RSP
            assertEquals(EpState.CONNECTED, state(server.ep()));
        }
    }

    @Test
    void rspRequestRejectedReturnsTheEndpointToUnconnectedForReuse()
    {
        // digest §3.2 transition 12
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(QUAL, server.ep(), cr);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            request(cr).crArrival.crHandle.reject();
            connection(client, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(EpState.UNCONNECTED, state(server.ep()));
            assertEmpty(server.conn());
            // reusable: reserved again on a new RSP (the old one no longer listens)
            final ReservedServicePoint again = f.ia.rspCreate(QUAL, server.ep(), cr);
            assertNotSame(rsp, again);
            final Fixture.Ep retry = f.ep(null);
            connect(f, retry, QUAL, null);
            assertSame(again, request(cr).crArrival.spHandle);
        }
    }
}

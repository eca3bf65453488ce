package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Connecting.connect;
import static io.jdat.conformance.Connecting.connection;
import static io.jdat.conformance.Connecting.request;
import static io.jdat.conformance.Connecting.state;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.ReservedServicePoint;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_cr_query}, {@code dat_cr_accept}, {@code dat_cr_reject} and {@code dat_cr_handoff}
 * (digest §2.9, §3.2, trap T-22): every documented return code, private data in both directions,
 * and the outcomes the active side sees (ESTABLISHED, PEER_REJECTED, TIMED_OUT) and the passive
 * side's ACCEPT_COMPLETION_ERROR. The seed man page's rules for {@code dat_cr_query} are in
 * {@link SeedCrQueryTest}.
 *
 * <p>Codes that cannot arise here:
 * <ul>
 *   <li>{@code dat_cr_accept} {@code DAT_INVALID_PARAMETER} for a non-zero
 *       {@code private_data_size} with a NULL {@code private_data}: a Java {@code byte[]} carries
 *       its length, so only too much private data is a bad parameter.</li>
 *   <li>{@code dat_cr_query} {@code DAT_INVALID_HANDLE} for a handle of another type: refused by
 *       Java's types; a destroyed CR is the case that remains.</li>
 * </ul>
 */
class CrTest
{
    private static final long QUAL = 1234;
    private static final long OTHER_QUAL = 1235;

    /** A PSP on {@link #QUAL} of the fixture and its CR EVD. */
    private static EventDispatcher listen(final Fixture f, final int pspFlags)
    {
        final EventDispatcher cr = f.evd(8, EvdFlags.CR_FLAG);
        f.ia.pspCreate(QUAL, cr, pspFlags);
        return cr;
    }

    private static Lmr postRecv(final Fixture f, final Fixture.Ep ep, final long cookie)
    {
        final Lmr lmr = f.lmr(64);
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, cookie, 0);
        return lmr;
    }

    /** The flushed completion of the receive {@code cookie}. */
    private static void assertFlushed(final Fixture.Ep ep, final long cookie)
    {
        final DatEvent ev = Connecting.event(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status);
        assertEquals(cookie, ev.dto.userCookie);
    }

    private static EpAttr readLimits(final int in, final int out)
    {
        final EpAttr a = new EpAttr();
        a.maxRdmaReadIn = in;
        a.maxRdmaReadOut = out;
        return a;
    }

    // ------------------------------------------------------------------ dat_cr_query

    @Test
    void crQueryReportsTheActiveSidesAddressPortAndPrivateData()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")); Fixture g = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = g.ep(null);
            client.ep().connect(f.address, QUAL, 5 * Fixture.SECOND, new byte[] {10, 20, 30}, Qos.BEST_EFFORT, 0);
            final EpParam ep = new EpParam();
            client.ep().query(EpParam.FIELD_LOCAL_PORT_QUAL, ep);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            final CrParam p = new CrParam();
            r.query(CrParam.FIELD_ALL, p);
            assertEquals(g.address, p.remoteIaAddress);
            assertEquals(ep.localPortQual, p.remotePortQual);
            assertEquals(3, p.privateDataSize);
            assertArrayEquals(new byte[] {10, 20, 30}, p.privateData);
            // a consumer-model PSP names no endpoint
            assertNull(p.localEpHandle);
            final CrParam size = new CrParam();
            r.query(CrParam.FIELD_PRIVATE_DATA_SIZE, size);
            assertEquals(3, size.privateDataSize);
        }
    }

    @Test
    void crQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            connect(f, f.ep(null), QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            expect(DatReturnType.INVALID_PARAMETER, () -> r.query(CrParam.FIELD_ALL, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> r.query(0x20, new CrParam()));
            // the refused queries did not touch the CR
            r.query(CrParam.FIELD_ALL, new CrParam());
        }
    }

    @Test
    void crQueryOfADestroyedCrIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            connect(f, f.ep(null), QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            r.reject();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CR, expect(DatReturnType.INVALID_HANDLE,
                () -> r.query(CrParam.FIELD_ALL, new CrParam())).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_cr_accept

    @Test
    void crAcceptConnectsBothSidesDeliversPrivateDataAndDestroysTheCr()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            final Fixture.Ep server = f.ep(null);
            connect(f, client, QUAL, new byte[] {1});
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            r.accept(server.ep(), new byte[] {4, 5, 6, 7});
            final DatEvent active = connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(4, active.connection.privateDataSize);
            assertArrayEquals(new byte[] {4, 5, 6, 7}, active.connection.privateData);
            // the passive side's ESTABLISHED carries no private data
            assertEquals(0, connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED).connection.privateDataSize);
            assertEquals(EpState.CONNECTED, state(client.ep()));
            assertEquals(EpState.CONNECTED, state(server.ep()));
            final EpParam p = new EpParam();
            server.ep().query(EpParam.FIELD_REMOTE_IA_ADDRESS_PTR | EpParam.FIELD_LOCAL_PORT_QUAL, p);
            assertEquals(f.address, p.remoteIaAddress);
            assertEquals(QUAL, p.localPortQual);
            // a successful accept destroys the CR
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CR, expect(DatReturnType.INVALID_HANDLE,
                () -> r.query(CrParam.FIELD_ALL, new CrParam())).subtype());
            expect(DatReturnType.INVALID_HANDLE, () -> r.accept(f.ep(null).ep(), null));
            expect(DatReturnType.INVALID_HANDLE, r::reject);
        }
    }

    @Test
    void crAcceptWithABadEndpointIsInvalidHandleAndLeavesTheCrIntact()
    {
        // trap T-22: a failed accept has no effect on the EP, the CR or the remote EP
        try (Fixture f = new Fixture(Fixture.loopbackWith("")); Fixture g = new Fixture())
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, new byte[] {1});
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            final Endpoint freed = f.ep(null).ep();
            freed.free();
            final Endpoint foreign = g.ep(null).ep();
            final Endpoint noConnectEvd = f.ia.epCreate(f.pz, null, null, null, null);
            final Endpoint noPz = f.ia.epCreate(null, null, null, f.evd(4, EvdFlags.CONNECTION_FLAG), null);
            for (final Endpoint bad : new Endpoint[] {null, freed, foreign, noConnectEvd, noPz})
            {
                assertEquals(DatReturnSubtype.INVALID_HANDLE_EP,
                    expect(DatReturnType.INVALID_HANDLE, () -> r.accept(bad, null)).subtype());
            }
            assertEquals(EpState.UNCONNECTED, state(noConnectEvd));
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, state(client.ep()));
            assertEmpty(client.conn());
            final CrParam p = new CrParam();
            r.query(CrParam.FIELD_PRIVATE_DATA, p);
            assertArrayEquals(new byte[] {1}, p.privateData);
            r.accept(f.ep(null).ep(), null);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptWithAnEndpointWhenTheCrNamesItsOwnIsInvalidHandle()
    {
        // the RSP's endpoint is implied: ep_handle must be DAT_HANDLE_NULL
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            f.ia.rspCreate(QUAL, server.ep(), crEvd);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            final Endpoint other = f.ep(null).ep();
            for (final Endpoint given : new Endpoint[] {other, server.ep()})
            {
                assertEquals(DatReturnSubtype.INVALID_HANDLE_EP,
                    expect(DatReturnType.INVALID_HANDLE, () -> r.accept(given, null)).subtype());
            }
            assertEquals(EpState.UNCONNECTED, state(other));
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, state(server.ep()));
            r.accept(null, null);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptWithMorePrivateDataThanTheProviderCarriesIsInvalidParameter()
    {
        // trap T-35: max_private_data_size (here 64) bounds what accept may send
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_private_data=64")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            final Fixture.Ep server = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            // dat_cr_accept(cr, ep, private_data_size, private_data): the size is what is too big,
            // as dat_ep_connect names its private_data_size and the verbs provider this argument
            assertEquals(DatReturnSubtype.INVALID_ARG3,
                expect(DatReturnType.INVALID_PARAMETER, () -> r.accept(server.ep(), new byte[65])).subtype());
            assertEquals(EpState.UNCONNECTED, state(server.ep()));
            final byte[] max = new byte[64];
            max[63] = 63;
            r.accept(server.ep(), max);
            assertArrayEquals(max, connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED).connection.privateData);
        }
    }

    @Test
    void crAcceptOfADestroyedCrIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            connect(f, f.ep(null), QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            r.reject();
            final Endpoint server = f.ep(null).ep();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CR,
                expect(DatReturnType.INVALID_HANDLE, () -> r.accept(server, null)).subtype());
            assertEquals(EpState.UNCONNECTED, state(server));
        }
    }

    @Test
    void crAcceptOnAnEndpointThatIsNotUnconnectedFailsWithoutEffect()
    {
        // digest §3.3: accept needs an UNCONNECTED endpoint; the CR survives the refusal
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            final Fixture.Ep[] pair = f.connectedPair(null);
            assertEquals(DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                expect(DatReturnType.INVALID_STATE, () -> r.accept(pair[1].ep(), null)).subtype());
            assertEquals(EpState.CONNECTED, state(pair[1].ep()));
            r.accept(f.ep(null).ep(), null);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptWithMismatchedRdmaReadLimitsIsAcceptCompletionError()
    {
        // dat_cr_accept(3DAT): the acceptor must serve at least the reads the requester issues
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(readLimits(2, 4));
            final Fixture.Ep server = f.ep(readLimits(1, 2));
            postRecv(f, server, 77);
            connect(f, client, QUAL, null);
            // accept itself succeeds: the failure is reported as an event
            request(crEvd).crArrival.crHandle.accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, state(server.ep()));
            assertFlushed(server, 77);
            connection(client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, state(client.ep()));
        }
    }

    @Test
    void crAcceptIssuingMoreReadsThanTheRequesterServesIsAcceptCompletionError()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(readLimits(1, 1));
            final Fixture.Ep server = f.ep(readLimits(4, 3));
            connect(f, client, QUAL, null);
            request(crEvd).crArrival.crHandle.accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            connection(client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            // matching limits connect
            final Fixture.Ep client2 = f.ep(readLimits(1, 1));
            final Fixture.Ep server2 = f.ep(readLimits(1, 1));
            connect(f, client2, QUAL, null);
            request(crEvd).crArrival.crHandle.accept(server2.ep(), null);
            connection(server2, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(client2, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptAfterTheActiveSideTimedOutIsAcceptCompletionError()
    {
        // dat_cr_accept(3DAT): "caused by the active side timeout expiration"
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            final Fixture.Ep server = f.ep(null);
            postRecv(f, server, 5);
            client.ep().connect(f.address, QUAL, 20_000, null, Qos.BEST_EFFORT, 0);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            connection(client, EventNumber.CONNECTION_EVENT_TIMED_OUT);
            r.accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, state(server.ep()));
            assertFlushed(server, 5);
            assertEmpty(client.conn());
        }
    }

    // ------------------------------------------------------------------ dat_cr_reject

    @Test
    void crRejectIsPeerRejectedOnTheActiveSideAndDestroysTheCr()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            postRecv(f, client, 9);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            r.reject();
            connection(client, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, state(client.ep()));
            // digest §3.4: receives pre-posted before the connect do not survive its failure
            assertFlushed(client, 9);
            assertEmpty(client.conn());
            expect(DatReturnType.INVALID_HANDLE, () -> r.query(CrParam.FIELD_ALL, new CrParam()));
            // dapltest's retry: reset and connect again
            client.ep().reset();
            connect(f, client, QUAL, null);
            request(crEvd).crArrival.crHandle.accept(f.ep(null).ep(), null);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crRejectOfADestroyedCrIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            r.reject();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CR,
                expect(DatReturnType.INVALID_HANDLE, r::reject).subtype());
            // the active side heard exactly one rejection
            connection(client, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEmpty(client.conn());
        }
    }

    // ------------------------------------------------------------------ dat_cr_handoff

    @Test
    void crHandoffPassesTheRequestToTheServicePointOnTheQualifier()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final EventDispatcher otherEvd = f.evd(4, EvdFlags.CR_FLAG);
            final PublicServicePoint other = f.ia.pspCreate(OTHER_QUAL, otherEvd, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, new byte[] {42, 43});
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            final CrParam before = new CrParam();
            r.query(CrParam.FIELD_ALL, before);
            r.handoff(OTHER_QUAL);
            expect(DatReturnType.INVALID_HANDLE, () -> r.query(CrParam.FIELD_ALL, new CrParam()));
            assertEmpty(crEvd);
            final DatEvent ev = request(otherEvd);
            assertSame(other, ev.crArrival.spHandle);
            assertEquals(OTHER_QUAL, ev.crArrival.connQual);
            final CrParam after = new CrParam();
            ev.crArrival.crHandle.query(CrParam.FIELD_ALL, after);
            assertArrayEquals(new byte[] {42, 43}, after.privateData);
            assertEquals(before.remotePortQual, after.remotePortQual);
            assertEquals(before.remoteIaAddress, after.remoteIaAddress);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, state(client.ep()));
            ev.crArrival.crHandle.accept(f.ep(null).ep(), null);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crHandoffToAQualifierNobodyListensOnIsInvalidParameter()
    {
        // digest §2.9 [INF]: the CR is destroyed either way and the request refused
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            expect(DatReturnType.INVALID_PARAMETER, () -> r.handoff(OTHER_QUAL));
            expect(DatReturnType.INVALID_HANDLE, () -> r.query(CrParam.FIELD_ALL, new CrParam()));
            connection(client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    @Test
    void crHandoffOfADestroyedCrIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final EventDispatcher otherEvd = f.evd(4, EvdFlags.CR_FLAG);
            f.ia.pspCreate(OTHER_QUAL, otherEvd, PspFlags.CONSUMER_FLAG);
            connect(f, f.ep(null), QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            r.reject();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CR,
                expect(DatReturnType.INVALID_HANDLE, () -> r.handoff(OTHER_QUAL)).subtype());
            assertEmpty(otherEvd);
        }
    }

    @Test
    void crHandoffReleasesTheProviderEndpointOfTheOriginalRequest()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.PROVIDER_FLAG);
            final EventDispatcher otherEvd = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(OTHER_QUAL, server.ep(), otherEvd);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, QUAL, null);
            final ConnectionRequest r = request(crEvd).crArrival.crHandle;
            final CrParam p = new CrParam();
            r.query(CrParam.FIELD_LOCAL_EP_HANDLE, p);
            final Endpoint providerEp = p.localEpHandle;
            r.handoff(OTHER_QUAL);
            expect(DatReturnType.INVALID_HANDLE, () -> state(providerEp));
            // the RSP takes it over with its own endpoint
            final DatEvent ev = request(otherEvd);
            assertSame(rsp, ev.crArrival.spHandle);
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, state(server.ep()));
            ev.crArrival.crHandle.accept(null, null);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    // ------------------------------------------------------------------ outcomes on the active side

    @Test
    void connectNotAnsweredWithinItsTimeoutIsTimedOut()
    {
        // digest §3.2 transition 7
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            postRecv(f, client, 3);
            final long start = System.nanoTime();
            client.ep().connect(f.address, QUAL, 30_000, null, Qos.BEST_EFFORT, 0);
            connection(client, EventNumber.CONNECTION_EVENT_TIMED_OUT);
            assertTrue(System.nanoTime() - start >= 30_000_000L, "timed out before the timeout");
            assertEquals(EpState.DISCONNECTED, state(client.ep()));
            assertFlushed(client, 3);
            assertEmpty(client.conn());
            // the CR the passive side holds can still be rejected; the active side hears nothing more
            request(crEvd).crArrival.crHandle.reject();
            assertEmpty(client.conn());
        }
    }

    @Test
    void crOfAnIaClosedBeforeAnsweringIsRefusedTowardsTheActiveSide()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")); Fixture g = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = listen(f, PspFlags.PROVIDER_FLAG);
            final Fixture.Ep client = g.ep(null);
            client.ep().connect(f.address, QUAL, 5 * Fixture.SECOND, null, Qos.BEST_EFFORT, 0);
            request(crEvd);
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            connection(client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, state(client.ep()));
        }
    }
}

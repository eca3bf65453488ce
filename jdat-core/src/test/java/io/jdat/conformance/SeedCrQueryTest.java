package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Connecting.connection;
import static io.jdat.conformance.Connecting.request;
import static io.jdat.conformance.Connecting.state;
import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.jdat.Qos;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of the seed man page {@code dat_cr_query(3DAT)} (seed 001), one test per rule, each
 * named after its rule. The seed also carries the related page {@code dat_cr_accept(3DAT)}; its
 * rules follow. {@link CrTest} has every return code of the four {@code dat_cr_*} calls.
 */
class SeedCrQueryTest
{
    private static final long QUAL = 2024;

    /** A request from a client of {@code from} to a PSP ({@code pspFlags}) of {@code to}. */
    private record Request(Fixture.Ep client, ConnectionRequest cr, EventDispatcher crEvd)
    {
    }

    private static Request arrive(final Fixture to, final Fixture from, final int pspFlags, final byte[] data,
        final EpAttr clientAttr)
    {
        final EventDispatcher crEvd = to.evd(8, EvdFlags.CR_FLAG);
        to.ia.pspCreate(QUAL, crEvd, pspFlags);
        final Fixture.Ep client = from.ep(clientAttr);
        client.ep().connect(to.address, QUAL, 5 * SECOND, data, Qos.BEST_EFFORT, 0);
        return new Request(client, Connecting.request(crEvd).crArrival.crHandle, crEvd);
    }

    private static Request arrive(final Fixture f, final byte[] data)
    {
        return arrive(f, f, PspFlags.CONSUMER_FLAG, data, null);
    }

    private static CrParam query(final ConnectionRequest cr, final long mask)
    {
        final CrParam p = new CrParam();
        cr.query(mask, p);
        return p;
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
    void crQueryReturnsTheParametersTheMaskRequests()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, new byte[] {1, 2});
            assertEquals(f.address, query(r.cr(), CrParam.FIELD_REMOTE_IA_ADDRESS_PTR).remoteIaAddress);
            final EpParam ep = new EpParam();
            r.client().ep().query(EpParam.FIELD_LOCAL_PORT_QUAL, ep);
            assertEquals(ep.localPortQual, query(r.cr(), CrParam.FIELD_REMOTE_PORT_QUAL).remotePortQual);
            assertEquals(2, query(r.cr(), CrParam.FIELD_PRIVATE_DATA_SIZE).privateDataSize);
            assertArrayEquals(new byte[] {1, 2}, query(r.cr(), CrParam.FIELD_PRIVATE_DATA).privateData);
            final CrParam local = new CrParam();
            local.localEpHandle = r.client().ep();
            r.cr().query(CrParam.FIELD_LOCAL_EP_HANDLE, local);
            assertNull(local.localEpHandle);
        }
    }

    @Test
    void crQueryProvidesTheRemoteIaAddressAndPortQualifierOfTheRequestingEndpoint()
    {
        try (Fixture server = new Fixture(Fixture.loopbackWith(""));
            Fixture client = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(server, client, PspFlags.CONSUMER_FLAG, null, null);
            final EpParam ep = new EpParam();
            r.client().ep().query(EpParam.FIELD_LOCAL_PORT_QUAL | EpParam.FIELD_LOCAL_IA_ADDRESS_PTR, ep);
            final CrParam p = query(r.cr(), CrParam.FIELD_ALL);
            assertEquals(client.address, p.remoteIaAddress);
            assertEquals(ep.localIaAddress, p.remoteIaAddress);
            assertEquals(ep.localPortQual, p.remotePortQual);
        }
    }

    @Test
    void crQueryProvidesThePeersPrivateDataAndItsSize()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final byte[] data = new byte[200];
            for (int i = 0; i < data.length; i++)
            {
                data[i] = (byte) (i * 7);
            }
            final Request r = arrive(f, data);
            final CrParam p = query(r.cr(), CrParam.FIELD_PRIVATE_DATA | CrParam.FIELD_PRIVATE_DATA_SIZE);
            assertEquals(200, p.privateDataSize);
            assertArrayEquals(data, p.privateData);
            // what the consumer does with its copy does not change the CR's private data
            p.privateData[0] = 99;
            assertArrayEquals(data, query(r.cr(), CrParam.FIELD_PRIVATE_DATA).privateData);
            // no private data: size 0
            r.cr().reject();
            final Fixture.Ep other = f.ep(null);
            Connecting.connect(f, other, QUAL, null);
            final CrParam none = query(request(r.crEvd()).crArrival.crHandle, CrParam.FIELD_ALL);
            assertEquals(0, none.privateDataSize);
        }
    }

    @Test
    void crQueryProvidesTheLocalEndpointTheProviderCreatedForTheRequest()
    {
        // "The local Endpoint is created if the Consumer used PSP with DAT_PSP_PROVIDER"
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, f, PspFlags.PROVIDER_FLAG, null, null);
            final Endpoint ep = query(r.cr(), CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle;
            assertNotNull(ep);
            assertEquals(EpState.TENTATIVE_CONNECTION_PENDING, state(ep));
            final EpParam p = new EpParam();
            ep.query(EpParam.FIELD_IA_HANDLE, p);
            assertSame(f.ia, p.iaHandle);
        }
    }

    @Test
    void crQueryOfAnInvalidCrHandleIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, null);
            r.cr().reject();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CR,
                expect(DatReturnType.INVALID_HANDLE, () -> r.cr().query(CrParam.FIELD_ALL, new CrParam())).subtype());
        }
    }

    @Test
    void crQueryWithAnInvalidMaskIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, null);
            for (final long mask : new long[] {0x20, CrParam.FIELD_ALL | 0x100, -1})
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> r.cr().query(mask, new CrParam()));
            }
        }
    }

    @Test
    void crQueryIsSafeToCallFromManyThreadsAtOnce()
    {
        // MT-Level Safe
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final byte[] data = {4, 3, 2, 1};
            final Request r = arrive(f, data);
            final CountDownLatch start = new CountDownLatch(1);
            final List<CompletableFuture<Integer>> queries = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                queries.add(CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        start.await();
                    }
                    catch (final InterruptedException e)
                    {
                        throw new AssertionError(e);
                    }
                    int good = 0;
                    for (int i = 0; i < 2000; i++)
                    {
                        final CrParam p = query(r.cr(), CrParam.FIELD_ALL);
                        if (p.privateDataSize == 4 && java.util.Arrays.equals(data, p.privateData))
                        {
                            good++;
                        }
                    }
                    return good;
                }, Fixture.THREADS));
            }
            start.countDown();
            for (final CompletableFuture<Integer> q : queries)
            {
                assertEquals(2000, q.orTimeout(10, TimeUnit.SECONDS).join());
            }
        }
    }

    // ------------------------------------------------------------------ dat_cr_accept (the related page)

    @Test
    void crAcceptUsesTheEndpointTheCrNamesAndEpHandleMustThenBeNull()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
            final Fixture.Ep server = f.ep(null);
            f.ia.rspCreate(QUAL, server.ep(), crEvd);
            final Fixture.Ep client = f.ep(null);
            Connecting.connect(f, client, QUAL, null);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            expect(DatReturnType.INVALID_HANDLE, () -> cr.accept(server.ep(), null));
            cr.accept(null, null);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptOnAConsumerPspUsesTheEndpointGiven()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, null);
            final Fixture.Ep server = f.ep(null);
            r.cr().accept(server.ep(), null);
            assertSame(server.ep(), connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED).connection.epHandle);
            assertEquals(EpState.CONNECTED, state(server.ep()));
        }
    }

    @Test
    void crAcceptPrivateDataIsProvidedToTheRemoteConsumerWhenTheConnectionIsEstablished()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, null);
            r.cr().accept(f.ep(null).ep(), "accepted".getBytes());
            final DatEvent ev = connection(r.client(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals("accepted", new String(ev.connection.privateData));
            assertEquals(8, ev.connection.privateDataSize);
            // "If private_data_size is zero, then private_data can be NULL"
            final Fixture.Ep other = f.ep(null);
            Connecting.connect(f, other, QUAL, null);
            request(r.crEvd()).crArrival.crHandle.accept(f.ep(null).ep(), null);
            assertEquals(0, connection(other, EventNumber.CONNECTION_EVENT_ESTABLISHED).connection.privateDataSize);
        }
    }

    @Test
    void crAcceptWithAnEndpointThatDoesNotSatisfyTheRequestFailsWithoutAnyEffect()
    {
        // no effect on the local EP, the CR, its private data or the remote EP
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, new byte[] {6});
            final Endpoint unready = f.ia.epCreate(f.pz, null, null, null, null);
            expect(DatReturnType.INVALID_HANDLE, () -> r.cr().accept(unready, null));
            assertEquals(EpState.UNCONNECTED, state(unready));
            assertArrayEquals(new byte[] {6}, query(r.cr(), CrParam.FIELD_PRIVATE_DATA).privateData);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, state(r.client().ep()));
            assertEmpty(r.client().conn());
            r.cr().accept(f.ep(null).ep(), null);
            connection(r.client(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptIsAsynchronousAndSuccessIsReportedAsEstablishedOnTheConnectEvd()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, null);
            final Fixture.Ep server = f.ep(null);
            r.cr().accept(server.ep(), null);
            final DatEvent ev = connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertSame(server.conn(), ev.evdHandle);
            assertEmpty(server.recv());
            assertEmpty(server.req());
        }
    }

    @Test
    void crAcceptThatCannotCompleteIsAcceptCompletionErrorTheEndpointDisconnectedAndRecvsFlushed()
    {
        // "It can be caused by the active side timeout expiration"
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
            f.ia.pspCreate(QUAL, crEvd, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep client = f.ep(null);
            client.ep().connect(f.address, QUAL, 10_000, null, Qos.BEST_EFFORT, 0);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            connection(client, EventNumber.CONNECTION_EVENT_TIMED_OUT);
            final Fixture.Ep server = f.ep(null);
            final Lmr lmr = f.lmr(128);
            server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 1, 0);
            server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 64, 64)}, 2, 0);
            cr.accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, state(server.ep()));
            for (int cookie = 1; cookie <= 2; cookie++)
            {
                final DatEvent ev = Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status);
                assertEquals(cookie, ev.dto.userCookie);
            }
        }
    }

    @Test
    void crAcceptDestroysTheCrSoLaterUseOfItsHandleFails()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, null);
            r.cr().accept(f.ep(null).ep(), null);
            expect(DatReturnType.INVALID_HANDLE, () -> r.cr().query(CrParam.FIELD_ALL, new CrParam()));
            expect(DatReturnType.INVALID_HANDLE, () -> r.cr().accept(f.ep(null).ep(), null));
            expect(DatReturnType.INVALID_HANDLE, r.cr()::reject);
            expect(DatReturnType.INVALID_HANDLE, () -> r.cr().handoff(QUAL));
        }
    }

    @Test
    void crAcceptWithAnInvalidCrOrEndpointHandleIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, null);
            final Endpoint freed = f.ep(null).ep();
            freed.free();
            expect(DatReturnType.INVALID_HANDLE, () -> r.cr().accept(freed, null));
            expect(DatReturnType.INVALID_HANDLE, () -> r.cr().accept(null, null));
            r.cr().reject();
            expect(DatReturnType.INVALID_HANDLE, () -> r.cr().accept(f.ep(null).ep(), null));
        }
    }

    @Test
    void crAcceptWithInvalidPrivateDataIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_private_data=100")))
        {
            final Request r = arrive(f, null);
            final Fixture.Ep server = f.ep(null);
            expect(DatReturnType.INVALID_PARAMETER, () -> r.cr().accept(server.ep(), new byte[101]));
            assertEquals(EpState.UNCONNECTED, state(server.ep()));
            r.cr().accept(server.ep(), new byte[100]);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptWithRdmaReadLimitsThatDoNotMatchTheRequesterFailsToEstablish()
    {
        // the acceptor's reads in must cover the requester's reads out, its reads out the requester's reads in
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, f, PspFlags.CONSUMER_FLAG, null, readLimits(2, 3));
            final Fixture.Ep server = f.ep(readLimits(2, 2));
            r.cr().accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            connection(r.client(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            // the man page's advice: in >= remote out, out <= remote in
            final Fixture.Ep client = f.ep(readLimits(2, 3));
            Connecting.connect(f, client, QUAL, null);
            final Fixture.Ep good = f.ep(readLimits(3, 2));
            request(r.crEvd()).crArrival.crHandle.accept(good.ep(), null);
            connection(good, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void crAcceptWithRdmaReadLimitsLeftUnsetLetsTheProviderChooseMatchingValues()
    {
        // "If the Consumer does not set the two outstanding RDMA Read attributes ... the Provider can
        // change these default values during connection setup."
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, f, PspFlags.CONSUMER_FLAG, null, readLimits(1, 9));
            final Fixture.Ep server = f.ep(null);
            r.cr().accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(r.client(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final EpParam p = new EpParam();
            server.ep().query(EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN | EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_OUT, p);
            assertTrue(p.epAttr.maxRdmaReadIn >= 9, p.epAttr.toString());
            assertTrue(p.epAttr.maxRdmaReadOut <= 1, p.epAttr.toString());
        }
    }

    @Test
    void crAcceptWithBothRdmaReadLimitsZeroConnectsForAConsumerThatWantsNoReads()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Request r = arrive(f, f, PspFlags.CONSUMER_FLAG, null, readLimits(0, 0));
            final Fixture.Ep server = f.ep(readLimits(0, 0));
            r.cr().accept(server.ep(), null);
            connection(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(r.client(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }
}

package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Connecting.connect;
import static io.jdat.conformance.Connecting.connection;
import static io.jdat.conformance.Connecting.request;
import static io.jdat.conformance.Connecting.state;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Endpoint;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PspParam;
import io.jdat.PublicServicePoint;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_psp_create}, {@code dat_psp_create_any}, {@code dat_psp_free} and
 * {@code dat_psp_query} (digest §2.9): every documented return code, PSP-any, and endpoints the
 * provider creates for {@code DAT_PSP_PROVIDER_FLAG}.
 *
 * <p>Codes that cannot arise here:
 * <ul>
 *   <li>{@code dat_psp_create} {@code DAT_INVALID_PARAMETER} for {@code conn_qual}: a
 *       {@code DAT_CONN_QUAL} is a u64 (a Java {@code long}) and every value names a qualifier of
 *       a loopback address; only {@code psp_flags} can be invalid.</li>
 *   <li>{@code DAT_MODEL_NOT_SUPPORTED} ({@code dat_psp_create}, {@code dat_psp_create_any}): the
 *       engine supports both {@code DAT_PSP_CONSUMER_FLAG} and {@code DAT_PSP_PROVIDER_FLAG}
 *       ({@code ep_creator} is {@code DAT_PSP_CREATES_EP_IFASKED}); any other value is a bad
 *       parameter.</li>
 *   <li>{@code dat_psp_query} {@code DAT_INVALID_HANDLE} for a handle of another type (dapltest
 *       FFT queryinfo passes an EVD): Java's types refuse it at compile time; a freed PSP is the
 *       case that remains.</li>
 *   <li>NULL {@code psp_handle} / {@code conn_qual} OUT pointers: Java returns the values.</li>
 * </ul>
 */
class PspTest
{
    private static final long QUAL = 4711;

    private static EventDispatcher crEvd(final Fixture f)
    {
        return f.evd(8, EvdFlags.CR_FLAG);
    }

    private static PspParam query(final PublicServicePoint psp)
    {
        final PspParam p = new PspParam();
        psp.query(PspParam.FIELD_ALL, p);
        return p;
    }

    // ------------------------------------------------------------------ dat_psp_create

    @Test
    void pspCreateListensOnTheQualifierAndDeliversEveryRequestAsACr()
    {
        // a PSP is persistent: any number of requests, each its own CR
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = crEvd(f);
            final PublicServicePoint psp = f.ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG);
            assertEquals(QUAL, psp.connQual());
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            connect(f, a, QUAL, new byte[] {1, 2, 3});
            connect(f, b, QUAL, new byte[] {4});
            final DatEvent first = request(cr);
            assertSame(psp, first.crArrival.spHandle);
            assertEquals(QUAL, first.crArrival.connQual);
            assertEquals(f.address, first.crArrival.localIaAddress);
            final DatEvent second = request(cr);
            final ConnectionRequest r1 = first.crArrival.crHandle;
            final ConnectionRequest r2 = second.crArrival.crHandle;
            assertNotEquals(r1, r2);
            final CrParam p = new CrParam();
            r1.query(CrParam.FIELD_PRIVATE_DATA, p);
            assertArrayEquals(new byte[] {1, 2, 3}, p.privateData);
            r2.query(CrParam.FIELD_PRIVATE_DATA, p);
            assertArrayEquals(new byte[] {4}, p.privateData);
            r1.reject();
            r2.reject();
            connection(a, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            connection(b, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    @Test
    void pspCreateBeyondMaxPspsIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_psps=1")))
        {
            final EventDispatcher cr = crEvd(f);
            final PublicServicePoint psp = f.ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.pspCreate(QUAL + 1, cr, PspFlags.CONSUMER_FLAG));
            // nothing was left listening on the refused qualifier
            final Fixture.Ep a = f.ep(null);
            connect(f, a, QUAL + 1, null);
            connection(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            psp.free();
            f.ia.pspCreate(QUAL + 1, cr, PspFlags.CONSUMER_FLAG).free();
        }
    }

    @Test
    void pspCreateWithABadIaOrEvdIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")); Fixture g = new Fixture())
        {
            final EventDispatcher freed = crEvd(f);
            freed.free();
            final EventDispatcher noCrFlag = f.evd(8, EvdFlags.CONNECTION_FLAG | EvdFlags.DTO_FLAG);
            final EventDispatcher foreign = crEvd(g);
            for (final EventDispatcher bad : new EventDispatcher[] {null, freed, noCrFlag, foreign})
            {
                final DatException e = expect(DatReturnType.INVALID_HANDLE,
                    () -> f.ia.pspCreate(QUAL, bad, PspFlags.CONSUMER_FLAG));
                assertEquals(DatReturnSubtype.INVALID_HANDLE_EVD_CR, e.subtype());
            }
            final EventDispatcher cr = crEvd(f);
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG)).subtype());
        }
    }

    @Test
    void pspCreateWithUndefinedFlagsIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = crEvd(f);
            for (final int flags : new int[] {2, 3, -1})
            {
                assertEquals(DatReturnSubtype.INVALID_ARG4, expect(DatReturnType.INVALID_PARAMETER,
                    () -> f.ia.pspCreate(QUAL, cr, flags)).subtype());
            }
            // the refused calls left no listener and no reference on the EVD
            cr.free();
        }
    }

    @Test
    void pspCreateOnAQualifierInUseIsConnQualInUse()
    {
        // digest §2.9 [INF]: every instance of an IA address shares one qualifier space
        final String name = Fixture.loopbackWith("");
        try (Fixture f = new Fixture(name); Fixture g = new Fixture(name))
        {
            final EventDispatcher cr = crEvd(f);
            final PublicServicePoint psp = f.ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG);
            expect(DatReturnType.CONN_QUAL_IN_USE, () -> f.ia.pspCreate(QUAL, cr, PspFlags.PROVIDER_FLAG));
            final EventDispatcher other = crEvd(g);
            expect(DatReturnType.CONN_QUAL_IN_USE, () -> g.ia.pspCreate(QUAL, other, PspFlags.CONSUMER_FLAG));
            assertEquals(0x80020000, expect(DatReturnType.CONN_QUAL_IN_USE,
                () -> g.ia.pspCreate(QUAL, other, PspFlags.CONSUMER_FLAG)).status().value());
            // an RSP holds a qualifier just as well
            final Endpoint ep = f.ep(null).ep();
            f.ia.rspCreate(QUAL + 1, ep, cr);
            expect(DatReturnType.CONN_QUAL_IN_USE, () -> f.ia.pspCreate(QUAL + 1, cr, PspFlags.CONSUMER_FLAG));
            // the first listener still gets the requests
            final Fixture.Ep a = f.ep(null);
            connect(f, a, QUAL, null);
            assertSame(psp, request(cr).crArrival.spHandle);
            psp.free();
            // the refused PSPs took no reference on the EVD, and the qualifier is free again
            other.free();
            g.ia.pspCreate(QUAL, crEvd(g), PspFlags.CONSUMER_FLAG);
        }
    }

    // ------------------------------------------------------------------ dat_psp_create_any

    @Test
    void pspCreateAnyPicksAQualifierNothingElseUses()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("any_qual_range=100-103")))
        {
            final EventDispatcher cr = crEvd(f);
            f.ia.pspCreate(101, cr, PspFlags.CONSUMER_FLAG);
            final Set<Long> picked = new HashSet<>();
            for (int i = 0; i < 3; i++)
            {
                final PublicServicePoint psp = f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG);
                final long q = psp.connQual();
                assertTrue(q >= 100 && q <= 103 && q != 101, "picked " + q);
                assertTrue(picked.add(q), "picked " + q + " twice");
                assertEquals(q, query(psp).connQual);
            }
            // the qualifier it picked is the one it listens on
            final Fixture.Ep a = f.ep(null);
            final long q = picked.iterator().next();
            connect(f, a, q, null);
            assertEquals(q, request(cr).crArrival.connQual);
        }
    }

    @Test
    void pspCreateAnyWhenEveryQualifierIsTakenIsConnQualUnavailable()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("any_qual_range=200-201")))
        {
            final EventDispatcher cr = crEvd(f);
            final PublicServicePoint a = f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG);
            f.ia.pspCreate(201, cr, PspFlags.CONSUMER_FLAG);
            final DatException e = expect(DatReturnType.CONN_QUAL_UNAVAILABLE,
                () -> f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG));
            assertEquals(0x80140000, e.status().value());
            a.free();
            assertEquals(200, f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG).connQual());
        }
    }

    @Test
    void pspCreateAnyBeyondMaxPspsIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_psps=2")))
        {
            final EventDispatcher cr = crEvd(f);
            f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG);
            final PublicServicePoint b = f.ia.pspCreateAny(cr, PspFlags.PROVIDER_FLAG);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG));
            b.free();
            f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG);
        }
    }

    @Test
    void pspCreateAnyWithABadIaOrEvdIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher freed = crEvd(f);
            freed.free();
            final EventDispatcher software = f.evd(8, EvdFlags.SOFTWARE_FLAG);
            for (final EventDispatcher bad : new EventDispatcher[] {null, freed, software})
            {
                assertEquals(DatReturnSubtype.INVALID_HANDLE_EVD_CR, expect(DatReturnType.INVALID_HANDLE,
                    () -> f.ia.pspCreateAny(bad, PspFlags.CONSUMER_FLAG)).subtype());
            }
            final EventDispatcher cr = crEvd(f);
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG)).subtype());
        }
    }

    @Test
    void pspCreateAnyWithUndefinedFlagsIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("any_qual_range=300-300")))
        {
            final EventDispatcher cr = crEvd(f);
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.pspCreateAny(cr, 2));
            // the only qualifier of the range is still free
            assertEquals(300, f.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG).connQual());
        }
    }

    // ------------------------------------------------------------------ dat_psp_free

    @Test
    void pspFreeStopsListeningAndLaterRequestsAreNonPeerRejected()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = crEvd(f);
            final PublicServicePoint psp = f.ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG);
            psp.free();
            final Fixture.Ep a = f.ep(null);
            connect(f, a, QUAL, null);
            connection(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, state(a.ep()));
            assertEmpty(cr);
            // the EVD lost its stream and the qualifier is free
            cr.free();
            f.ia.pspCreate(QUAL, crEvd(f), PspFlags.CONSUMER_FLAG);
        }
    }

    @Test
    void pspFreeLeavesRequestsAlreadyDeliveredValid()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = crEvd(f);
            final PublicServicePoint psp = f.ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG);
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            connect(f, a, QUAL, new byte[] {9});
            final ConnectionRequest r = request(cr).crArrival.crHandle;
            psp.free();
            final CrParam p = new CrParam();
            r.query(CrParam.FIELD_ALL, p);
            assertArrayEquals(new byte[] {9}, p.privateData);
            r.accept(b.ep(), null);
            connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(b, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void pspFreeOfAFreedPspIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final PublicServicePoint psp = f.ia.pspCreate(QUAL, crEvd(f), PspFlags.CONSUMER_FLAG);
            psp.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PSP,
                expect(DatReturnType.INVALID_HANDLE, psp::free).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_psp_query

    @Test
    void pspQueryReportsIaQualifierEvdAndFlags()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = crEvd(f);
            final PublicServicePoint psp = f.ia.pspCreate(QUAL, cr, PspFlags.PROVIDER_FLAG);
            final PspParam p = query(psp);
            assertSame(f.ia, p.iaHandle);
            assertEquals(QUAL, p.connQual);
            assertSame(cr, p.evdHandle);
            assertEquals(PspFlags.PROVIDER_FLAG, p.pspFlags);
            final PspParam one = new PspParam();
            psp.query(PspParam.FIELD_CONN_QUAL, one);
            assertEquals(QUAL, one.connQual);
            // a zero mask asks for nothing and needs no structure
            psp.query(0, null);
        }
    }

    @Test
    void pspQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd(f), PspFlags.CONSUMER_FLAG);
            expect(DatReturnType.INVALID_PARAMETER, () -> psp.query(PspParam.FIELD_ALL, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> psp.query(0x10, new PspParam()));
        }
    }

    @Test
    void pspQueryOfAFreedPspIsInvalidHandle()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd(f), PspFlags.CONSUMER_FLAG);
            psp.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PSP, expect(DatReturnType.INVALID_HANDLE,
                () -> psp.query(PspParam.FIELD_ALL, new PspParam())).subtype());
        }
    }

    // ------------------------------------------------------------------ semantics

    @Test
    void pspBacklogIsItsEvdQueueAndAFullBacklogIsNonPeerRejected()
    {
        // digest §2.9 [INF]: a full CR EVD refuses the request rather than overflowing
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = f.evd(1, EvdFlags.CR_FLAG);
            f.ia.pspCreate(QUAL, cr, PspFlags.PROVIDER_FLAG);
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            connect(f, a, QUAL, null);
            connect(f, b, QUAL, null);
            connection(b, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEmpty(f.asyncEvd);
            final ConnectionRequest r = request(cr).crArrival.crHandle;
            assertEmpty(cr);
            r.reject();
            connection(a, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    @Test
    void pspProviderFlagCreatesAnEndpointForEachRequestThatTheConsumerConfiguresAndAccepts()
    {
        // digest §2.9: the provider's EP has no PZ and no EVDs, and is TENTATIVE_CONNECTION_PENDING
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher cr = crEvd(f);
            f.ia.pspCreate(QUAL, cr, PspFlags.PROVIDER_FLAG);
            final io.jdat.EpAttr limits = new io.jdat.EpAttr();
            limits.maxRdmaReadIn = 1;
            limits.maxRdmaReadOut = 2;
            final Fixture.Ep a = f.ep(limits);
            connect(f, a, QUAL, new byte[] {7});
            final ConnectionRequest r = request(cr).crArrival.crHandle;
            final CrParam cp = new CrParam();
            r.query(CrParam.FIELD_LOCAL_EP_HANDLE, cp);
            final Endpoint ep = cp.localEpHandle;
            assertNotNull(ep);
            final EpParam p = new EpParam();
            ep.query(EpParam.FIELD_ALL, p);
            assertEquals(EpState.TENTATIVE_CONNECTION_PENDING, p.epState);
            assertSame(f.ia, p.iaHandle);
            assertNull(p.pzHandle);
            assertNull(p.recvEvdHandle);
            assertNull(p.requestEvdHandle);
            assertNull(p.connectEvdHandle);
            // its RDMA Read limits match the active side's: it serves 2 reads, issues at most 1
            assertTrue(p.epAttr.maxRdmaReadIn >= 2, p.epAttr.toString());
            assertTrue(p.epAttr.maxRdmaReadOut <= 1, p.epAttr.toString());
            // unconfigured, it cannot accept; the failed accept leaves the CR alone
            expect(DatReturnType.INVALID_HANDLE, () -> r.accept(null, null));
            final EpParam set = new EpParam();
            set.pzHandle = f.pz;
            set.recvEvdHandle = f.evd(16, EvdFlags.DTO_FLAG);
            set.requestEvdHandle = f.evd(16, EvdFlags.DTO_FLAG);
            set.connectEvdHandle = f.evd(4, EvdFlags.CONNECTION_FLAG);
            ep.modify(EpParam.FIELD_PZ_HANDLE | EpParam.FIELD_RECV_EVD_HANDLE | EpParam.FIELD_REQUEST_EVD_HANDLE
                | EpParam.FIELD_CONNECT_EVD_HANDLE, set);
            final Lmr lmr = f.lmr(64);
            ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 42, 0);
            r.accept(null, new byte[] {8});
            expect(DatReturnType.INVALID_HANDLE, () -> r.query(CrParam.FIELD_ALL, new CrParam()));
            final DatEvent est = connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(new byte[] {8}, est.connection.privateData);
            final DatEvent passive = Fixture.next(set.connectEvdHandle);
            assertTrue(passive.is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
            assertSame(ep, passive.connection.epHandle);
            assertEquals(EpState.CONNECTED, state(ep));
            // data flows to the provider's endpoint
            final Lmr src = f.lmr(64);
            a.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, 0, 5)}, 1, 0);
            final DatEvent recv = Fixture.next(set.recvEvdHandle);
            assertSame(ep, recv.dto.epHandle);
            assertEquals(42, recv.dto.userCookie);
            assertEquals(5, recv.dto.transferredLength);
        }
    }

    @Test
    void pspProviderFlagEndpointGoesBackToTheProviderOnReject()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_eps=3")))
        {
            final EventDispatcher cr = crEvd(f);
            f.ia.pspCreate(QUAL, cr, PspFlags.PROVIDER_FLAG);
            final Fixture.Ep a = f.ep(null);
            connect(f, a, QUAL, null);
            final ConnectionRequest r = request(cr).crArrival.crHandle;
            final CrParam cp = new CrParam();
            r.query(CrParam.FIELD_LOCAL_EP_HANDLE, cp);
            final Endpoint ep = cp.localEpHandle;
            // a provider EP awaiting accept or reject cannot be freed by the consumer
            expect(DatReturnType.INVALID_STATE, ep::free);
            r.reject();
            connection(a, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> ep.query(EpParam.FIELD_ALL, new EpParam())).subtype());
            // its slot is free again: max_eps=3 allows two more of the consumer's own
            f.ep(null);
            f.ep(null);
        }
    }
}

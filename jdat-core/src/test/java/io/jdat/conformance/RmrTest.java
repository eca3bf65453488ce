package io.jdat.conformance;

import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.Rmr;
import io.jdat.RmrParam;
import io.jdat.RmrTriplet;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_rmr_create}, {@code dat_rmr_bind}, {@code dat_rmr_free} and {@code dat_rmr_query}
 * (digest §2.5). Binds go through an endpoint of {@link Fixture#connectedPair}.
 */
class RmrTest
{
    private static final int REMOTE = MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG;

    /** The next event of the EP's request EVD, which must be this RMR's bind completion. */
    private static DatEvent bindCompletion(final Fixture.Ep ep, final Rmr rmr)
    {
        final DatEvent ev = Fixture.next(ep.req());
        assertTrue(ev.is(EventNumber.RMR_BIND_COMPLETION_EVENT), ev.toString());
        assertSame(rmr, ev.rmrBind.rmrHandle);
        assertSame(ep.req(), ev.evdHandle);
        return ev;
    }

    /** The peer RDMA-writes one long through {@code context}; returns the write's status. */
    private static DtoStatus peerWrites(final Fixture f, final Fixture.Ep peer, final int context,
        final long target, final long value)
    {
        final Lmr src = f.lmr(8);
        src.memory().set(ValueLayout.JAVA_LONG, 0, value);
        peer.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(src, 0, 8)}, 99, new RmrTriplet(context, target, 8),
            CompletionFlags.DEFAULT_FLAG);
        final DatEvent ev = Fixture.next(peer.req());
        assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
        assertEquals(99, ev.dto.userCookie);
        return ev.dto.status;
    }

    // ------------------------------------------------------------------ dat_rmr_create

    @Test
    void rmrCreateMakesAnUnboundWindowInItsZone()
    {
        try (Fixture f = new Fixture())
        {
            final Rmr rmr = f.pz.rmrCreate();
            final RmrParam p = new RmrParam();
            // FFT queryinfo: an unbound RMR queried with DAT_RMR_FIELD_ALL - DAT_RMR_FIELD_LMR_TRIPLET
            rmr.query(RmrParam.FIELD_ALL - RmrParam.FIELD_LMR_TRIPLET, p);
            assertSame(f.ia, p.iaHandle);
            assertSame(f.pz, p.pzHandle);
            rmr.free();
        }
    }

    @Test
    void rmrCreateBeyondMaxRmrsIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_rmrs=2")))
        {
            final Rmr a = f.pz.rmrCreate();
            final Rmr b = f.pz.rmrCreate();
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES, f.pz::rmrCreate);
            assertEquals(DatReturnSubtype.RESOURCE_MEMORY_REGION, e.subtype());
            a.free();
            f.pz.rmrCreate().free();
            b.free();
        }
    }

    @Test
    void rmrCreateInAFreedZoneIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final ProtectionZone pz = f.ia.pzCreate();
            pz.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ,
                expect(DatReturnType.INVALID_HANDLE, pz::rmrCreate).subtype());
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            expect(DatReturnType.INVALID_HANDLE, f.pz::rmrCreate);
        }
    }

    // ------------------------------------------------------------------ dat_rmr_bind

    @Test
    void rmrBindReturnsAContextThatThePeerCanUseOnceTheBindCompleted()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(4096);
            final Rmr rmr = f.pz.rmrCreate();
            final LmrTriplet range = LmrTriplet.of(lmr, 128, 256);
            final int context = rmr.bind(range, REMOTE, pair[0].ep(), 77, CompletionFlags.DEFAULT_FLAG);
            final DatEvent ev = bindCompletion(pair[0], rmr);
            assertEquals(77, ev.rmrBind.userCookie);
            assertEquals(DtoStatus.SUCCESS, ev.rmrBind.status);
            final RmrParam p = new RmrParam();
            rmr.query(RmrParam.FIELD_ALL, p);
            assertEquals(context, p.rmrContext);
            assertEquals(REMOTE, p.memPriv);
            assertEquals(lmr.lmrContext(), p.lmrTriplet.lmrContext);
            assertEquals(range.virtualAddress, p.lmrTriplet.virtualAddress);
            assertEquals(256, p.lmrTriplet.segmentLength);
            assertEquals(DtoStatus.SUCCESS, peerWrites(f, pair[1], context, range.virtualAddress + 8, 0x5eedL));
            assertEquals(0x5eedL, lmr.memory().get(ValueLayout.JAVA_LONG, 136));
        }
    }

    @Test
    void rmrRebindGivesANewContextAndTheOldOneStopsWorking()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(1024);
            final Rmr rmr = f.pz.rmrCreate();
            final int first = rmr.bind(LmrTriplet.of(lmr, 0, 512), REMOTE, pair[0].ep(), 1, 0);
            bindCompletion(pair[0], rmr);
            final int second = rmr.bind(LmrTriplet.of(lmr, 512, 512), REMOTE, pair[0].ep(), 2, 0);
            assertNotEquals(first, second);
            assertEquals(2, bindCompletion(pair[0], rmr).rmrBind.userCookie);
            assertEquals(DtoStatus.SUCCESS, peerWrites(f, pair[1], second, lmr.registeredAddress() + 512, 7));
            assertEquals(DtoStatus.ERR_REMOTE_ACCESS, peerWrites(f, pair[1], first, lmr.registeredAddress(), 8));
        }
    }

    @Test
    void rmrBindOfZeroLengthUnbinds()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(256);
            final Rmr rmr = f.pz.rmrCreate();
            final int context = rmr.bind(LmrTriplet.of(lmr, 0, 256), REMOTE, pair[0].ep(), 1, 0);
            bindCompletion(pair[0], rmr);
            expect(DatReturnType.INVALID_STATE, lmr::free);
            // zero length: context and address are not looked at
            rmr.bind(new LmrTriplet(0, 0, 0), 0, pair[0].ep(), 2, 0);
            assertEquals(DtoStatus.SUCCESS, bindCompletion(pair[0], rmr).rmrBind.status);
            lmr.free();
            assertEquals(DtoStatus.ERR_REMOTE_ACCESS, peerWrites(f, pair[1], context, lmr.registeredAddress(), 1));
        }
    }

    @Test
    void rmrBindWithSuppressReportsNothingOnSuccess()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(256);
            final Rmr rmr = f.pz.rmrCreate();
            final int context = rmr.bind(LmrTriplet.of(lmr, 0, 256), REMOTE, pair[0].ep(), 1,
                CompletionFlags.SUPPRESS_FLAG);
            // the bind fences what follows: a Send-free check is the peer's write succeeding
            assertEquals(DtoStatus.SUCCESS, peerWrites(f, pair[1], context, lmr.registeredAddress(), 3));
            assertEquals(DatStatus.QUEUE_EMPTY, pair[0].req().dequeue(new DatEvent()));
        }
    }

    @Test
    void rmrBindThroughAnEndpointThatIsNotConnectedIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            final Lmr lmr = f.lmr(64);
            final Rmr rmr = f.pz.rmrCreate();
            final DatException e = expect(DatReturnType.INVALID_STATE,
                () -> rmr.bind(LmrTriplet.of(lmr, 0, 64), REMOTE, ep, 1, 0));
            assertEquals(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, e.subtype());
            // the failed bind left the LMR free of windows
            lmr.free();
        }
    }

    @Test
    void rmrBindThroughADisconnectedEndpointIsAcceptedAndFlushed()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            pair[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            assertTrue(Fixture.next(pair[0].conn()).is(EventNumber.CONNECTION_EVENT_DISCONNECTED));
            final Lmr lmr = f.lmr(64);
            final Rmr rmr = f.pz.rmrCreate();
            rmr.bind(LmrTriplet.of(lmr, 0, 64), REMOTE, pair[0].ep(), 5, 0);
            final DatEvent ev = bindCompletion(pair[0], rmr);
            assertEquals(DtoStatus.ERR_FLUSHED, ev.rmrBind.status);
            assertEquals(5, ev.rmrBind.userCookie);
            // a flushed bind binds nothing
            lmr.free();
        }
    }

    @Test
    void rmrBindWithBadArgumentsIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Endpoint ep = pair[0].ep();
            final Lmr lmr = f.lmr(256);
            final Rmr rmr = f.pz.rmrCreate();
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.bind(null, REMOTE, ep, 1, 0));
            // outside the LMR
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.bind(LmrTriplet.of(lmr, 200, 57), REMOTE, ep, 1, 0));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> rmr.bind(new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() - 8, 16), REMOTE, ep, 1, 0));
            // a context that names no LMR
            expect(DatReturnType.INVALID_PARAMETER,
                () -> rmr.bind(new LmrTriplet(lmr.lmrContext() + 1, lmr.registeredAddress(), 16), REMOTE, ep, 1, 0));
            // undefined privilege or completion flags
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.bind(LmrTriplet.of(lmr, 0, 8), 0x100, ep, 1, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.bind(LmrTriplet.of(lmr, 0, 8), REMOTE, ep, 1,
                CompletionFlags.SOLICITED_WAIT_FLAG));
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.bind(LmrTriplet.of(lmr, 0, 8), REMOTE, ep, 1, 0x40));
            // UNSIGNALLED needs the EP's request_completion_flags to be UNSIGNALLED
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.bind(LmrTriplet.of(lmr, 0, 8), REMOTE, ep, 1,
                CompletionFlags.UNSIGNALLED_FLAG));
            // nothing was posted and nothing is bound
            assertEquals(DatStatus.QUEUE_EMPTY, pair[0].req().dequeue(new DatEvent()));
            lmr.free();
        }
    }

    @Test
    void rmrBindUnsignalledIsAllowedWhenTheEndpointIsUnsignalled()
    {
        try (Fixture f = new Fixture())
        {
            final EpAttr attr = new EpAttr();
            attr.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            final Fixture.Ep[] pair = f.connectedPair(attr);
            final Lmr lmr = f.lmr(64);
            final Rmr rmr = f.pz.rmrCreate();
            rmr.bind(LmrTriplet.of(lmr, 0, 64), REMOTE, pair[0].ep(), 3, CompletionFlags.UNSIGNALLED_FLAG);
            // queued (dequeuable) though it does not notify
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, pair[0].req().dequeue(ev));
            assertTrue(ev.is(EventNumber.RMR_BIND_COMPLETION_EVENT));
            assertEquals(3, ev.rmrBind.userCookie);
        }
    }

    @Test
    void rmrBindWithABadRmrOrEndpointIsInvalidHandle()
    {
        try (Fixture f = new Fixture(); Fixture g = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(64);
            final Rmr rmr = f.pz.rmrCreate();
            final LmrTriplet range = LmrTriplet.of(lmr, 0, 64);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> rmr.bind(range, REMOTE, null, 1, 0)).subtype());
            // an endpoint of another IA instance
            final Endpoint foreign = g.ia.epCreate(g.pz, null, null, null, null);
            expect(DatReturnType.INVALID_HANDLE, () -> rmr.bind(range, REMOTE, foreign, 1, 0));
            final Endpoint freed = f.ia.epCreate(f.pz, null, null, null, null);
            freed.free();
            expect(DatReturnType.INVALID_HANDLE, () -> rmr.bind(range, REMOTE, freed, 1, 0));
            final Rmr gone = f.pz.rmrCreate();
            gone.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_RMR,
                expect(DatReturnType.INVALID_HANDLE, () -> gone.bind(range, REMOTE, pair[0].ep(), 1, 0)).subtype());
            lmr.free();
        }
    }

    @Test
    void rmrBindOfAnLmrWithoutLocalWriteForRemoteWriteIsPrivilegesViolation()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr readOnly = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(f.memory(64)), 64, f.pz,
                MemPriv.LOCAL_READ_FLAG);
            final Rmr rmr = f.pz.rmrCreate();
            final DatException e = expect(DatReturnType.PRIVILEGES_VIOLATION, () -> rmr.bind(
                LmrTriplet.of(readOnly, 0, 64), MemPriv.REMOTE_WRITE_FLAG, pair[0].ep(), 1, 0));
            assertEquals(DatReturnSubtype.PRIVILEGES_RDMA_WRITE, e.subtype());
            // trap T-6: local read is always granted, so remote read of a write-only LMR is fine
            final Lmr writeOnly = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(f.memory(64)), 64, f.pz,
                MemPriv.LOCAL_WRITE_FLAG);
            rmr.bind(LmrTriplet.of(writeOnly, 0, 64), MemPriv.REMOTE_READ_FLAG, pair[0].ep(), 2, 0);
            assertEquals(DtoStatus.SUCCESS, bindCompletion(pair[0], rmr).rmrBind.status);
            readOnly.free();
        }
    }

    @Test
    void rmrBindAcrossProtectionZonesIsProtectionViolation()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final ProtectionZone other = f.ia.pzCreate();
            final Lmr elsewhere = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(f.memory(64)), 64, other,
                MemPriv.ALL_FLAG);
            final Lmr here = f.lmr(64);
            // LMR in another zone than the RMR and the EP
            expect(DatReturnType.PROTECTION_VIOLATION,
                () -> f.pz.rmrCreate().bind(LmrTriplet.of(elsewhere, 0, 64), REMOTE, pair[0].ep(), 1, 0));
            // RMR in another zone than the LMR and the EP
            final Rmr otherRmr = other.rmrCreate();
            expect(DatReturnType.PROTECTION_VIOLATION,
                () -> otherRmr.bind(LmrTriplet.of(here, 0, 64), REMOTE, pair[0].ep(), 1, 0));
            // RMR and LMR together, but the EP elsewhere
            expect(DatReturnType.PROTECTION_VIOLATION,
                () -> otherRmr.bind(LmrTriplet.of(elsewhere, 0, 64), REMOTE, pair[0].ep(), 1, 0));
            elsewhere.free();
            here.free();
        }
    }

    @Test
    void rmrBindOnAFullRequestQueueIsInsufficientResources()
    {
        try (Fixture f = new Fixture())
        {
            // an endpoint with no room for requests at all
            final EpAttr attr = new EpAttr();
            attr.maxRequestDtos = 0;
            final Fixture.Ep[] pair = f.connectedPair(attr);
            final Lmr lmr = f.lmr(64);
            final Rmr rmr = f.pz.rmrCreate();
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> rmr.bind(LmrTriplet.of(lmr, 0, 64), REMOTE, pair[0].ep(), 1, 0));
            assertEquals(DatReturnSubtype.RESOURCE_TEP, e.subtype());
            // the refused bind left nothing bound
            lmr.free();
        }
    }

    // ------------------------------------------------------------------ dat_rmr_free

    @Test
    void rmrFreeOfABoundWindowUnbindsItFirst()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(256);
            final Rmr rmr = f.pz.rmrCreate();
            final int context = rmr.bind(LmrTriplet.of(lmr, 0, 256), REMOTE, pair[0].ep(), 1, 0);
            bindCompletion(pair[0], rmr);
            rmr.free();
            // the LMR is free of windows, and the context is dead
            assertEquals(DtoStatus.ERR_REMOTE_ACCESS, peerWrites(f, pair[1], context, lmr.registeredAddress(), 1));
            lmr.free();
        }
    }

    @Test
    void rmrFreeTwiceIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Rmr rmr = f.pz.rmrCreate();
            rmr.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_RMR,
                expect(DatReturnType.INVALID_HANDLE, rmr::free).subtype());
            // the zone is free again
            f.pz.free();
        }
    }

    // ------------------------------------------------------------------ dat_rmr_query

    @Test
    void rmrQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final Rmr rmr = f.pz.rmrCreate();
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.query(0x20, new RmrParam()));
            expect(DatReturnType.INVALID_PARAMETER, () -> rmr.query(RmrParam.FIELD_ALL, null));
        }
    }

    @Test
    void rmrQueryOfAFreedWindowIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Rmr rmr = f.pz.rmrCreate();
            rmr.free();
            expect(DatReturnType.INVALID_HANDLE, () -> rmr.query(RmrParam.FIELD_ALL, new RmrParam()));
        }
    }
}

package io.jdat.conformance;

import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrParam;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.Rmr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_lmr_create}, {@code dat_lmr_free}, {@code dat_lmr_query},
 * {@code dat_lmr_sync_rdma_read} and {@code dat_lmr_sync_rdma_write} (digest §2.4).
 */
class LmrTest
{
    private static final byte[] COOKIE = new byte[Dat.LMR_COOKIE_SIZE];

    // ------------------------------------------------------------------ dat_lmr_create

    @Test
    void lmrCreateVirtualRegistersTheWholeRangeAndReportsItsContexts()
    {
        try (Fixture f = new Fixture())
        {
            final MemorySegment m = f.memory(4096);
            final Lmr local = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 1000, f.pz,
                MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
            // dapltest limit_size_lmr: registered_address <= va, registered_size >= length + (va - address)
            assertTrue(local.registeredAddress() <= m.address());
            assertTrue(local.registeredSize() >= 1000 + (m.address() - local.registeredAddress()));
            assertTrue(local.lmrContext() != 0);
            // no remote right asked: no rmr_context is generated
            assertEquals(0, local.rmrContext());
            final Lmr remote = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 4096, f.pz,
                MemPriv.REMOTE_READ_FLAG);
            assertNotEquals(0, remote.rmrContext());
            assertNotEquals(local.lmrContext(), remote.lmrContext());
            final Lmr writable = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 4096, f.pz,
                MemPriv.REMOTE_WRITE_FLAG | MemPriv.LOCAL_WRITE_FLAG);
            assertNotEquals(0, writable.rmrContext());
            // the registered memory is the consumer's memory
            m.set(ValueLayout.JAVA_INT, 12, 0x1234_5678);
            assertEquals(0x1234_5678, local.memory().get(ValueLayout.JAVA_INT, 12));
            local.free();
            remote.free();
            writable.free();
        }
    }

    @Test
    void lmrCreateOfTypeLmrReusesTheMemoryOfAnotherLmrInAnotherZone()
    {
        try (Fixture f = new Fixture())
        {
            final Lmr source = f.lmr(512);
            final ProtectionZone other = f.ia.pzCreate();
            // the length argument is ignored for DAT_MEM_TYPE_LMR
            final Lmr copy = f.ia.lmrCreate(MemType.LMR, RegionDescription.forLmr(source), 0, other,
                MemPriv.LOCAL_WRITE_FLAG);
            assertEquals(source.registeredAddress(), copy.registeredAddress());
            assertEquals(source.registeredSize(), copy.registeredSize());
            assertNotEquals(source.lmrContext(), copy.lmrContext());
            final LmrParam p = new LmrParam();
            copy.query(LmrParam.FIELD_ALL, p);
            assertEquals(MemType.LMR, p.memType);
            assertSame(other, p.pzHandle);
            // the other zone is now in use
            expect(DatReturnType.INVALID_STATE, other::free);
            copy.free();
            other.free();
            source.free();
        }
    }

    @Test
    void lmrCreateSharedVirtualTakesAFortyByteCookie()
    {
        try (Fixture f = new Fixture())
        {
            final MemorySegment m = f.memory(256);
            final Lmr lmr = f.ia.lmrCreate(MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m, COOKIE), 256,
                f.pz, MemPriv.ALL_FLAG);
            final LmrParam p = new LmrParam();
            lmr.query(LmrParam.FIELD_MEM_TYPE | LmrParam.FIELD_LENGTH, p);
            assertEquals(MemType.SHARED_VIRTUAL, p.memType);
            assertEquals(256, p.length);
            lmr.free();
        }
    }

    @Test
    void lmrCreateOfZeroBytesIsLengthError()
    {
        // trap T-11: dapltest FFT mem case 2 expects DAT_LENGTH_ERROR, not INVALID_PARAMETER
        try (Fixture f = new Fixture())
        {
            final DatException e = expect(DatReturnType.LENGTH_ERROR,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(f.memory(64)), 0, f.pz,
                    MemPriv.ALL_FLAG));
            assertEquals(0x80080000, e.status().value());
            expect(DatReturnType.LENGTH_ERROR, () -> f.ia.lmrCreate(MemType.SHARED_VIRTUAL,
                RegionDescription.forSharedMemory(f.memory(64), COOKIE), 0, f.pz, MemPriv.ALL_FLAG));
        }
    }

    @Test
    void lmrCreateOfSolarisStronglyOrderedMemoryIsModelNotSupported()
    {
        try (Fixture f = new Fixture())
        {
            expect(DatReturnType.MODEL_NOT_SUPPORTED, () -> f.ia.lmrCreate(MemType.SO_VIRTUAL,
                RegionDescription.forVa(f.memory(64)), 64, f.pz, MemPriv.ALL_FLAG));
        }
    }

    @Test
    void lmrCreateWithBadArgumentsIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final MemorySegment m = f.memory(64);
            final RegionDescription va = RegionDescription.forVa(m);
            assertEquals(DatReturnSubtype.INVALID_ARG2, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.lmrCreate(4, va, 64, f.pz, MemPriv.ALL_FLAG)).subtype());
            // the region description does not match the memory type
            assertEquals(DatReturnSubtype.INVALID_ARG3, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.lmrCreate(MemType.LMR, va, 64, f.pz, MemPriv.ALL_FLAG)).subtype());
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrCreate(MemType.VIRTUAL, null, 64, f.pz, 0));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(null), 64, f.pz, 0));
            // longer than the memory, or negative
            assertEquals(DatReturnSubtype.INVALID_ARG4, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, va, 65, f.pz, 0)).subtype());
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrCreate(MemType.VIRTUAL, va, -1, f.pz, 0));
            // undefined privilege bits
            assertEquals(DatReturnSubtype.INVALID_ARG6, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, va, 64, f.pz, 0x04)).subtype());
            // a cookie is exactly 40 bytes
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrCreate(MemType.SHARED_VIRTUAL,
                RegionDescription.forSharedMemory(m, new byte[39]), 64, f.pz, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrCreate(MemType.SHARED_VIRTUAL,
                RegionDescription.forSharedMemory(m, null), 64, f.pz, 0));
            // memory the consumer already released
            final Arena gone = Arena.ofConfined();
            final MemorySegment released = gone.allocate(64);
            gone.close();
            expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(released), 64, f.pz, 0));
            // the Solaris RO_DISABLE privilege is accepted and has no effect
            f.ia.lmrCreate(MemType.VIRTUAL, va, 64, f.pz, MemPriv.RO_DISABLE_FLAG | MemPriv.LOCAL_WRITE_FLAG).free();
        }
    }

    @Test
    void lmrCreateWithABadIaPzOrSourceLmrIsInvalidHandle()
    {
        try (Fixture f = new Fixture(); Fixture g = new Fixture())
        {
            final RegionDescription va = RegionDescription.forVa(f.memory(64));
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, va, 64, null, 0)).subtype());
            // a PZ of another IA instance
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, va, 64, g.pz, 0)).subtype());
            final ProtectionZone freed = f.ia.pzCreate();
            freed.free();
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.lmrCreate(MemType.VIRTUAL, va, 64, freed, 0));
            final Lmr source = f.lmr(64);
            source.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_LMR, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.lmrCreate(MemType.LMR, RegionDescription.forLmr(source), 0, f.pz, 0)).subtype());
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, va, 64, f.pz, 0)).subtype());
        }
    }

    @Test
    void lmrCreateBeyondMaxLmrsIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_lmrs=2")))
        {
            final Lmr a = f.lmr(64);
            final Lmr b = f.lmr(64);
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.lmr(64));
            assertEquals(DatReturnSubtype.RESOURCE_MEMORY_REGION, e.subtype());
            // DAT_MEM_TYPE_LMR registrations count too
            expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> f.ia.lmrCreate(MemType.LMR, RegionDescription.forLmr(a), 0, f.pz, 0));
            b.free();
            f.lmr(64).free();
            a.free();
        }
    }

    @Test
    void lmrCreateLargerThanMaxLmrBlockSizeIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_lmr_block_size=4096")))
        {
            final MemorySegment m = f.memory(8192);
            expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 4097, f.pz, 0));
            f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 4096, f.pz, 0).free();
        }
    }

    // ------------------------------------------------------------------ dat_lmr_free

    @Test
    void lmrFreeDeregistersAndTheContextStopsWorking()
    {
        try (Fixture f = new Fixture())
        {
            final Lmr lmr = f.lmr(64);
            final LmrTriplet[] seg = {LmrTriplet.of(lmr, 0, 64)};
            f.ia.lmrSyncRdmaRead(seg, 1);
            lmr.free();
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrSyncRdmaRead(seg, 1));
            // the memory itself is still the consumer's
            lmr.memory().set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        }
    }

    @Test
    void lmrFreedBetweenPostsIsRefusedByTheSlotThatNamedItLast()
    {
        // one receive slot and one request slot, so each post reuses the slot (and the region it
        // validated) of the post before
        try (Fixture f = new Fixture())
        {
            final io.jdat.EpAttr attr = new io.jdat.EpAttr();
            attr.maxRecvDtos = 1;
            attr.maxRequestDtos = 1;
            final Fixture.Ep[] p = f.connectedPair(attr);
            final Fixture.Ep a = p[0];
            final Fixture.Ep b = p[1];
            Lmr source = f.lmr(64);
            Lmr sink = f.lmr(64);
            for (int round = 0; round < 3; round++)
            {
                final LmrTriplet[] from = {LmrTriplet.of(source, 0, 64)};
                final LmrTriplet[] into = {LmrTriplet.of(sink, 0, 64)};
                source.memory().set(ValueLayout.JAVA_BYTE, 0, (byte) (round + 1));
                b.ep().postRecv(1, into, round, 0);
                a.ep().postSend(1, from, round, CompletionFlags.DEFAULT_FLAG);
                assertEquals(DtoStatus.SUCCESS, Fixture.next(b.recv()).dto.status);
                assertEquals(DtoStatus.SUCCESS, Fixture.next(a.req()).dto.status);
                assertEquals(round + 1, sink.memory().get(ValueLayout.JAVA_BYTE, 0));

                // freed (and the index registered again): the triplets the slots named last are stale
                source.free();
                sink.free();
                final Lmr newSource = f.lmr(64);
                final Lmr newSink = f.lmr(64);
                assertEquals(DatReturnSubtype.PRIVILEGES_WRITE, expect(DatReturnType.PRIVILEGES_VIOLATION,
                    () -> b.ep().postRecv(1, into, 9, 0)).subtype());
                assertEquals(DatReturnSubtype.PRIVILEGES_READ, expect(DatReturnType.PRIVILEGES_VIOLATION,
                    () -> a.ep().postSend(1, from, 9, CompletionFlags.DEFAULT_FLAG)).subtype());
                source = newSource;
                sink = newSink;
            }
            // the refused posts left nothing behind, and the endpoints still work
            assertEquals(DatStatus.QUEUE_EMPTY, b.recv().dequeue(new DatEvent()));
            assertEquals(DatStatus.QUEUE_EMPTY, a.req().dequeue(new DatEvent()));
            b.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, 64)}, 7, 0);
            a.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(source, 0, 64)}, 7, CompletionFlags.DEFAULT_FLAG);
            assertEquals(7, Fixture.next(b.recv()).dto.userCookie);
        }
    }

    @Test
    void lmrFreeWhileAnRmrIsBoundIntoItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] pair = f.connectedPair(null);
            final Lmr lmr = f.lmr(256);
            final Rmr rmr = f.pz.rmrCreate();
            rmr.bind(LmrTriplet.of(lmr, 0, 128), MemPriv.REMOTE_READ_FLAG, pair[0].ep(), 1,
                CompletionFlags.DEFAULT_FLAG);
            final DatEvent ev = Fixture.next(pair[0].req());
            assertTrue(ev.is(EventNumber.RMR_BIND_COMPLETION_EVENT));
            assertEquals(DtoStatus.SUCCESS, ev.rmrBind.status);
            final DatException e = expect(DatReturnType.INVALID_STATE, lmr::free);
            assertEquals(DatReturnSubtype.INVALID_STATE_LMR_IN_USE, e.subtype());
            // still registered
            f.ia.lmrSyncRdmaWrite(new LmrTriplet[] {LmrTriplet.of(lmr, 0, 256)}, 1);
            rmr.free();
            lmr.free();
        }
    }

    @Test
    void lmrFreeTwiceIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Lmr lmr = f.lmr(64);
            lmr.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_LMR,
                expect(DatReturnType.INVALID_HANDLE, lmr::free).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_lmr_query

    @Test
    void lmrQueryReportsEveryField()
    {
        try (Fixture f = new Fixture())
        {
            final MemorySegment m = f.memory(1024);
            final RegionDescription region = RegionDescription.forVa(m);
            final int priv = MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_WRITE_FLAG;
            final Lmr lmr = f.ia.lmrCreate(MemType.VIRTUAL, region, 1000, f.pz, priv);
            final LmrParam p = new LmrParam();
            lmr.query(LmrParam.FIELD_ALL, p);
            assertSame(f.ia, p.iaHandle);
            assertEquals(MemType.VIRTUAL, p.memType);
            assertEquals(region, p.regionDesc);
            assertEquals(1000, p.length);
            assertSame(f.pz, p.pzHandle);
            assertEquals(priv, p.memPriv);
            assertEquals(lmr.lmrContext(), p.lmrContext);
            assertEquals(lmr.rmrContext(), p.rmrContext);
            assertEquals(lmr.registeredSize(), p.registeredSize);
            assertEquals(lmr.registeredAddress(), p.registeredAddress);
            lmr.query(0, null);
        }
    }

    @Test
    void lmrQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final Lmr lmr = f.lmr(64);
            expect(DatReturnType.INVALID_PARAMETER, () -> lmr.query(0x400, new LmrParam()));
            expect(DatReturnType.INVALID_PARAMETER, () -> lmr.query(LmrParam.FIELD_ALL, null));
        }
    }

    @Test
    void lmrQueryOfAFreedLmrIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final Lmr lmr = f.lmr(64);
            lmr.free();
            expect(DatReturnType.INVALID_HANDLE, () -> lmr.query(LmrParam.FIELD_ALL, new LmrParam()));
        }
    }

    // ------------------------------------------------------------------ dat_lmr_sync_rdma_read / _write

    @Test
    void lmrSyncAcceptsSegmentsOfSeveralLmrsAndZones()
    {
        try (Fixture f = new Fixture())
        {
            final ProtectionZone other = f.ia.pzCreate();
            final Lmr a = f.lmr(256);
            final MemorySegment m = f.memory(128);
            final Lmr b = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 128, other, 0);
            // a zero-length triplet's context and address are garbage and not looked at (trap T-30)
            final LmrTriplet[] segs = {LmrTriplet.of(a, 0, 256), LmrTriplet.of(b, 100, 28), new LmrTriplet(-7, 3, 0),
                LmrTriplet.of(a, 255, 1)};
            f.ia.lmrSyncRdmaRead(segs, segs.length);
            f.ia.lmrSyncRdmaWrite(segs, segs.length);
            // only the first num_segments are looked at
            final LmrTriplet[] withTail = {LmrTriplet.of(a, 0, 8), new LmrTriplet(0, 0, 99)};
            f.ia.lmrSyncRdmaRead(withTail, 1);
            f.ia.lmrSyncRdmaWrite(null, 0);
            a.free();
            b.free();
            other.free();
        }
    }

    @Test
    void lmrSyncOfARangeOutsideItsLmrOrOfNoLmrIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            final Lmr a = f.lmr(256);
            final Lmr gone = f.lmr(64);
            final LmrTriplet goneSeg = LmrTriplet.of(gone, 0, 64);
            gone.free();
            final Rmr rmr = f.pz.rmrCreate();
            final LmrTriplet[][] bad = {
                {LmrTriplet.of(a, 200, 57)},
                {new LmrTriplet(a.lmrContext(), a.registeredAddress() - 1, 2)},
                {LmrTriplet.of(a, 0, 8), new LmrTriplet(a.lmrContext() ^ 0x55, a.registeredAddress(), 8)},
                {goneSeg},
                {null},
            };
            for (final LmrTriplet[] segs : bad)
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrSyncRdmaRead(segs, segs.length));
                expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrSyncRdmaWrite(segs, segs.length));
            }
            // num_segments that does not match the array
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrSyncRdmaRead(new LmrTriplet[1], 2));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.lmrSyncRdmaWrite(null, 1));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.lmrSyncRdmaWrite(new LmrTriplet[] {LmrTriplet.of(a, 0, 1)}, -1));
            rmr.free();
        }
    }

    @Test
    void lmrSyncOnAClosedIaIsInvalidHandle()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        ia.close(CloseFlags.ABRUPT_FLAG);
        expect(DatReturnType.INVALID_HANDLE, () -> ia.lmrSyncRdmaRead(new LmrTriplet[0], 0));
        expect(DatReturnType.INVALID_HANDLE, () -> ia.lmrSyncRdmaWrite(new LmrTriplet[0], 0));
    }
}

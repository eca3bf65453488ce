package io.jdat.conformance;

import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Endpoint;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.ProtectionZone;
import io.jdat.PzParam;
import io.jdat.Rmr;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import org.junit.jupiter.api.Test;

/** {@code dat_pz_create}, {@code dat_pz_free} and {@code dat_pz_query} (digest §1.2, §2.3). */
class PzTest
{
    @Test
    void pzCreateMakesDistinctZones()
    {
        try (Fixture f = new Fixture())
        {
            final ProtectionZone a = f.ia.pzCreate();
            final ProtectionZone b = f.ia.pzCreate();
            assertNotSame(a, b);
            assertEquals(io.jdat.HandleType.PZ, Dat.getHandleType(a));
            a.free();
            b.free();
        }
    }

    @Test
    void pzCreateBeyondMaxPzsIsInsufficientResources()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_pzs=3")))
        {
            // the fixture holds one PZ already
            final ProtectionZone a = f.ia.pzCreate();
            final ProtectionZone b = f.ia.pzCreate();
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES, f.ia::pzCreate);
            assertEquals(DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN, e.subtype());
            a.free();
            f.ia.pzCreate().free();
            b.free();
        }
    }

    @Test
    void pzCreateOnAClosedIaIsInvalidHandle()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        ia.close(CloseFlags.ABRUPT_FLAG);
        final DatException e = expect(DatReturnType.INVALID_HANDLE, ia::pzCreate);
        assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, e.subtype());
    }

    @Test
    void pzFreeOfAnUnusedZoneSucceedsAndKillsTheHandle()
    {
        try (Fixture f = new Fixture())
        {
            final ProtectionZone pz = f.ia.pzCreate();
            pz.free();
            final DatException e = expect(DatReturnType.INVALID_HANDLE, pz::free);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ, e.subtype());
            // a freed zone cannot be used for new objects either
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.lmrCreate(io.jdat.MemType.VIRTUAL, io.jdat.RegionDescription.forVa(f.memory(64)), 64, pz,
                    0)).subtype());
            expect(DatReturnType.INVALID_HANDLE, pz::rmrCreate);
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(pz, null, null, null, null));
        }
    }

    @Test
    void pzFreeWhileAnLmrUsesItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final Lmr lmr = f.lmr(64);
            final DatException e = expect(DatReturnType.INVALID_STATE, f.pz::free);
            assertEquals(DatReturnSubtype.INVALID_STATE_PZ_IN_USE, e.subtype());
            lmr.free();
            f.pz.free();
        }
    }

    @Test
    void pzFreeWhileAnRmrUsesItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final Rmr rmr = f.pz.rmrCreate();
            assertEquals(DatReturnSubtype.INVALID_STATE_PZ_IN_USE,
                expect(DatReturnType.INVALID_STATE, f.pz::free).subtype());
            rmr.free();
            f.pz.free();
        }
    }

    @Test
    void pzFreeWhileAnEndpointUsesItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            assertEquals(DatReturnSubtype.INVALID_STATE_PZ_IN_USE,
                expect(DatReturnType.INVALID_STATE, f.pz::free).subtype());
            ep.free();
            f.pz.free();
        }
    }

    @Test
    void pzFreeWhileAnSrqUsesItIsInvalidState()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            assertEquals(DatReturnSubtype.INVALID_STATE_PZ_IN_USE,
                expect(DatReturnType.INVALID_STATE, f.pz::free).subtype());
            srq.free();
            f.pz.free();
        }
    }

    @Test
    void pzQueryReportsItsIa()
    {
        try (Fixture f = new Fixture())
        {
            final PzParam p = new PzParam();
            f.pz.query(PzParam.FIELD_ALL, p);
            assertSame(f.ia, p.iaHandle);
            final PzParam q = new PzParam();
            f.pz.query(PzParam.FIELD_IA_HANDLE, q);
            assertSame(f.ia, q.iaHandle);
            // a zero mask asks for nothing and needs no structure
            f.pz.query(0, null);
        }
    }

    @Test
    void pzQueryWithUndefinedMaskOrNullParamIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            expect(DatReturnType.INVALID_PARAMETER, () -> f.pz.query(0x2, new PzParam()));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.pz.query(PzParam.FIELD_ALL, null));
            final PzParam untouched = new PzParam();
            expect(DatReturnType.INVALID_PARAMETER, () -> f.pz.query(PzParam.FIELD_ALL | 0x80, untouched));
            assertNull(untouched.iaHandle);
        }
    }

    @Test
    void pzQueryOfAFreedZoneIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final ProtectionZone pz = f.ia.pzCreate();
            pz.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ,
                expect(DatReturnType.INVALID_HANDLE, () -> pz.query(PzParam.FIELD_ALL, new PzParam())).subtype());
        }
    }
}

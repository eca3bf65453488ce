package io.jdat.conformance;

import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderAttr;
import io.jdat.PzSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_ia_open}, {@code dat_ia_close} and {@code dat_ia_query} (digest §2.1): every return
 * code each documents. The seed man page's rules for {@code dat_ia_open} are in
 * {@link SeedIaOpenTest}.
 */
class IaTest
{
    // ------------------------------------------------------------------ dat_ia_open

    @Test
    void iaOpenSucceedsAndReturnsALiveIa()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        try
        {
            assertEquals(io.jdat.HandleType.IA, ia.handleType());
            final EventDispatcher async = ia.query(0, null, 0, null);
            assertNotNull(async);
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    @Test
    void iaOpenBeyondMaxIasIsInsufficientResources()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("max_ias=2");
        final InterfaceAdapter a = Dat.iaOpen(r.name(), 4, null);
        final InterfaceAdapter b = Dat.iaOpen(r.name(), 4, null);
        final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> Dat.iaOpen(r.name(), 4, null));
        assertEquals(DatReturnSubtype.RESOURCE_DEVICE, e.subtype());
        assertEquals(2, r.provider().openInstances());
        a.close(CloseFlags.GRACEFUL_FLAG);
        // a closed instance frees its slot
        final InterfaceAdapter c = Dat.iaOpen(r.name(), 4, null);
        b.close(CloseFlags.GRACEFUL_FLAG);
        c.close(CloseFlags.GRACEFUL_FLAG);
        r.unregister();
    }

    @Test
    void iaOpenWithAsyncQueueLongerThanMaxEvdQlenIsInsufficientResources()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("max_evd_qlen=16");
        final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> Dat.iaOpen(r.name(), 17, null));
        assertEquals(DatReturnSubtype.RESOURCE_TEVD, e.subtype());
        assertEquals(0, r.provider().openInstances());
        Dat.iaOpen(r.name(), 16, null).close(CloseFlags.GRACEFUL_FLAG);
        r.unregister();
    }

    @Test
    void iaOpenWithBadNameIsInvalidParameter()
    {
        for (final String bad : new String[] {null, "", "l".repeat(Dat.NAME_MAX_LENGTH)})
        {
            final DatException e = expect(DatReturnType.INVALID_PARAMETER, () -> Dat.iaOpen(bad, 4, null));
            assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype());
        }
    }

    @Test
    void iaOpenWithNonPositiveAsyncQueueLengthIsInvalidParameter()
    {
        for (final int qlen : new int[] {0, -1, Integer.MIN_VALUE})
        {
            final DatException e = expect(DatReturnType.INVALID_PARAMETER, () -> Dat.iaOpen("loopback", qlen, null));
            assertEquals(DatReturnSubtype.INVALID_ARG2, e.subtype());
        }
    }

    @Test
    void iaOpenOfAnUnknownNameIsProviderNotFound()
    {
        final DatException e = expect(DatReturnType.PROVIDER_NOT_FOUND,
            () -> Dat.iaOpen(RegisteredLoopback.unregisteredName(), 4, null));
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
        assertEquals(0x800A0000 | 98, e.status().value());
    }

    @Test
    void iaOpenWithAFreedAsyncEvdIsInvalidHandle()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher mine = f.ia.evdCreate(8, null, EvdFlags.ASYNC_FLAG);
            mine.free();
            final DatOut<EventDispatcher> holder = new DatOut<>(mine);
            final DatException e = expect(DatReturnType.INVALID_HANDLE, () -> Dat.iaOpen("loopback", 4, holder));
            assertEquals(DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, e.subtype());
            assertSame(mine, holder.value);
        }
    }

    // ------------------------------------------------------------------ dat_ia_close

    @Test
    void iaCloseAbruptWithLiveObjectsSucceeds()
    {
        final Fixture f = new Fixture();
        f.lmr(128);
        f.ep(null);
        f.ia.cnoCreate(null);
        f.ia.close(CloseFlags.ABRUPT_FLAG);
        expect(DatReturnType.INVALID_HANDLE, () -> f.pz.query(0, null));
        f.close();
    }

    @Test
    void iaCloseGracefulAfterEverythingWasFreedSucceeds()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        final ProtectionZone pz = ia.pzCreate();
        final EventDispatcher evd = ia.evdCreate(4, null, EvdFlags.DTO_FLAG);
        evd.free();
        pz.free();
        // the async EVD dat_ia_open created need not be freed (trap T-24)
        ia.close(CloseFlags.GRACEFUL_FLAG);
        expect(DatReturnType.INVALID_HANDLE, () -> ia.query(0, null, 0, null));
    }

    @Test
    void iaCloseGracefulWithObjectsLeftIsInvalidStateAndChangesNothing()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        final ProtectionZone pz = ia.pzCreate();
        final DatException e = expect(DatReturnType.INVALID_STATE, () -> ia.close(CloseFlags.GRACEFUL_FLAG));
        assertEquals(DatReturnSubtype.INVALID_STATE_IA_IN_USE, e.subtype());
        // nothing happened: the IA and its PZ are alive
        pz.query(0, null);
        ia.pzCreate().free();
        pz.free();
        ia.close(CloseFlags.GRACEFUL_FLAG);
    }

    @Test
    void iaCloseWithUndefinedFlagsIsInvalidParameter()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        for (final int flags : new int[] {2, -1, 0x100})
        {
            final DatException e = expect(DatReturnType.INVALID_PARAMETER, () -> ia.close(flags));
            assertEquals(DatReturnSubtype.INVALID_ARG2, e.subtype());
        }
        ia.close(CloseFlags.GRACEFUL_FLAG);
    }

    @Test
    void iaCloseOfAClosedIaIsInvalidHandle()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        ia.close(CloseFlags.DEFAULT);
        final DatException e = expect(DatReturnType.INVALID_HANDLE, () -> ia.close(CloseFlags.ABRUPT_FLAG));
        assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, e.subtype());
        expect(DatReturnType.INVALID_HANDLE, () -> ia.close(CloseFlags.GRACEFUL_FLAG));
        // a closed handle with bad flags is still a bad handle first
        expect(DatReturnType.INVALID_HANDLE, () -> ia.close(7));
    }

    // ------------------------------------------------------------------ dat_ia_query

    @Test
    void iaQueryFillsIaAndProviderAttributesAndReturnsTheAsyncEvd()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("max_eps=5 max_evd_qlen=77 max_pzs=3");
        final DatOut<EventDispatcher> async = new DatOut<>();
        final InterfaceAdapter ia = Dat.iaOpen(r.name(), 8, async);
        try
        {
            final IaAttr a = new IaAttr();
            final ProviderAttr p = new ProviderAttr();
            assertSame(async.value, ia.query(IaAttr.FIELD_ALL, a, ProviderAttr.FIELD_ALL, p));
            assertEquals(r.name(), a.adapterName);
            assertEquals(5, a.maxEps);
            assertEquals(77, a.maxEvdQlen);
            assertEquals(3, a.maxPzs);
            assertNotNull(a.iaAddress);
            assertEquals(a.numTransportAttr, a.transportAttr.length);
            assertEquals(1, p.daplVersionMajor);
            assertEquals(2, p.daplVersionMinor);
            assertEquals(r.info().isThreadSafe(), p.isThreadSafe);
            assertTrue(p.maxPrivateDataSize >= 64, "max_private_data_size is at least 64 (trap T-35)");
            assertEquals(PzSupport.SHAREABLE, p.pzSupport);
            assertFalse(p.lmrSyncReq);
            assertTrue((p.lmrMemTypesSupported & MemType.bit(MemType.VIRTUAL)) != 0);
            for (final boolean[] row : p.evdStreamMergingSupported)
            {
                for (final boolean b : row)
                {
                    assertTrue(b, "every stream merges with every other (trap T-23)");
                }
            }
            // NULL outputs with zero masks are accepted (libdat's own call)
            assertSame(async.value, ia.query(0, null, 0, null));
            assertSame(async.value, ia.query(0, null, ProviderAttr.FIELD_ALL, new ProviderAttr()));
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
            r.unregister();
        }
    }

    @Test
    void iaQueryWithNullAttributesAndAMaskIsInvalidParameter()
    {
        // FFT queryinfo: NULL ia_attributes with DAT_IA_ALL
        try (Fixture f = new Fixture())
        {
            // dat_ia_query(ia, async_evd, ia_attr_mask, ia_attr, provider_attr_mask, provider_attr):
            // the missing structure is what is wrong, not the mask that asks for it
            assertEquals(DatReturnSubtype.INVALID_ARG4, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.query(IaAttr.FIELD_ALL, null, 0, null)).subtype());
            assertEquals(DatReturnSubtype.INVALID_ARG6, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.query(0, null, ProviderAttr.FIELD_ALL, null)).subtype());
        }
    }

    @Test
    void iaQueryWithUndefinedMaskBitsIsInvalidParameter()
    {
        try (Fixture f = new Fixture())
        {
            assertEquals(DatReturnSubtype.INVALID_ARG3, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.query(IaAttr.FIELD_ALL + 1, new IaAttr(), 0, null)).subtype());
            assertEquals(DatReturnSubtype.INVALID_ARG5, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.query(0, null, 1L << 40, new ProviderAttr())).subtype());
        }
    }

    @Test
    void iaQueryOfAClosedIaIsInvalidHandle()
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 4, null);
        ia.close(CloseFlags.ABRUPT_FLAG);
        final DatException e = expect(DatReturnType.INVALID_HANDLE,
            () -> ia.query(IaAttr.FIELD_ALL, new IaAttr(), 0, null));
        assertEquals(DatReturnSubtype.INVALID_HANDLE_IA, e.subtype());
    }

    @Test
    void iaQueryAttributesAreCommonToInstancesButAsyncEvdsAreTheirOwn()
    {
        final InterfaceAdapter a = Dat.iaOpen("loopback", 4, null);
        final InterfaceAdapter b = Dat.iaOpen("loopback", 4, null);
        try
        {
            final IaAttr aa = new IaAttr();
            final IaAttr ba = new IaAttr();
            final EventDispatcher asyncA = a.query(IaAttr.FIELD_IA_MAX_EPS | IaAttr.FIELD_IA_ADDRESS_PTR, aa, 0, null);
            final EventDispatcher asyncB = b.query(IaAttr.FIELD_IA_MAX_EPS | IaAttr.FIELD_IA_ADDRESS_PTR, ba, 0, null);
            assertEquals(aa.maxEps, ba.maxEps);
            assertEquals(aa.iaAddress, ba.iaAddress);
            assertNotSame(asyncA, asyncB);
            final EvdParam pa = new EvdParam();
            asyncA.query(EvdParam.FIELD_ALL, pa);
            assertSame(a, pa.iaHandle);
        }
        finally
        {
            a.close(CloseFlags.ABRUPT_FLAG);
            b.close(CloseFlags.ABRUPT_FLAG);
        }
    }
}

package io.jdat.tools;

import static io.jdat.tools.ConnectedPair.SECOND;
import static io.jdat.tools.ConnectedPair.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.CloseFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.ReservedServicePoint;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * When dat_psp_free or dat_rsp_free returns, the connection qualifier is free: a server that
 * restarts its listener in-process gets it back at once (not DAT_CONN_QUAL_IN_USE while the
 * provider lets go in the background), also after an RSP took its one request. The new listener
 * is the one that answers. On every provider.
 */
class QualifierReuseTest
{
    private static final int ROUNDS = 20;

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void aFreedServicePointFreesItsQualifier(final String provider)
    {
        final InterfaceAdapter ia = Dat.iaOpen(provider, 64, null);
        try
        {
            final ProtectionZone pz = ia.pzCreate();
            final EventDispatcher crEvd = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
            final EventDispatcher dto = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final long qual = psp.connQual();
            for (int i = 0; i < ROUNDS; i++)
            {
                psp.free();
                psp = ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
            }
            psp.free();
            for (int i = 0; i < ROUNDS; i++)
            {
                final Endpoint reserved = ia.epCreate(pz, dto, dto, conn, null);
                final ReservedServicePoint rsp = ia.rspCreate(qual, reserved, crEvd);
                rsp.free();
                reserved.free();
                ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG).free();
            }

            // an RSP that took its request stopped listening; freed, the qualifier is free too
            final IaAttr attr = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);
            final Endpoint reserved = ia.epCreate(pz, dto, dto, conn, null);
            final ReservedServicePoint rsp = ia.rspCreate(qual, reserved, crEvd);
            final Endpoint first = ia.epCreate(pz, dto, dto, conn, null);
            first.connect(attr.iaAddress, qual, 10 * SECOND, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
            final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(rsp, cr.crArrival.spHandle, "the request came through the RSP");
            cr.crArrival.crHandle.reject();
            rsp.free();
            psp = ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);

            // and the listener of the last dat_psp_create is the one that answers
            final Endpoint second = ia.epCreate(pz, dto, dto, conn, null);
            second.connect(attr.iaAddress, qual, 10 * SECOND, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
            final DatEvent again = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(psp, again.crArrival.spHandle, "the request came through the new PSP");
            assertEquals(qual, again.crArrival.connQual);
            again.crArrival.crHandle.reject();
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }
}

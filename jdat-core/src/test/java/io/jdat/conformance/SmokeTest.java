package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.IaAddress;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class SmokeTest
{
    @Test
    void connectSendWriteReadDisconnect()
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 8, async);
        try (Arena arena = Arena.ofConfined())
        {
            final ProtectionZone pz = ia.pzCreate();
            final MemorySegment a = arena.allocate(4096);
            final MemorySegment b = arena.allocate(4096);
            final Lmr la = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(a), 4096, pz, MemPriv.ALL_FLAG);
            final Lmr lb = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(b), 4096, pz, MemPriv.ALL_FLAG);
            final EventDispatcher dto = ia.evdCreate(64, null, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            final EventDispatcher crEvd = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
            final Endpoint client = ia.epCreate(pz, dto, dto, conn, null);
            final Endpoint server = ia.epCreate(pz, dto, dto, conn, null);
            final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lb, 0, 64)}, 7, 0);
            client.connect(IaAddress.named("loopback"), psp.connQual(), Dat.TIMEOUT_INFINITE, "hi".getBytes(),
                Qos.BEST_EFFORT, 0);
            final DatEvent ev = new DatEvent();
            final DatCount n = new DatCount();
            assertEquals(DatStatus.SUCCESS, crEvd.wait(1_000_000, 1, ev, n));
            final ConnectionRequest cr = ev.crArrival.crHandle;
            cr.accept(server, "ok".getBytes());
            assertEquals(DatStatus.SUCCESS, conn.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
            assertEquals(DatStatus.SUCCESS, conn.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
            a.setString(0, "hello");
            client.postSend(1, new LmrTriplet[] {LmrTriplet.of(la, 0, 6)}, 1, 0);
            assertEquals(DatStatus.SUCCESS, dto.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
            assertEquals(DatStatus.SUCCESS, dto.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
            assertEquals("hello", b.getString(0));
            a.set(ValueLayout.JAVA_LONG, 104, 42L);
            client.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(la, 104, 8)}, 2,
                new RmrTriplet(lb.rmrContext(), lb.registeredAddress() + 200, 8), 0);
            assertEquals(DatStatus.SUCCESS, dto.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
            assertEquals(42L, b.get(ValueLayout.JAVA_LONG, 200));
            b.set(ValueLayout.JAVA_LONG, 304, 4242L);
            client.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(la, 304, 8)}, 3,
                new RmrTriplet(lb.rmrContext(), lb.registeredAddress() + 304, 8), 0);
            assertEquals(DatStatus.SUCCESS, dto.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
            assertEquals(4242L, a.get(ValueLayout.JAVA_LONG, 304));
            client.disconnect(CloseFlags.GRACEFUL_FLAG);
            assertEquals(DatStatus.SUCCESS, conn.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
            assertEquals(DatStatus.SUCCESS, conn.wait(1_000_000, 1, ev, n));
            System.out.println(ev);
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }
}

package io.jdat.bench;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Two endpoints of one loopback IA connected through a PSP, with registered buffers, for the
 * benchmarks. Not a benchmark itself.
 */
final class LoopbackRig implements AutoCloseable
{
    final InterfaceAdapter ia;
    final ProtectionZone pz;
    final Arena arena = Arena.ofShared();
    final Endpoint client;
    final Endpoint server;
    final EventDispatcher clientRecv;
    final EventDispatcher clientReq;
    final EventDispatcher serverRecv;
    final EventDispatcher serverReq;
    final Lmr clientLmr;
    final Lmr serverLmr;

    LoopbackRig(final long bufferSize, final int queueDepth)
    {
        ia = Dat.iaOpen("loopback", 16, new DatOut<>());
        pz = ia.pzCreate();
        clientLmr = lmr(bufferSize);
        serverLmr = lmr(bufferSize);
        clientRecv = ia.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        clientReq = ia.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        serverRecv = ia.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        serverReq = ia.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher crEvd = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
        final io.jdat.EpAttr attr = new io.jdat.EpAttr();
        attr.maxRecvDtos = queueDepth;
        attr.maxRequestDtos = queueDepth;
        client = ia.epCreate(pz, clientRecv, clientReq, conn, attr);
        server = ia.epCreate(pz, serverRecv, serverReq, conn, attr);
        final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        final IaAttr a = new IaAttr();
        ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
        final IaAddress address = a.iaAddress;
        client.connect(address, psp.connQual(), Dat.TIMEOUT_INFINITE, null, Qos.BEST_EFFORT, 0);
        final DatEvent ev = next(crEvd);
        ev.crArrival.crHandle.accept(server, null);
        expect(next(conn), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        expect(next(conn), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
    }

    private Lmr lmr(final long size)
    {
        final MemorySegment m = arena.allocate(size, 4096);
        return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), size, pz, MemPriv.ALL_FLAG);
    }

    static DatEvent next(final EventDispatcher evd)
    {
        final DatEvent ev = new DatEvent();
        if (evd.wait(5_000_000, 1, ev, new DatCount()) != DatStatus.SUCCESS)
        {
            throw new IllegalStateException("no event within 5 s on " + evd);
        }
        return ev;
    }

    static void expect(final DatEvent ev, final EventNumber n)
    {
        if (!ev.is(n))
        {
            throw new IllegalStateException("expected " + n + ", got " + ev);
        }
    }

    @Override
    public void close()
    {
        ia.close(CloseFlags.ABRUPT_FLAG);
        arena.close();
    }
}

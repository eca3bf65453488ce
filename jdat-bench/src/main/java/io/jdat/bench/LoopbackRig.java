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
 * Two connected endpoints with registered buffers, for the benchmarks: of one loopback IA, or of
 * another provider's IA (shm connects an IA to itself through its own rings), or with
 * {@code twoIas} a client IA beside the server's (as two processes would have: on shm each IA has
 * its own port, progress lock and I/O thread). Not a benchmark itself.
 */
final class LoopbackRig implements AutoCloseable
{
    final InterfaceAdapter ia;
    /** The client's IA: {@link #ia} itself unless the rig has two. */
    final InterfaceAdapter clientIa;
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
        this("loopback", false, bufferSize, queueDepth);
    }

    LoopbackRig(final String provider, final boolean twoIas, final long bufferSize, final int queueDepth)
    {
        ia = open(provider);
        clientIa = twoIas ? open(provider) : ia;
        final ProtectionZone pz = ia.pzCreate();
        final ProtectionZone clientPz = twoIas ? clientIa.pzCreate() : pz;
        clientLmr = lmr(clientIa, clientPz, bufferSize);
        serverLmr = lmr(ia, pz, bufferSize);
        clientRecv = clientIa.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        clientReq = clientIa.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        serverRecv = ia.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        serverReq = ia.evdCreate(queueDepth * 2, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher clientConn = twoIas ? clientIa.evdCreate(8, null, EvdFlags.CONNECTION_FLAG) : conn;
        final io.jdat.EpAttr attr = new io.jdat.EpAttr();
        attr.maxRecvDtos = queueDepth;
        // on shm a Send retires once the sender's port sees that the peer consumed its record,
        // which may come after the peer reaped it and reposted the receive
        attr.maxRequestDtos = queueDepth * 2;
        client = clientIa.epCreate(clientPz, clientRecv, clientReq, clientConn, attr);
        server = ia.epCreate(pz, serverRecv, serverReq, conn, attr);
        connect(ia, client, server, clientConn, conn);
    }

    /**
     * Connects {@code client} to {@code server}, an endpoint of {@code serverIa}, through a public
     * service point of that IA, and waits for both ends' ESTABLISHED events (on one EVD, or two).
     */
    static void connect(final InterfaceAdapter serverIa, final Endpoint client, final Endpoint server,
        final EventDispatcher clientConn, final EventDispatcher serverConn)
    {
        final EventDispatcher crEvd = serverIa.evdCreate(8, null, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = serverIa.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        final IaAttr a = new IaAttr();
        serverIa.query(IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
        client.connect(a.iaAddress, psp.connQual(), Dat.TIMEOUT_INFINITE, null, Qos.BEST_EFFORT, 0);
        next(crEvd).crArrival.crHandle.accept(server, null);
        expect(next(serverConn), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        expect(next(clientConn), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
        crEvd.free();
    }

    /**
     * {@code dat_ia_open} of {@code provider}; a name ending in {@value #NONTHREADSAFE} opens the
     * name before it from its {@code nonthreadsafe} entry ({@code dat_ia_openv} with thread safety
     * false: one consumer thread at a time, the engine's single-writer queues).
     */
    private static InterfaceAdapter open(final String provider)
    {
        if (provider.endsWith(NONTHREADSAFE))
        {
            return Dat.iaOpenv(provider.substring(0, provider.length() - NONTHREADSAFE.length()), 16, new DatOut<>(),
                Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        }
        return Dat.iaOpen(provider, 16, new DatOut<>());
    }

    /** The suffix of a provider name that asks for its {@code nonthreadsafe} entry. */
    static final String NONTHREADSAFE = "-nonthreadsafe";

    private Lmr lmr(final InterfaceAdapter owner, final ProtectionZone pz, final long size)
    {
        final MemorySegment m = arena.allocate(size, 4096);
        return owner.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), size, pz, MemPriv.ALL_FLAG);
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
        if (clientIa != ia)
        {
            clientIa.close(CloseFlags.ABRUPT_FLAG);
        }
        ia.close(CloseFlags.ABRUPT_FLAG);
        arena.close();
    }
}

package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;

/**
 * A client and a server endpoint of one IA of a provider, connected through a PSP, each with an
 * EVD of its own for requests, receives and connection events. Closing closes the IA abruptly.
 */
final class ConnectedPair implements AutoCloseable
{
    static final long SECOND = 1_000_000L;

    final InterfaceAdapter ia;
    final ProtectionZone pz;
    final Arena arena = Arena.ofShared();
    final EventDispatcher clientReq;
    final EventDispatcher clientRecv;
    final EventDispatcher clientConn;
    final EventDispatcher serverReq;
    final EventDispatcher serverRecv;
    final EventDispatcher serverConn;
    final Endpoint client;
    final Endpoint server;

    /** Connects; {@code attr} (may be null) is both endpoints' attributes. */
    ConnectedPair(final String provider, final EpAttr attr)
    {
        ia = Dat.iaOpen(provider, 64, null);
        try
        {
            pz = ia.pzCreate();
            clientReq = ia.evdCreate(256, null, EvdFlags.DTO_FLAG);
            clientRecv = ia.evdCreate(256, null, EvdFlags.DTO_FLAG);
            clientConn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            serverReq = ia.evdCreate(256, null, EvdFlags.DTO_FLAG);
            serverRecv = ia.evdCreate(256, null, EvdFlags.DTO_FLAG);
            serverConn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            final EventDispatcher crEvd = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
            client = ia.epCreate(pz, clientRecv, clientReq, clientConn, attr);
            server = ia.epCreate(pz, serverRecv, serverReq, serverConn, attr);
            final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final IaAttr ia0 = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, ia0, 0, null);
            client.connect(ia0.iaAddress, psp.connQual(), 10 * SECOND, null, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT_FLAG);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(server, null);
            next(serverConn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            next(clientConn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            psp.free();
        }
        catch (final RuntimeException | AssertionError e)
        {
            close();
            throw e;
        }
    }

    /** A new LMR of {@code size} zeroed bytes with {@code privileges}. */
    Lmr lmr(final long size, final int privileges)
    {
        return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(arena.allocate(size)), size, pz, privileges);
    }

    /** Waits up to 10 s for the next event of {@code evd} and checks its number. */
    static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent ev = new DatEvent();
        assertEquals(DatStatus.SUCCESS, evd.wait(10 * SECOND, 1, ev, new DatCount()), "no " + expected);
        assertTrue(ev.is(expected), "expected " + expected + ", got " + ev);
        return ev;
    }

    /** Nothing more is queued on {@code evd}. */
    static void empty(final EventDispatcher evd, final String what)
    {
        final DatEvent ev = new DatEvent();
        assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(ev), what + ": " + ev);
    }

    @Override
    public void close()
    {
        try
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        finally
        {
            arena.close();
        }
    }
}

package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
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
import io.jdat.ProviderInfo;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.engine.SoftwareProvider;
import io.jdat.testkit.Transaction;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test plumbing: an shm IA name registered for one test (its own directory and address), opened,
 * with a PZ, an arena for registered memory and endpoint helpers. Closing closes the IA abruptly
 * and removes the name again.
 */
final class ShmNode implements AutoCloseable
{
    static final long SECOND = 1_000_000L;
    /** The two-process transaction of this provider's tests (Sends of 1000 + 7000 i bytes). */
    static final Transaction TRANSACTION = new Transaction(7000);
    private static final AtomicInteger NAMES = new AtomicInteger();

    final String name;
    final ProviderInfo info;
    final ShmLibrary library;
    final InterfaceAdapter ia;
    final EventDispatcher asyncEvd;
    final ProtectionZone pz;
    final IaAddress address;
    final Arena arena = Arena.ofShared();
    private boolean closed;

    private ShmNode(final String instanceData)
    {
        name = "shm-t" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
        info = ProviderInfo.of(name, Dat.THREADSAFE);
        library = new ShmLibrary();
        library.providerInit(info, instanceData);
        final DatOut<EventDispatcher> async = new DatOut<>();
        ia = Dat.iaOpen(name, 64, async);
        asyncEvd = async.value;
        pz = ia.pzCreate();
        final IaAttr a = new IaAttr();
        ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
        address = a.iaAddress;
    }

    /** Registers and opens an shm IA on {@code address} in {@code dir}, with more instance data. */
    static ShmNode open(final Path dir, final String address, final String more)
    {
        return new ShmNode("dir=" + dir + " address=" + address + " " + more);
    }

    SoftwareProvider provider()
    {
        return library.provider(info);
    }

    MemorySegment memory(final long size)
    {
        return arena.allocate(size, 4096);
    }

    Lmr lmr(final MemorySegment m, final int privileges)
    {
        return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz, privileges);
    }

    Lmr lmr(final long size)
    {
        return lmr(memory(size), MemPriv.ALL_FLAG);
    }

    EventDispatcher evd(final int qlen, final int flags)
    {
        return ia.evdCreate(qlen, null, flags);
    }

    /** An endpoint with its own receive, request and connection EVDs. */
    Ep ep(final EpAttr attr)
    {
        final EventDispatcher recv = evd(1024, EvdFlags.DTO_FLAG);
        final EventDispatcher req = evd(1024, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
        final EventDispatcher conn = evd(16, EvdFlags.CONNECTION_FLAG);
        return new Ep(ia.epCreate(pz, recv, req, conn, attr), recv, req, conn);
    }

    record Ep(Endpoint ep, EventDispatcher recv, EventDispatcher req, EventDispatcher conn)
    {
        /** This endpoint as the shared {@link Transaction} takes it. */
        Transaction.Side side()
        {
            return new Transaction.Side(ep, recv, req, conn);
        }
    }

    /** Connects {@code client} to {@code server} through a PSP on {@code qual}: {client EP, server EP}. */
    static Ep[] connect(final ShmNode client, final ShmNode server, final long qual)
    {
        final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = server.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
        final Ep c = client.ep(null);
        final Ep s = server.ep(null);
        c.ep().connect(server.address, qual, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(s.ep(), null);
        next(c.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        next(s.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
        return new Ep[] {c, s};
    }

    /** The next event of an EVD, waiting up to 5 s. */
    static DatEvent next(final EventDispatcher evd)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(5 * SECOND, 1, ev, new DatCount());
        assertEquals(DatStatus.SUCCESS, s, "no event within 5 s");
        return ev;
    }

    /** The next event, which must be {@code expected}. */
    static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent ev = next(evd);
        assertTrue(ev.is(expected), "expected " + expected + ", got " + ev);
        return ev;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        catch (final RuntimeException e)
        {
            arena.close();
            throw e;
        }
        library.providerFini(info);
        arena.close();
    }
}

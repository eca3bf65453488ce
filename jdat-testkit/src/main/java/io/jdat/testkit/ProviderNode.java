package io.jdat.testkit;

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
import io.jdat.RegionDescription;
import io.jdat.spi.DatProviderLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test plumbing that every provider's tests share: a provider name registered for one test with
 * its own instance data ({@code dat_registry_add_provider}), its IA opened ({@code dat_ia_open})
 * with a PZ, an arena for registered memory and endpoint helpers. Closing closes the IA abruptly
 * and removes the name again. A provider's node (TcpNode, ShmNode) adds what only it has.
 */
public class ProviderNode implements AutoCloseable
{
    public static final long SECOND = 1_000_000L;
    private static final AtomicInteger NAMES = new AtomicInteger();

    public final String name;
    public final ProviderInfo info;
    public final InterfaceAdapter ia;
    public final EventDispatcher asyncEvd;
    public final ProtectionZone pz;
    public final IaAddress address;
    public final Arena arena = Arena.ofShared();
    private final DatProviderLibrary library;
    private boolean closed;

    /**
     * Registers {@code library} under a fresh name ({@code prefix}-t PID-N) with
     * {@code instanceData} and opens its IA.
     */
    protected ProviderNode(final String prefix, final DatProviderLibrary library, final String instanceData)
    {
        this.library = library;
        name = prefix + "-t" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
        info = ProviderInfo.of(name, Dat.THREADSAFE);
        library.providerInit(info, instanceData);
        final DatOut<EventDispatcher> async = new DatOut<>();
        ia = Dat.iaOpen(name, 64, async);
        asyncEvd = async.value;
        pz = ia.pzCreate();
        final IaAttr a = new IaAttr();
        ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
        address = a.iaAddress;
    }

    /** Page-aligned memory of this node's arena. */
    public MemorySegment memory(final long size)
    {
        return arena.allocate(size, 4096);
    }

    public Lmr lmr(final MemorySegment m, final int privileges)
    {
        return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz, privileges);
    }

    public Lmr lmr(final long size)
    {
        return lmr(memory(size), MemPriv.ALL_FLAG);
    }

    public EventDispatcher evd(final int qlen, final int flags)
    {
        return ia.evdCreate(qlen, null, flags);
    }

    /** An endpoint with its own receive, request and connection EVDs. */
    public Ep ep(final EpAttr attr)
    {
        final EventDispatcher recv = evd(1024, EvdFlags.DTO_FLAG);
        final EventDispatcher req = evd(1024, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
        final EventDispatcher conn = evd(16, EvdFlags.CONNECTION_FLAG);
        return new Ep(ia.epCreate(pz, recv, req, conn, attr), recv, req, conn);
    }

    /** An endpoint and its three EVDs. */
    public record Ep(Endpoint ep, EventDispatcher recv, EventDispatcher req, EventDispatcher conn)
    {
        /** This endpoint as the shared {@link Transaction} takes it. */
        public Transaction.Side side()
        {
            return new Transaction.Side(ep, recv, req, conn);
        }
    }

    /** The next event of an EVD, waiting up to 5 s. */
    public static DatEvent next(final EventDispatcher evd)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(5 * SECOND, 1, ev, new DatCount());
        assertEquals(DatStatus.SUCCESS, s, "no event within 5 s");
        return ev;
    }

    /** The next event, which must be {@code expected}. */
    public static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent ev = next(evd);
        assertTrue(ev.is(expected), "expected " + expected + ", got " + ev);
        return ev;
    }

    /** The next event of an EVD by polling {@code dat_evd_dequeue} (never waiting in it), for up to 5 s. */
    public static DatEvent polled(final EventDispatcher evd)
    {
        final DatEvent ev = new DatEvent();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (evd.dequeue(ev) != DatStatus.SUCCESS)
        {
            assertTrue(System.nanoTime() < deadline, "no event within 5 s");
            Thread.onSpinWait();
        }
        return ev;
    }

    /** Whether the EVD stays empty for {@code millis}. */
    public static boolean quiet(final EventDispatcher evd, final long millis)
    {
        return evd.wait(millis * 1000, 1, new DatEvent(), new DatCount()) == DatStatus.TIMEOUT_EXPIRED;
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

package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
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
import io.jdat.loopback.LoopbackLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.function.Executable;

/**
 * Shared test plumbing: an open loopback IA with a PZ and EVDs, registered memory, and
 * endpoints connected through a PSP. Close it to release everything (ABRUPT close).
 */
final class Fixture implements AutoCloseable
{
    static final long SECOND = 1_000_000L;
    private static final AtomicInteger NAMES = new AtomicInteger();

    /**
     * Runs each task on a new daemon thread. Tests that block in {@code dat_evd_wait} must not
     * use the common pool: on a two-core machine it has one thread, and a second blocked waiter
     * would never start.
     */
    static final java.util.concurrent.Executor THREADS =
        task -> Thread.ofPlatform().daemon().name("test-waiter").start(task);

    final InterfaceAdapter ia;
    final EventDispatcher asyncEvd;
    final ProtectionZone pz;
    final Arena arena = Arena.ofShared();
    final IaAddress address;

    Fixture()
    {
        this("loopback");
    }

    Fixture(final String iaName)
    {
        this(iaName, Dat.THREADSAFE);
    }

    /** An IA of {@code iaName}'s threadsafe or, with {@code threadSafe} false, nonthreadsafe entry. */
    Fixture(final String iaName, final boolean threadSafe)
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        ia = Dat.iaOpenv(iaName, 64, async, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, threadSafe);
        asyncEvd = async.value;
        pz = ia.pzCreate();
        address = ia.query(0, null, 0, null) == null ? null : iaAddress(ia);
    }

    private static IaAddress iaAddress(final InterfaceAdapter ia)
    {
        final io.jdat.IaAttr a = new io.jdat.IaAttr();
        ia.query(io.jdat.IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
        return a.iaAddress;
    }

    /**
     * Registers a new loopback IA name with the given instance data (limits such as
     * {@code max_eps=4}) and returns the name. Each call makes a fresh name.
     */
    static String loopbackWith(final String instanceData)
    {
        return loopbackWith(instanceData, Dat.THREADSAFE);
    }

    /** {@link #loopbackWith(String)} for a {@code threadsafe} or a {@code nonthreadsafe} entry. */
    static String loopbackWith(final String instanceData, final boolean threadSafe)
    {
        final String name = "loopback-t" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, threadSafe), instanceData);
        return name;
    }

    /**
     * Instance data that keeps the receive EVD on its own ring ({@code evd_direct=off}): the proofs
     * of that path pin it, since an EVD of one endpoint would otherwise take its receive
     * completions from the receive slots (direct mode, proven by its own tests).
     */
    static final String RING_EVD = "evd_direct=off";

    MemorySegment memory(final long size)
    {
        return arena.allocate(size, 64);
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

    /** An endpoint with its own recv, request and connect EVDs. */
    Ep ep(final EpAttr attr)
    {
        final EventDispatcher recv = evd(256, EvdFlags.DTO_FLAG);
        final EventDispatcher req = evd(256, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
        final EventDispatcher conn = evd(16, EvdFlags.CONNECTION_FLAG);
        return new Ep(ia.epCreate(pz, recv, req, conn, attr), recv, req, conn);
    }

    /** An endpoint and the EVDs it reports to. */
    record Ep(Endpoint ep, EventDispatcher recv, EventDispatcher req, EventDispatcher conn)
    {
    }

    /** Two endpoints of this IA connected through a PSP (the client side is {@code a}). */
    Ep[] connectedPair(final EpAttr attr)
    {
        final Ep a = ep(attr);
        final Ep b = ep(attr);
        final EventDispatcher crEvd = evd(8, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        a.ep().connect(address, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        final DatEvent ev = next(crEvd);
        assertTrue(ev.is(EventNumber.CONNECTION_REQUEST_EVENT), ev.toString());
        ev.crArrival.crHandle.accept(b.ep(), null);
        assertTrue(next(a.conn()).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        assertTrue(next(b.conn()).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        psp.free();
        crEvd.free();
        return new Ep[] {a, b};
    }

    /** The next event of an EVD, waiting up to 5 s. */
    static DatEvent next(final EventDispatcher evd)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(5 * SECOND, 1, ev, new DatCount());
        assertEquals(DatStatus.SUCCESS, s, "no event within 5 s");
        return ev;
    }

    /** Asserts that {@code call} throws a DatException of {@code type}; returns it. */
    static DatException expect(final DatReturnType type, final Executable call)
    {
        try
        {
            call.execute();
        }
        catch (final DatException e)
        {
            assertEquals(type, e.type(), () -> "wrong return type: " + e.getMessage());
            return e;
        }
        catch (final Throwable t)
        {
            throw new AssertionError("expected " + type + " but got " + t, t);
        }
        throw new AssertionError("expected " + type + " but the call succeeded");
    }

    @Override
    public void close()
    {
        try
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        catch (final DatException e)
        {
            // already closed by the test
        }
        arena.close();
    }
}

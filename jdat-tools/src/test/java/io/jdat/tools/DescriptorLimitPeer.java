package io.jdat.tools;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
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
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * The child JVM of {@link DescriptorLimitTest}, run under a low {@code ulimit -n}:
 * {@code DescriptorLimitPeer PROVIDER}. After one whole connection (so every class is loaded) it
 * fills the descriptor table with {@code /dev/null} and gives descriptors back one at a time
 * while it tries, in turn, {@code dat_ia_open}, {@code dat_psp_create_any} and
 * {@code dat_ep_connect}: every try that fails must fail with DAT_INSUFFICIENT_RESOURCES and hold
 * no descriptor afterwards. The connect that finally goes through is accepted once every
 * descriptor is back, and carries a Send; then everything is closed and the descriptors are where
 * they started. Prints one line per step and {@code OK}, or {@code FAIL ...} and exits 1.
 */
public final class DescriptorLimitPeer
{
    private static final long SECOND = 1_000_000L;
    private static final ArrayDeque<FileInputStream> FILLER = new ArrayDeque<>();
    private static int limit;

    private DescriptorLimitPeer()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            run(args[0]);
            System.out.println("OK");
            System.out.flush();
            System.exit(0);
        }
        catch (final Throwable t)
        {
            release(Integer.MAX_VALUE);
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }

    private static void run(final String provider) throws Exception
    {
        // one whole round first: every class of the path is loaded while descriptors are there
        try (Arena arena = Arena.ofShared())
        {
            final InterfaceAdapter ia = Dat.iaOpen(provider, 16, null);
            final Conn c = Conn.open(ia, arena);
            c.connect(ia.pspCreateAny(c.crEvd, PspFlags.CONSUMER_FLAG));
            c.serve();
            c.roundTrip();
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        new DatException(DatReturnType.INSUFFICIENT_RESOURCES, "loaded").getMessage();
        final int before = fds();
        final int threadsBefore = Thread.activeCount();

        try (Arena arena = Arena.ofShared())
        {
            final InterfaceAdapter ia = starved("dat_ia_open", () -> Dat.iaOpen(provider, 16, null));
            final Conn c = Conn.open(ia, arena);
            final PublicServicePoint psp = starved("dat_psp_create_any",
                () -> ia.pspCreateAny(c.crEvd, PspFlags.CONSUMER_FLAG));
            starved("dat_ep_connect", () ->
            {
                c.connect(psp);
                return null;
            });
            // the connect went out with a descriptor or two to spare; the listener has none to
            // accept it with (tcp) for half a second, then every one comes back and it is served
            Thread.sleep(500);
            release(Integer.MAX_VALUE);
            final long t = System.nanoTime();
            c.serve();
            c.roundTrip();
            System.out.printf("served %d ms after the descriptors came back%n", (System.nanoTime() - t) / 1_000_000);
            final IaAttr attr = new IaAttr();
            ia.query(IaAttr.FIELD_ALL, attr, 0, null);
            final String failedAccepts = attr.transportAttr("jdat.tcp.accept_failures");
            if (failedAccepts != null)
            {
                System.out.println("accepts that failed meanwhile: " + failedAccepts);
            }
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        final long deadline = System.nanoTime() + 3_000_000_000L;
        int after = fds();
        while ((after > before || Thread.activeCount() > threadsBefore) && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
            after = fds();
        }
        System.out.printf("descriptors %d before, %d after (limit %d); threads %d before, %d after%n", before, after,
            limit, threadsBefore, Thread.activeCount());
        if (after > before || Thread.activeCount() > threadsBefore)
        {
            throw new AssertionError("left behind: descriptors " + before + " -> " + after + ", threads "
                + threadsBefore + " -> " + Thread.activeCount());
        }
    }

    /**
     * Fills the descriptor table, then gives one back before each try of {@code call} until it
     * succeeds: each failure must be DAT_INSUFFICIENT_RESOURCES and leave no descriptor held.
     */
    private static <T> T starved(final String what, final Supplier<T> call)
    {
        fill();
        int failures = 0;
        for (int free = 0; free <= 64; free++)
        {
            try
            {
                final T result = call.get();
                System.out.printf("%s: DAT_INSUFFICIENT_RESOURCES %d times, then it went through with %d free%n",
                    what, failures, free);
                if (failures == 0)
                {
                    throw new AssertionError(what + " never ran out of descriptors");
                }
                return result;
            }
            catch (final DatException e)
            {
                if (e.status().type() != DatReturnType.INSUFFICIENT_RESOURCES)
                {
                    throw new AssertionError(what + " with " + free + " free: " + e, e);
                }
                failures++;
                // the failed try holds nothing: with one more given back, all but free + 1 are in
                // use, and the listing takes one of those (one more is let pass for a thread of the
                // IA that opens a file of its own now and then)
                release(1);
                final int used = fdsOrLeak(what);
                if (used > limit - free + 1)
                {
                    throw new AssertionError(what + " failed and kept " + (used - (limit - free))
                        + " descriptors (" + e.getMessage() + ")");
                }
            }
        }
        throw new AssertionError(what + " did not go through with 64 descriptors free");
    }

    private static void fill()
    {
        limit = 0;
        while (true)
        {
            try
            {
                FILLER.push(new FileInputStream("/dev/null"));
            }
            catch (final IOException e)
            {
                break;
            }
        }
        limit = fdsAfterRelease();
    }

    /** Gives back one filler to count, and takes it again: the count with the table full. */
    private static int fdsAfterRelease()
    {
        release(1);
        final int n = fds();
        try
        {
            FILLER.push(new FileInputStream("/dev/null"));
        }
        catch (final IOException e)
        {
            throw new AssertionError("the descriptor given back was taken by someone else", e);
        }
        return n;
    }

    private static void release(final int n)
    {
        for (int i = 0; i < n && !FILLER.isEmpty(); i++)
        {
            try
            {
                FILLER.pop().close();
            }
            catch (final IOException e)
            {
                throw new AssertionError(e);
            }
        }
    }

    private static int fdsOrLeak(final String what)
    {
        try
        {
            return fds();
        }
        catch (final RuntimeException e)
        {
            throw new AssertionError(what + " failed and kept the descriptors it was given: " + e, e);
        }
    }

    /** Open descriptors, the one the listing takes included (java.io.File takes one, NIO two). */
    private static int fds()
    {
        final String[] names = new java.io.File("/proc/self/fd").list();
        if (names == null)
        {
            throw new IllegalStateException("cannot list /proc/self/fd (no descriptor left)");
        }
        return names.length;
    }

    /** One IA's client and server endpoint, a CR EVD and memory for one Send. */
    private record Conn(InterfaceAdapter ia, EventDispatcher crEvd, EventDispatcher dto, EventDispatcher conn,
        Endpoint client, Endpoint server, Lmr lmr, PublicServicePoint[] psp)
    {
        static Conn open(final InterfaceAdapter ia, final Arena arena)
        {
            final ProtectionZone pz = ia.pzCreate();
            final EventDispatcher dto = ia.evdCreate(16, null, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(arena.allocate(8192)), 8192, pz,
                MemPriv.ALL_FLAG);
            return new Conn(ia, ia.evdCreate(8, null, EvdFlags.CR_FLAG), dto, conn, ia.epCreate(pz, dto, dto, conn,
                null), ia.epCreate(pz, dto, dto, conn, null), lmr, new PublicServicePoint[1]);
        }

        void connect(final PublicServicePoint p)
        {
            psp[0] = p;
            final IaAttr a = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
            client.connect(a.iaAddress, p.connQual(), 30 * SECOND, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
        }

        void serve()
        {
            final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 4096, 64)}, 1, CompletionFlags.DEFAULT_FLAG);
            cr.crArrival.crHandle.accept(server, null);
            next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }

        void roundTrip()
        {
            lmr.memory().asSlice(0, 64).fill((byte) 0x3C);
            client.postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 64)}, 2, CompletionFlags.DEFAULT_FLAG);
            for (int i = 0; i < 2; i++)
            {
                final DatEvent ev = next(dto, EventNumber.DTO_COMPLETION_EVENT);
                if (ev.dto.status != DtoStatus.SUCCESS)
                {
                    throw new AssertionError("a DTO of the Send: " + ev);
                }
            }
            if (lmr.memory().asSlice(4096, 64).mismatch(lmr.memory().asSlice(0, 64)) != -1)
            {
                throw new AssertionError("the Send's bytes differ");
            }
        }

        private static DatEvent next(final EventDispatcher evd, final EventNumber expected)
        {
            final DatEvent ev = new DatEvent();
            final DatStatus s = evd.wait(10 * SECOND, 1, ev, new DatCount());
            if (s != DatStatus.SUCCESS || !ev.is(expected))
            {
                throw new AssertionError("expected " + expected + " within 10 s, got " + s + " " + ev);
            }
            return ev;
        }
    }
}

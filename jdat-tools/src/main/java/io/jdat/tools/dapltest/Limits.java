package io.jdat.tools.dapltest;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrParam;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.OsWaitProxyAgent;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.RegionDescription;
import io.jdat.tools.Jdat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * dapltest's limit test ({@code -T L}): for one kind of object at a time, create as many as the
 * provider gives (at most {@code max}); creation must then fail cleanly with a DAT return code,
 * never with anything else; everything is freed and the IA closes gracefully, which it can only
 * do when the frees really released everything.
 */
final class Limits
{
    /** The sub-tests, in dapltest's order. */
    static final List<String> NAMES = List.of("limit_ia", "limit_pz", "limit_cno", "limit_evd", "limit_ep",
        "limit_rsp", "limit_psp", "limit_lmr", "limit_rpost", "limit_size_lmr");

    private Limits()
    {
    }

    /**
     * The outcome of one sub-test.
     *
     * @param name    the sub-test
     * @param created how many objects were created
     * @param stop    the DAT status that stopped creation, or null when {@code max} was reached
     * @param failure what went wrong, or null when the sub-test passed
     */
    record Result(String name, long created, String stop, String failure)
    {
        boolean passed()
        {
            return failure == null;
        }
    }

    /** Runs sub-test {@code name} on IA {@code iaName}. */
    static Result run(final String name, final String iaName, final int max, final long maxLmrSize)
    {
        if (name.equals("limit_ia"))
        {
            return limitIa(iaName, max);
        }
        final InterfaceAdapter ia = Dat.iaOpen(iaName, 8, new DatOut<>());
        final Arena arena = Arena.ofShared();
        try
        {
            final Result r = switch (name)
            {
                case "limit_pz" -> objects(name, max, i -> ia.pzCreate(), o -> ((ProtectionZone) o).free());
                case "limit_cno" -> objects(name, max, i -> ia.cnoCreate(OsWaitProxyAgent.NULL),
                    o -> ((io.jdat.Cno) o).free());
                case "limit_evd" -> objects(name, max,
                    i -> ia.evdCreate(8, null, EvdFlags.DTO_FLAG | EvdFlags.CR_FLAG | EvdFlags.RMR_BIND_FLAG),
                    o -> ((EventDispatcher) o).free());
                case "limit_ep" -> limitEp(ia, max);
                case "limit_rsp" -> limitRsp(ia, max);
                case "limit_psp" -> limitPsp(ia, max);
                case "limit_lmr" -> limitLmr(ia, arena, max);
                case "limit_rpost" -> limitRpost(ia, arena, max);
                case "limit_size_lmr" -> limitSizeLmr(ia, maxLmrSize);
                default -> throw new IllegalArgumentException("unknown limit test " + name);
            };
            return closeGracefully(r, ia);
        }
        catch (final RuntimeException e)
        {
            closeAbruptly(ia);
            return new Result(name, 0, null, Jdat.describe(e));
        }
        finally
        {
            arena.close();
        }
    }

    private static Result closeGracefully(final Result r, final InterfaceAdapter ia)
    {
        try
        {
            ia.close(CloseFlags.GRACEFUL_FLAG);
            return r;
        }
        catch (final DatException e)
        {
            closeAbruptly(ia);
            return new Result(r.name, r.created, r.stop, r.failure != null ? r.failure
                : "dat_ia_close(GRACEFUL) after freeing everything: " + e.getMessage());
        }
    }

    private static void closeAbruptly(final InterfaceAdapter ia)
    {
        try
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        catch (final DatException e)
        {
            // closed already
        }
    }

    /** An object made by a create call, and how to free it. */
    private interface Free
    {
        void free(Object o);
    }

    /**
     * Creates with {@code create} until it fails or {@code max} objects exist, then frees them
     * in reverse order. A failure other than a DatException, or none created at all, fails.
     */
    private static Result objects(final String name, final int max, final IntFunction<Object> create, final Free free)
    {
        final List<Object> made = new ArrayList<>();
        String stop = null;
        String failure = null;
        try
        {
            while (made.size() < max)
            {
                made.add(create.apply(made.size()));
            }
        }
        catch (final DatException e)
        {
            stop = e.status().toString();
            if (made.isEmpty())
            {
                failure = "not even one could be created: " + e.getMessage();
            }
        }
        catch (final RuntimeException e)
        {
            failure = "creating number " + (made.size() + 1) + " failed without a DAT return code: " + e;
        }
        for (int i = made.size() - 1; i >= 0; i--)
        {
            try
            {
                free.free(made.get(i));
            }
            catch (final RuntimeException e)
            {
                if (failure == null)
                {
                    failure = "freeing number " + (i + 1) + ": " + Jdat.describe(e);
                }
            }
        }
        return new Result(name, made.size(), stop, failure);
    }

    private static Result limitIa(final String iaName, final int max)
    {
        return objects("limit_ia", max, i -> Dat.iaOpen(iaName, 8, new DatOut<>()),
            o -> ((InterfaceAdapter) o).close(CloseFlags.GRACEFUL_FLAG));
    }

    private static Result limitEp(final InterfaceAdapter ia, final int max)
    {
        final ProtectionZone pz = ia.pzCreate();
        final EventDispatcher dto = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final Result r = objects("limit_ep", max, i -> ia.epCreate(pz, dto, dto, conn, null),
            o -> ((Endpoint) o).free());
        conn.free();
        dto.free();
        pz.free();
        return r;
    }

    private static Result limitRsp(final InterfaceAdapter ia, final int max)
    {
        final ProtectionZone pz = ia.pzCreate();
        final EventDispatcher dto = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher cr = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
        final List<Endpoint> eps = new ArrayList<>();
        // qualifiers a tcp provider takes too (TCP ports): base + i stays below 65536
        final long base = 20_000 + (System.nanoTime() & 0x7FF) * 16;
        final Result r = objects("limit_rsp", (int) Math.min(max, 65_535 - base), i ->
        {
            final Endpoint ep = ia.epCreate(pz, dto, dto, conn, null);
            eps.add(ep);
            return ia.rspCreate(base + i, ep, cr);
        }, o -> ((io.jdat.ReservedServicePoint) o).free());
        eps.forEach(Endpoint::free);
        cr.free();
        conn.free();
        dto.free();
        pz.free();
        return r;
    }

    private static Result limitPsp(final InterfaceAdapter ia, final int max)
    {
        final EventDispatcher cr = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
        final Result r = objects("limit_psp", max, i -> ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG),
            o -> ((io.jdat.PublicServicePoint) o).free());
        cr.free();
        return r;
    }

    private static Result limitLmr(final InterfaceAdapter ia, final Arena arena, final int max)
    {
        final ProtectionZone pz = ia.pzCreate();
        final MemorySegment m = arena.allocate(4096, 4096);
        final Result r = objects("limit_lmr", max,
            i -> ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 4096, pz, MemPriv.ALL_FLAG),
            o -> ((Lmr) o).free());
        pz.free();
        return r;
    }

    /** Posts receives on an unconnected endpoint until the provider refuses; freeing it flushes them. */
    private static Result limitRpost(final InterfaceAdapter ia, final Arena arena, final int max)
    {
        final ProtectionZone pz = ia.pzCreate();
        final EventDispatcher dto = ia.evdCreate(max + 8, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final io.jdat.EpAttr attr = new io.jdat.EpAttr();
        attr.maxRecvDtos = max;
        final Endpoint ep = ia.epCreate(pz, dto, dto, conn, attr);
        final MemorySegment m = arena.allocate(64, 64);
        final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 64, pz, MemPriv.ALL_FLAG);
        final LmrTriplet[] iov = {LmrTriplet.of(lmr, 0, 64)};
        final int[] posted = {0};
        final Result r = objects("limit_rpost", max + 1, i ->
        {
            ep.postRecv(1, iov, i, CompletionFlags.DEFAULT_FLAG);
            return posted[0]++;
        }, o ->
        {
            // receives are not freed one by one: dat_ep_free flushes them
        });
        String failure = r.failure;
        if (failure == null && r.stop == null)
        {
            failure = "posted " + r.created + " receives on an endpoint with max_recv_dtos " + max
                + " and none was refused";
        }
        try
        {
            ep.free();
        }
        catch (final DatException e)
        {
            failure = failure != null ? failure : "dat_ep_free with posted receives: " + e.getMessage();
        }
        lmr.free();
        conn.free();
        dto.free();
        pz.free();
        return new Result(r.name, r.created, r.stop, failure);
    }

    /**
     * Registers ever larger regions (1 MiB, doubling) until the provider refuses or
     * {@code maxSize} is reached, checking what dapltest checks of each.
     */
    private static Result limitSizeLmr(final InterfaceAdapter ia, final long maxSize)
    {
        final ProtectionZone pz = ia.pzCreate();
        long size = 1L << 20;
        long largest = 0;
        String stop = null;
        String failure = null;
        while (size <= maxSize && failure == null && stop == null)
        {
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment m;
                try
                {
                    m = arena.allocate(size, 4096);
                }
                catch (final OutOfMemoryError e)
                {
                    stop = "no memory for " + size + " bytes in this JVM";
                    break;
                }
                final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), size, pz, MemPriv.ALL_FLAG);
                final LmrParam p = new LmrParam();
                lmr.query(LmrParam.FIELD_ALL, p);
                final long va = m.address();
                if (lmr.registeredAddress() > va
                    || lmr.registeredSize() < size + (va - lmr.registeredAddress()))
                {
                    failure = size + " bytes at 0x" + Long.toHexString(va) + " registered as " + lmr.registeredSize()
                        + " bytes at 0x" + Long.toHexString(lmr.registeredAddress());
                }
                lmr.free();
                largest = size;
                size <<= 1;
            }
            catch (final DatException e)
            {
                stop = e.status().toString();
            }
        }
        pz.free();
        return new Result("limit_size_lmr", largest, stop, failure);
    }
}

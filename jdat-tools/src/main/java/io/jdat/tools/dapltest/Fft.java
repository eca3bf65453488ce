package io.jdat.tools.dapltest;

import io.jdat.CloseFlags;
import io.jdat.CnoParam;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EpParam;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.EventDispatcher;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrParam;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.OsWaitProxyAgent;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PspParam;
import io.jdat.PzParam;
import io.jdat.RegionDescription;
import io.jdat.RmrParam;
import io.jdat.RspParam;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * dapltest's FFT cases ({@code -T F -f feature}): return-code conformance, one call at a time,
 * each on a fresh IA. Where C passes a NULL or a stale handle, Java uses a freed one; where C
 * passes a handle of the wrong type (which Java's types forbid), the case uses a freed handle of
 * the right type, which DAT must also refuse with {@code DAT_INVALID_HANDLE}.
 */
final class Fft
{
    private Fft()
    {
    }

    /** What a case gets: a fresh IA, its PZ, memory. */
    record Context(String iaName, InterfaceAdapter ia, ProtectionZone pz, Arena arena)
    {
        Lmr lmr(final long size)
        {
            final MemorySegment m = arena.allocate(Math.max(1, size), 4096);
            return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), size, pz, MemPriv.ALL_FLAG);
        }

        EventDispatcher evd(final int flags)
        {
            return ia.evdCreate(8, null, flags);
        }

        Endpoint ep()
        {
            return ia.epCreate(pz, evd(EvdFlags.DTO_FLAG), evd(EvdFlags.DTO_FLAG), evd(EvdFlags.CONNECTION_FLAG), null);
        }
    }

    /** A call whose DAT status is the outcome: a returned status, SUCCESS, or the DatException's. */
    interface Action
    {
        DatStatus run(Context c);
    }

    /**
     * One case.
     *
     * @param feature     dapltest's feature name
     * @param number      the case number within the feature
     * @param description what is called
     * @param expected    the return type DAT requires
     * @param action      the call
     */
    record Case(String feature, int number, String description, DatReturnType expected, Action action)
    {
    }

    /** The outcome of one case: null failure when the expected type was seen. */
    record Result(Case c, DatStatus seen, String failure)
    {
        boolean passed()
        {
            return failure == null;
        }
    }

    /** The features, in dapltest's order. */
    static Set<String> features()
    {
        final Set<String> f = new LinkedHashSet<>();
        cases().forEach(c -> f.add(c.feature()));
        return f;
    }

    private static DatStatus ok()
    {
        return DatStatus.SUCCESS;
    }

    /** Every case. */
    static List<Case> cases()
    {
        final List<Case> all = new ArrayList<>();
        final DatReturnType success = DatReturnType.SUCCESS;
        all.add(new Case("hwconn", 0, "dat_ia_open then dat_ia_close(ABRUPT)", success, c ->
        {
            Dat.iaOpen(c.iaName(), 8, new DatOut<>()).close(CloseFlags.ABRUPT_FLAG);
            return ok();
        }));
        all.add(new Case("hwconn", 1, "dat_ia_open of unregistered names 40, x, xsdf, x34, 34df",
            DatReturnType.PROVIDER_NOT_FOUND, c ->
            {
                for (final String name : new String[] {"40", "x", "xsdf", "x34", "34df"})
                {
                    final DatStatus s = outcome(() ->
                        Dat.iaOpen(name, 8, new DatOut<>()).close(CloseFlags.ABRUPT_FLAG));
                    if (!s.is(DatReturnType.PROVIDER_NOT_FOUND))
                    {
                        return s;
                    }
                }
                return DatStatus.error(DatReturnType.PROVIDER_NOT_FOUND);
            }));
        all.add(new Case("hwconn", 2, "dat_ia_close of an IA already closed", DatReturnType.INVALID_HANDLE, c ->
        {
            final InterfaceAdapter ia = Dat.iaOpen(c.iaName(), 8, new DatOut<>());
            ia.close(CloseFlags.ABRUPT_FLAG);
            ia.close(CloseFlags.ABRUPT_FLAG);
            return ok();
        }));
        all.add(new Case("hwconn", 3, "dat_ia_close(ABRUPT) with a PZ, EVDs and an EP alive", success, c ->
        {
            final InterfaceAdapter ia = Dat.iaOpen(c.iaName(), 8, new DatOut<>());
            final ProtectionZone pz = ia.pzCreate();
            final EventDispatcher evd = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
            ia.epCreate(pz, evd, evd, ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG), null);
            ia.close(CloseFlags.ABRUPT_FLAG);
            return ok();
        }));
        all.add(new Case("endpoint", 0, "dat_ep_create then dat_ep_free", success, c ->
        {
            c.ep().free();
            return ok();
        }));
        all.add(new Case("endpoint", 1, "dat_ep_create with a freed PZ", DatReturnType.INVALID_HANDLE, c ->
        {
            final ProtectionZone pz = c.ia().pzCreate();
            pz.free();
            c.ia().epCreate(pz, c.evd(EvdFlags.DTO_FLAG), c.evd(EvdFlags.DTO_FLAG), c.evd(EvdFlags.CONNECTION_FLAG),
                null);
            return ok();
        }));
        all.add(new Case("endpoint", 2, "dat_ep_free of an endpoint with a posted receive", success, c ->
        {
            final Endpoint ep = c.ep();
            ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(c.lmr(64), 0, 64)}, 1, CompletionFlags.DEFAULT_FLAG);
            ep.free();
            return ok();
        }));
        all.add(new Case("pz", 0, "dat_pz_create then dat_pz_free", success, c ->
        {
            c.ia().pzCreate().free();
            return ok();
        }));
        all.add(new Case("pz", 1, "dat_pz_free of a PZ an endpoint uses", DatReturnType.INVALID_STATE, c ->
        {
            c.ep();
            c.pz().free();
            return ok();
        }));
        all.add(new Case("pz", 2, "dat_pz_free of a PZ an LMR uses", DatReturnType.INVALID_STATE, c ->
        {
            c.lmr(1024);
            c.pz().free();
            return ok();
        }));
        all.add(new Case("mem", 0, "dat_lmr_create of 1 KiB (VIRTUAL, ALL privileges) then dat_lmr_free", success,
            c ->
            {
                c.lmr(1024).free();
                return ok();
            }));
        all.add(new Case("mem", 1, "register, free, register the same buffer again", success, c ->
        {
            final MemorySegment m = c.arena().allocate(1024, 4096);
            c.ia().lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 1024, c.pz(), MemPriv.ALL_FLAG).free();
            c.ia().lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 1024, c.pz(), MemPriv.ALL_FLAG).free();
            return ok();
        }));
        all.add(new Case("mem", 2, "dat_lmr_create of length 0", DatReturnType.LENGTH_ERROR, c ->
        {
            c.lmr(0);
            return ok();
        }));
        all.add(new Case("mem", 3, "dat_lmr_create with a null PZ", DatReturnType.INVALID_HANDLE, c ->
        {
            final MemorySegment m = c.arena().allocate(1024, 4096);
            c.ia().lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), 1024, null, MemPriv.ALL_FLAG);
            return ok();
        }));
        all.add(new Case("mem", 4, "dat_lmr_free of an LMR already freed", DatReturnType.INVALID_HANDLE, c ->
        {
            final Lmr lmr = c.lmr(1024);
            lmr.free();
            lmr.free();
            return ok();
        }));
        all.add(new Case("connmgt", 0, "dat_evd_wait(10 ms) on an empty CR EVD", DatReturnType.TIMEOUT_EXPIRED,
            c -> c.evd(EvdFlags.CR_FLAG).wait(10_000, 1, new DatEvent(), new DatCount())));
        all.add(new Case("connmgt", 1, "dat_evd_wait(0) on an empty CR EVD", DatReturnType.TIMEOUT_EXPIRED,
            c -> c.evd(EvdFlags.CR_FLAG).wait(0, 1, new DatEvent(), new DatCount())));
        queryCases(all);
        all.add(new Case("dataxfer", 0, "dat_ep_post_send on a freed endpoint", DatReturnType.INVALID_HANDLE, c ->
        {
            final Endpoint ep = c.ep();
            ep.free();
            ep.postSend(0, new LmrTriplet[0], 1, CompletionFlags.DEFAULT_FLAG);
            return ok();
        }));
        all.add(new Case("dataxfer", 1, "dat_evd_wait on a freed EVD", DatReturnType.INVALID_HANDLE, c ->
        {
            final EventDispatcher evd = c.evd(EvdFlags.DTO_FLAG);
            evd.free();
            return evd.wait(10_000, 1, new DatEvent(), new DatCount());
        }));
        all.add(new Case("dataxfer", 2, "dat_ep_post_send on an endpoint that never connected",
            DatReturnType.INVALID_STATE, c ->
            {
                c.ep().postSend(0, new LmrTriplet[0], 1, CompletionFlags.DEFAULT_FLAG);
                return ok();
            }));
        return all;
    }

    /** A query of one object type: with every field, with a null parameter, and on a freed handle. */
    private interface Query
    {
        /** Queries a live object with {@code param} (null for the bad-parameter case). */
        void query(Context c, boolean nullParam, boolean freed);
    }

    private static void queryCases(final List<Case> all)
    {
        final String[] names = {"IA", "PZ", "CNO", "EVD", "EP", "LMR", "RMR", "PSP", "RSP"};
        final Query[] queries = {
            (c, n, f) ->
            {
                final InterfaceAdapter ia = f ? Dat.iaOpen(c.iaName(), 8, new DatOut<>()) : c.ia();
                if (f)
                {
                    ia.close(CloseFlags.ABRUPT_FLAG);
                }
                ia.query(IaAttr.FIELD_ALL, n ? null : new IaAttr(), 0, null);
            },
            (c, n, f) ->
            {
                final ProtectionZone pz = c.ia().pzCreate();
                if (f)
                {
                    pz.free();
                }
                pz.query(PzParam.FIELD_ALL, n ? null : new PzParam());
            },
            (c, n, f) ->
            {
                final io.jdat.Cno cno = c.ia().cnoCreate(OsWaitProxyAgent.NULL);
                if (f)
                {
                    cno.free();
                }
                cno.query(CnoParam.FIELD_ALL, n ? null : new CnoParam());
            },
            (c, n, f) ->
            {
                final EventDispatcher evd = c.evd(EvdFlags.DTO_FLAG);
                if (f)
                {
                    evd.free();
                }
                evd.query(EvdParam.FIELD_ALL, n ? null : new EvdParam());
            },
            (c, n, f) ->
            {
                final Endpoint ep = c.ep();
                if (f)
                {
                    ep.free();
                }
                ep.query(EpParam.FIELD_ALL, n ? null : new EpParam());
            },
            (c, n, f) ->
            {
                final Lmr lmr = c.lmr(1024);
                if (f)
                {
                    lmr.free();
                }
                lmr.query(LmrParam.FIELD_ALL, n ? null : new LmrParam());
            },
            (c, n, f) ->
            {
                final io.jdat.Rmr rmr = c.pz().rmrCreate();
                if (f)
                {
                    rmr.free();
                }
                rmr.query(RmrParam.FIELD_ALL, n ? null : new RmrParam());
            },
            (c, n, f) ->
            {
                final io.jdat.PublicServicePoint psp = c.ia().pspCreateAny(c.evd(EvdFlags.CR_FLAG),
                    PspFlags.CONSUMER_FLAG);
                if (f)
                {
                    psp.free();
                }
                psp.query(PspParam.FIELD_ALL, n ? null : new PspParam());
            },
            (c, n, f) ->
            {
                final io.jdat.ReservedServicePoint rsp = rsp(c);
                if (f)
                {
                    rsp.free();
                }
                rsp.query(RspParam.FIELD_ALL, n ? null : new RspParam());
            },
        };
        for (int i = 0; i < names.length; i++)
        {
            final String name = names[i];
            final Query q = queries[i];
            all.add(new Case("queryinfo", 3 * i, "query of " + article(name) + " with every field",
                DatReturnType.SUCCESS, c -> outcome(() -> q.query(c, false, false))));
            all.add(new Case("queryinfo", 3 * i + 1, "query of " + article(name) + " with a null parameter",
                DatReturnType.INVALID_PARAMETER, c -> outcome(() -> q.query(c, true, false))));
            all.add(new Case("queryinfo", 3 * i + 2, "query of a freed " + name, DatReturnType.INVALID_HANDLE,
                c -> outcome(() -> q.query(c, false, true))));
        }
    }

    /** "an IA", "a PZ": the article as the letters are spoken. */
    private static String article(final String acronym)
    {
        return ("AEFHILMNORSX".indexOf(acronym.charAt(0)) >= 0 ? "an " : "a ") + acronym;
    }

    private static io.jdat.ReservedServicePoint rsp(final Context c)
    {
        final Endpoint ep = c.ep();
        final EventDispatcher cr = c.evd(EvdFlags.CR_FLAG);
        DatException last = null;
        for (long q = 30_000; q < 31_000; q++)
        {
            try
            {
                return c.ia().rspCreate(q, ep, cr);
            }
            catch (final DatException e)
            {
                last = e;
            }
        }
        throw last;
    }

    /** The DAT status of a call: SUCCESS, or the status of the DatException it threw. */
    static DatStatus outcome(final Runnable call)
    {
        try
        {
            call.run();
            return DatStatus.SUCCESS;
        }
        catch (final DatException e)
        {
            return e.status();
        }
    }

    /** Runs one case on a fresh IA of {@code iaName}; anything but a DAT status is a failure too. */
    static Result run(final Case c, final String iaName)
    {
        final InterfaceAdapter ia = Dat.iaOpen(iaName, 8, new DatOut<>());
        try (Arena arena = Arena.ofShared())
        {
            final Context ctx = new Context(iaName, ia, ia.pzCreate(), arena);
            DatStatus seen;
            try
            {
                seen = c.action().run(ctx);
            }
            catch (final DatException e)
            {
                seen = e.status();
            }
            if (seen.is(c.expected()) || c.expected() == DatReturnType.SUCCESS && seen.isSuccess())
            {
                return new Result(c, seen, null);
            }
            return new Result(c, seen, "expected " + c.expected().cName() + ", got " + seen);
        }
        catch (final RuntimeException e)
        {
            return new Result(c, null, "threw " + e + " instead of returning a DAT status");
        }
        finally
        {
            try
            {
                ia.close(CloseFlags.ABRUPT_FLAG);
            }
            catch (final DatException e)
            {
                // the case closed it
            }
        }
    }
}

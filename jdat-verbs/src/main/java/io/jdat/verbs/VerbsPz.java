package io.jdat.verbs;

import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.HandleType;
import io.jdat.ProtectionZone;
import io.jdat.PzParam;
import io.jdat.Rmr;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/** A protection zone: an {@code ibv_pd}. */
final class VerbsPz extends VerbsObject implements ProtectionZone
{
    final MemorySegment pd;
    /** LMRs and EPs in this zone: {@code dat_pz_free} refuses while any remain. */
    final AtomicInteger users = new AtomicInteger();

    VerbsPz(final VerbsIa ia, final MemorySegment pd)
    {
        super(ia, HandleType.PZ);
        this.pd = pd;
    }

    @Override
    public void free()
    {
        checkValid();
        if (users.get() > 0)
        {
            throw invalidState(DatReturnSubtype.NO_SUBTYPE, "dat_pz_free: " + users.get() + " LMRs or EPs use this PZ");
        }
        destroy();
    }

    void destroy()
    {
        if (!markFreed())
        {
            return;
        }
        Ibv.deallocPd(pd);
        ia.forget(this);
    }

    @Override
    public void query(final long mask, final PzParam param)
    {
        checkValid();
        if (param == null)
        {
            throw invalidParameter(DatArg.QUERY_PARAM, "dat_pz_query: no PzParam");
        }
        param.iaHandle = ia;
    }

    /**
     * {@code dat_rmr_create}: RMRs are memory windows, and this provider binds none yet; on a
     * device without memory windows (siw: {@code max_mw} 0) that is what the device says too.
     */
    @Override
    public Rmr rmrCreate()
    {
        checkValid();
        if (ia.maxMw == 0)
        {
            throw new io.jdat.DatException(DatReturnType.MODEL_NOT_SUPPORTED,
                "dat_rmr_create: device " + ia.deviceName + " has no memory windows (max_mw 0)");
        }
        throw notImplemented("dat_rmr_create (memory windows)");
    }
}

package io.jdat.verbs;

import io.jdat.HandleType;
import io.jdat.Lmr;
import io.jdat.LmrParam;
import io.jdat.RegionDescription;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;

/**
 * A local memory region: an {@code ibv_mr}. Its {@code lmr_context} is the MR's lkey; its
 * {@code rmr_context} the rkey when a remote right was asked for, else 0.
 */
final class VerbsLmr extends VerbsObject implements Lmr
{
    private final MemorySegment mr;
    private final VerbsPz pz;
    private final MemorySegment memory;
    private final int memPriv;
    private final int lkey;
    private final int rkey;
    private final long address;
    private final long size;

    VerbsLmr(final VerbsIa ia, final VerbsPz pz, final MemorySegment mr, final MemorySegment memory,
        final int memPriv, final boolean remote)
    {
        super(ia, HandleType.LMR);
        this.pz = pz;
        this.mr = mr.reinterpret(Ibv.MR_SIZE);
        this.memory = memory;
        this.memPriv = memPriv;
        this.lkey = this.mr.get(Native.INT, Ibv.MR_LKEY);
        this.rkey = remote ? this.mr.get(Native.INT, Ibv.MR_RKEY) : 0;
        this.address = this.mr.get(Native.LONG, Ibv.MR_ADDR);
        this.size = this.mr.get(Native.LONG, Ibv.MR_LENGTH);
    }

    @Override
    public void free()
    {
        checkValid();
        destroy();
    }

    void destroy()
    {
        if (!markFreed())
        {
            return;
        }
        ia.lkeys.remove(lkey);
        Ibv.deregMr(mr);
        pz.users.decrementAndGet();
        ia.forget(this);
    }

    @Override
    public void query(final long mask, final LmrParam param)
    {
        checkValid();
        if (param == null)
        {
            throw invalidParameter(DatArg.QUERY_PARAM, "dat_lmr_query: no LmrParam");
        }
        param.iaHandle = ia;
        param.memType = io.jdat.MemType.VIRTUAL;
        param.regionDesc = RegionDescription.forVa(memory);
        param.length = size;
        param.pzHandle = pz;
        param.memPriv = memPriv;
        param.lmrContext = lkey;
        param.rmrContext = rkey;
        param.registeredSize = size;
        param.registeredAddress = address;
    }

    @Override
    public int lmrContext()
    {
        return lkey;
    }

    @Override
    public int rmrContext()
    {
        return rkey;
    }

    @Override
    public long registeredSize()
    {
        return size;
    }

    @Override
    public long registeredAddress()
    {
        return address;
    }

    @Override
    public MemorySegment memory()
    {
        return memory;
    }
}

package io.jdat.engine;

import io.jdat.DatReturnSubtype;
import io.jdat.HandleType;
import io.jdat.Lmr;
import io.jdat.LmrParam;
import io.jdat.MemPriv;
import io.jdat.RegionDescription;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;

/** A local memory region: registered memory, known to the STag table by its context. */
final class LmrImpl extends EngineObject implements Lmr
{
    final PzImpl pz;
    final int memType;
    final RegionDescription regionDesc;
    final long length;
    final int privileges;
    final MemoryRegion region;
    private final int rmrContext;
    /** RMRs bound (or being bound) into this LMR. */
    final java.util.concurrent.atomic.AtomicInteger boundRmrs = new java.util.concurrent.atomic.AtomicInteger();

    LmrImpl(final IaImpl ia, final PzImpl pz, final int memType, final RegionDescription regionDesc,
        final MemorySegment memory, final int privileges, final int stag)
    {
        super(ia, HandleType.LMR);
        this.pz = pz;
        this.memType = memType;
        this.regionDesc = regionDesc;
        this.length = memory.byteSize();
        this.privileges = privileges;
        this.region = new MemoryRegion(stag, pz, memory, memory.address(), memory.byteSize(), privileges, false, this);
        // no remote right asked, no remote context handed out
        this.rmrContext = (privileges & (MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG)) != 0 ? stag : 0;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_LMR;
    }

    @Override
    public void free()
    {
        synchronized (ia.lock)
        {
            checkLive();
            if (boundRmrs.get() > 0)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_LMR_IN_USE,
                    boundRmrs.get() + " RMRs are bound into this LMR");
            }
            ia.memory.release(region.stag);
            pz.removeUser();
            ia.forget(this);
            markDestroyed();
        }
    }

    @Override
    public void query(final long lmrParamMask, final LmrParam param)
    {
        checkLive();
        Errors.checkQuery(lmrParamMask, LmrParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param == null)
        {
            return;
        }
        param.iaHandle = ia;
        param.memType = memType;
        param.regionDesc = regionDesc;
        param.length = length;
        param.pzHandle = pz;
        param.memPriv = privileges;
        param.lmrContext = region.stag;
        param.rmrContext = rmrContext;
        param.registeredSize = region.length;
        param.registeredAddress = region.base;
    }

    @Override
    public int lmrContext()
    {
        return region.stag;
    }

    @Override
    public int rmrContext()
    {
        return rmrContext;
    }

    @Override
    public long registeredSize()
    {
        return region.length;
    }

    @Override
    public long registeredAddress()
    {
        return region.base;
    }

    @Override
    public MemorySegment memory()
    {
        return region.memory;
    }
}

package io.jdat.engine;

import io.jdat.DatReturnSubtype;
import io.jdat.HandleType;
import io.jdat.PzParam;
import io.jdat.ProtectionZone;
import io.jdat.Rmr;
import io.jdat.spi.DatArg;
import java.util.concurrent.atomic.AtomicInteger;

/** A protection zone: which memory which endpoints may touch. */
final class PzImpl extends EngineObject implements ProtectionZone
{
    /** EPs, LMRs, RMRs and SRQs that use this zone. */
    private final AtomicInteger users = new AtomicInteger();

    PzImpl(final IaImpl ia)
    {
        super(ia, HandleType.PZ);
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_PZ;
    }

    void addUser()
    {
        users.incrementAndGet();
    }

    void removeUser()
    {
        users.decrementAndGet();
    }

    @Override
    public void free()
    {
        synchronized (ia.lock)
        {
            checkLive();
            if (users.get() > 0)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_PZ_IN_USE,
                    "the PZ is used by " + users.get() + " EPs, LMRs, RMRs or SRQs");
            }
            ia.forget(this);
            markDestroyed();
        }
    }

    @Override
    public void query(final long pzParamMask, final PzParam param)
    {
        checkLive();
        Errors.checkQuery(pzParamMask, PzParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param != null)
        {
            param.iaHandle = ia;
        }
    }

    @Override
    public Rmr rmrCreate()
    {
        return ia.rmrCreate(this);
    }
}

package io.jdat.verbs;

import io.jdat.HandleType;
import io.jdat.PspFlags;
import io.jdat.PspParam;
import io.jdat.PublicServicePoint;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;

/**
 * A public service point: an {@code rdma_cm_id} bound to the IA's address on port = connection
 * qualifier and listening ({@code rdma_listen}), as DAPL's cma maps it.
 */
final class VerbsPsp extends VerbsObject implements PublicServicePoint
{
    private static final int BACKLOG = 64;

    final VerbsEvd evd;
    private final int pspFlags;
    private final MemorySegment cmId;
    private final long connQual;

    /** {@code connQual} 0: rdma_cm picks a free port ({@code dat_psp_create_any}). */
    VerbsPsp(final VerbsIa ia, final long connQual, final VerbsEvd evd, final int pspFlags)
    {
        super(ia, HandleType.PSP);
        this.evd = evd;
        this.pspFlags = pspFlags;
        this.cmId = ia.newCmId(this);
        try
        {
            ia.bindLocal(cmId, (int) connQual);
            if (RdmaCm.listen(cmId, BACKLOG) != 0)
            {
                throw nativeFailure(io.jdat.DatReturnType.INTERNAL_ERROR, "rdma_listen", Native.errno());
            }
        }
        catch (final RuntimeException e)
        {
            ia.forgetCmId(cmId);
            RdmaCm.destroyId(cmId);
            throw e;
        }
        this.connQual = Sockaddr.port(cmId.asSlice(RdmaCm.ID_SRC_ADDR, RdmaCm.SOCKADDR_IN_SIZE));
        evd.users.incrementAndGet();
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
        ia.forgetCmId(cmId);
        RdmaCm.destroyId(cmId);
        evd.users.decrementAndGet();
        ia.forget(this);
    }

    @Override
    public void query(final long mask, final PspParam param)
    {
        checkValid();
        if (param == null)
        {
            throw invalidParameter(DatArg.QUERY_PARAM, "dat_psp_query: no PspParam");
        }
        param.iaHandle = ia;
        param.connQual = connQual;
        param.evdHandle = evd;
        param.pspFlags = pspFlags;
    }

    @Override
    public long connQual()
    {
        return connQual;
    }

    boolean consumerModel()
    {
        return pspFlags == PspFlags.CONSUMER_FLAG;
    }
}

package io.jdat.verbs;

import io.jdat.HandleType;
import io.jdat.ReservedServicePoint;
import io.jdat.RspParam;
import java.lang.foreign.MemorySegment;

/**
 * A reserved service point: like a PSP, an {@code rdma_cm_id} bound to the IA's address on port =
 * connection qualifier and listening ({@code rdma_listen}), as DAPL's cma maps it; its one
 * request goes to the endpoint it reserves (RESERVED, then PASSIVE_CONNECTION_PENDING). After
 * that request it stops listening: the IA's rdma_cm thread destroys the listening id once the
 * request's event is acknowledged, so later requests find nobody there. The handle stays valid
 * until {@code dat_rsp_free}.
 */
final class VerbsRsp extends VerbsObject implements ReservedServicePoint
{
    final VerbsEvd evd;
    final VerbsEp ep;
    final long connQual;
    /** The listening id, null once it stopped listening. */
    private MemorySegment cmId;
    private boolean used;

    VerbsRsp(final VerbsIa ia, final long connQual, final VerbsEp ep, final VerbsEvd evd)
    {
        super(ia, HandleType.RSP);
        this.evd = evd;
        this.ep = ep;
        this.connQual = connQual;
        final MemorySegment id = ia.newCmId(this);
        try
        {
            ia.bindLocal(id, (int) connQual);
            if (RdmaCm.listen(id, 1) != 0)
            {
                throw nativeFailure(io.jdat.DatReturnType.INTERNAL_ERROR, "rdma_listen", Native.errno());
            }
            ep.reserve();
        }
        catch (final RuntimeException e)
        {
            ia.forgetCmId(id);
            RdmaCm.destroyId(id);
            throw e;
        }
        this.cmId = id;
        evd.users.incrementAndGet();
    }

    /**
     * A request arrived (the rdma_cm thread): true when it is this RSP's one request and its
     * endpoint took it (PASSIVE_CONNECTION_PENDING); then {@link #stopListening} follows.
     */
    synchronized boolean take()
    {
        if (freed || used || !ep.requestArrived())
        {
            return false;
        }
        used = true;
        return true;
    }

    /** The listening id, handed over to be destroyed, or null when it already was. */
    synchronized MemorySegment stopListening()
    {
        final MemorySegment id = cmId;
        cmId = null;
        if (id != null)
        {
            ia.forgetCmId(id);
        }
        return id;
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
        final MemorySegment id = stopListening();
        if (id != null)
        {
            RdmaCm.destroyId(id);
        }
        ep.unreserve();
        evd.users.decrementAndGet();
        ia.forget(this);
    }

    @Override
    public void query(final long mask, final RspParam param)
    {
        checkValid();
        if (!queryWanted("dat_rsp_query", mask, RspParam.FIELD_ALL, param))
        {
            return;
        }
        param.iaHandle = ia;
        param.connQual = connQual;
        param.evdHandle = evd;
        param.epHandle = ep;
    }

    long connQual()
    {
        return connQual;
    }
}

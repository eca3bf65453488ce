package io.jdat.verbs;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatReturnSubtype;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.Endpoint;
import io.jdat.HandleType;
import io.jdat.IaAddress;
import io.jdat.ServicePoint;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * A connection request: the new {@code rdma_cm_id} of a CONNECT_REQUEST and its private data. A
 * request that came to an RSP names the RSP's endpoint and is accepted on it alone.
 */
final class VerbsCr extends VerbsObject implements ConnectionRequest
{
    /** The PSP or RSP it came to. */
    final ServicePoint sp;
    final long connQual;
    /** The endpoint an RSP reserved (PASSIVE_CONNECTION_PENDING now), or null for a PSP's request. */
    final VerbsEp reserved;
    final MemorySegment cmId;
    final InetAddress remoteAddress;
    final long remotePort;
    final byte[] privateData;

    VerbsCr(final VerbsIa ia, final ServicePoint sp, final long connQual, final VerbsEp reserved,
        final MemorySegment cmId, final byte[] privateData)
    {
        super(ia, HandleType.CR);
        this.sp = sp;
        this.connQual = connQual;
        this.reserved = reserved;
        this.cmId = cmId.reinterpret(RdmaCm.ID_SIZE);
        this.privateData = privateData;
        final MemorySegment dst = this.cmId.asSlice(RdmaCm.ID_DST_ADDR, RdmaCm.SOCKADDR_IN_SIZE);
        this.remoteAddress = Sockaddr.address(dst);
        this.remotePort = Sockaddr.port(dst);
    }

    @Override
    public void query(final long mask, final CrParam param)
    {
        checkValid();
        if (param == null)
        {
            throw invalidParameter(DatArg.QUERY_PARAM, "dat_cr_query: no CrParam");
        }
        param.remoteIaAddress = remoteAddress == null ? null : IaAddress.of(remoteAddress);
        param.remotePortQual = remotePort;
        param.privateDataSize = privateData.length;
        param.privateData = privateData.clone();
        param.localEpHandle = reserved;
    }

    @Override
    public void accept(final Endpoint ep, final byte[] data)
    {
        checkValid();
        final VerbsEp v;
        if (reserved != null)
        {
            if (ep != null)
            {
                throw new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    "dat_cr_accept: this request came to an RSP and names its endpoint: pass DAT_HANDLE_NULL");
            }
            v = reserved;
        }
        else if (ep instanceof VerbsEp e && e.ia == ia && !e.freed)
        {
            v = e;
        }
        else
        {
            throw new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                "dat_cr_accept: not an endpoint of this IA: " + ep);
        }
        synchronized (this)
        {
            if (freed)
            {
                checkValid();
            }
            v.accept(this, data);
            freed = true;
        }
        ia.forget(this);
    }

    @Override
    public void reject()
    {
        checkValid();
        synchronized (this)
        {
            if (freed)
            {
                checkValid();
            }
            freed = true;
        }
        destroyId(true);
        if (reserved != null)
        {
            reserved.requestRejected();
        }
    }

    /** Refuses the request (when asked) and destroys its id: for a reject and an IA close. */
    void destroyId(final boolean reject)
    {
        if (reject)
        {
            RdmaCm.reject(cmId);
        }
        ia.forgetCmId(cmId);
        RdmaCm.destroyId(cmId);
        ia.forget(this);
    }

    void destroy()
    {
        synchronized (this)
        {
            if (freed)
            {
                return;
            }
            freed = true;
        }
        destroyId(true);
    }

    @Override
    public void handoff(final long handoffConnQual)
    {
        checkValid();
        synchronized (this)
        {
            if (freed)
            {
                checkValid();
            }
            freed = true;
        }
        ia.forget(this);
        if (reserved != null)
        {
            reserved.requestRejected();
        }
        // rdma_cm cannot move a request to another listening id; the peer does not see where it is
        // answered, so the same id and private data come again as a new request of the target SP
        if (!ia.handOff(this, handoffConnQual))
        {
            destroyId(true);
            throw invalidParameter(DatArg.CR_HANDOFF_HANDOFF,
                "dat_cr_handoff: nothing listens on connection qualifier " + handoffConnQual + " of this IA");
        }
    }
}

package io.jdat.engine;

import io.jdat.CompletionFlags;
import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.HandleType;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.Rmr;
import io.jdat.RmrParam;
import io.jdat.spi.DatArg;

/**
 * A memory window. Its STag table index is reserved at creation; every bind takes the next key
 * of that index, so a context handed out before a rebind stops working once the rebind executes.
 */
final class RmrImpl extends EngineObject implements Rmr
{
    private static final int BIND_FLAGS = CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG
        | CompletionFlags.BARRIER_FENCE_FLAG;

    final PzImpl pz;
    private final int reservedStag;
    /** The bound region, or null (guarded by this object's monitor). */
    private MemoryRegion region;

    RmrImpl(final IaImpl ia, final PzImpl pz, final int stag)
    {
        super(ia, HandleType.RMR);
        this.pz = pz;
        this.reservedStag = stag;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_RMR;
    }

    @Override
    public int bind(final LmrTriplet triplet, final int memPrivileges, final Endpoint epHandle, final long userCookie,
        final int completionFlags)
    {
        checkLive();
        final EpImpl ep = cast(epHandle, EpImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_EP, false, "ep_handle");
        if (triplet == null)
        {
            throw Errors.invalidParameter(DatArg.RMR_BIND_LMR_TRIPLET, "lmr_triplet is null");
        }
        if ((memPrivileges & ~MemPriv.ALL_FLAG) != 0)
        {
            throw Errors.invalidParameter(DatArg.RMR_BIND_MEM_PRIVILEGES,
                String.format("unknown privilege bits 0x%x", memPrivileges));
        }
        if ((completionFlags & ~BIND_FLAGS) != 0)
        {
            throw Errors.invalidParameter(DatArg.RMR_BIND_COMPLETION_FLAGS,
                "unknown completion flags 0x" + Integer.toHexString(completionFlags));
        }
        if ((completionFlags & CompletionFlags.UNSIGNALLED_FLAG) != 0
            && ep.attr.requestCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(DatArg.RMR_BIND_COMPLETION_FLAGS,
                "DAT_COMPLETION_UNSIGNALLED_FLAG needs the EP's "
                + "request_completion_flags to be UNSIGNALLED");
        }
        MemoryRegion next = null;
        LmrImpl lmr = null;
        final int context;
        synchronized (ia.lock)
        {
            checkLive();
            if (triplet.segmentLength != 0)
            {
                final MemoryRegion lr = ia.memory.lookup(triplet.lmrContext);
                if (lr == null || lr.window)
                {
                    throw Errors.invalidParameter(DatArg.RMR_BIND_LMR_TRIPLET,
                        String.format("lmr_context 0x%08x names no LMR of this IA",
                        triplet.lmrContext));
                }
                if (lr.pz != pz || ep.pz != pz)
                {
                    throw Errors.protection(DatReturnSubtype.NO_SUBTYPE,
                        "the RMR, the LMR and the endpoint must be in the same protection zone");
                }
                // local read is always granted; a remotely writable window needs a writable LMR
                if ((memPrivileges & MemPriv.REMOTE_WRITE_FLAG) != 0 && !lr.has(MemPriv.LOCAL_WRITE_FLAG))
                {
                    throw Errors.privileges(DatReturnSubtype.PRIVILEGES_RDMA_WRITE,
                        "remote write needs an LMR with DAT_MEM_PRIV_LOCAL_WRITE_FLAG");
                }
                final long off = lr.offsetOf(triplet.virtualAddress, triplet.segmentLength);
                if (off < 0)
                {
                    throw Errors.invalidParameter(DatArg.RMR_BIND_LMR_TRIPLET, "the triplet lies outside its LMR");
                }
                context = ia.memory.rekey(reservedStag);
                lmr = lr.lmr;
                next = new MemoryRegion(context, pz, lr.memory.asSlice(off, triplet.segmentLength),
                    triplet.virtualAddress, triplet.segmentLength,
                    memPrivileges & (MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG), true, lmr);
                lmr.boundRmrs.incrementAndGet();
            }
            else
            {
                // a zero-length bind unbinds; the context returned means nothing
                context = 0;
            }
        }
        try
        {
            ep.requests.postBind(this, next, lmr, userCookie, completionFlags);
        }
        catch (final RuntimeException e)
        {
            if (lmr != null)
            {
                lmr.boundRmrs.decrementAndGet();
            }
            throw e;
        }
        return context;
    }

    /** The bind executes: the old region stops working, the new one (if any) starts. */
    synchronized void apply(final MemoryRegion next, final LmrImpl lmr)
    {
        if (isDestroyed())
        {
            if (lmr != null)
            {
                lmr.boundRmrs.decrementAndGet();
            }
            return;
        }
        unbind();
        region = next;
        if (next != null)
        {
            ia.memory.publish(next);
        }
    }

    private void unbind()
    {
        final MemoryRegion old = region;
        if (old != null)
        {
            ia.memory.unpublish(old);
            old.lmr.boundRmrs.decrementAndGet();
            region = null;
        }
    }

    @Override
    public void free()
    {
        synchronized (ia.lock)
        {
            checkLive();
            synchronized (this)
            {
                unbind();
                markDestroyed();
            }
            ia.memory.release(reservedStag);
            pz.removeUser();
            ia.forget(this);
        }
    }

    @Override
    public void query(final long rmrParamMask, final RmrParam param)
    {
        checkLive();
        Errors.checkQuery(rmrParamMask, RmrParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param == null)
        {
            return;
        }
        param.iaHandle = ia;
        param.pzHandle = pz;
        synchronized (this)
        {
            final MemoryRegion r = region;
            if (r != null)
            {
                param.lmrTriplet.set(r.lmr.lmrContext(), r.base, r.length);
                param.memPriv = r.privileges;
                param.rmrContext = r.stag;
            }
            else
            {
                param.lmrTriplet.set(0, 0, 0);
                param.memPriv = 0;
                param.rmrContext = 0;
            }
        }
    }
}

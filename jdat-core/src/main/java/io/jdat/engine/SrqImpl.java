package io.jdat.engine;

import io.jdat.AsyncErrorReason;
import io.jdat.DatReturnSubtype;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.LmrTriplet;
import io.jdat.ProtectionZone;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;
import io.jdat.SrqState;
import io.jdat.spi.DatArg;
import java.util.ArrayDeque;

/**
 * A shared receive queue. Counts as the man pages define them: <em>available</em> buffers are on
 * the SRQ, not yet taken by an endpoint; <em>outstanding</em> buffers were posted and not yet
 * reaped, that is available + held by endpoints + completed but still on a receive EVD.
 */
final class SrqImpl extends EngineObject implements SharedReceiveQueue
{
    final PzImpl pz;
    final int maxRecvIov;
    private final ArrayDeque<RecvBuffer> posted = new ArrayDeque<>();
    private final ArrayDeque<RecvBuffer> free = new ArrayDeque<>();
    private int capacity;
    /** Buffer objects in existence (posted + free + held). */
    private int allocated;
    private int outstanding;
    private int lowWatermark;
    private boolean lwArmed;
    /** Endpoints using this SRQ (guarded by the IA lock). */
    int endpoints;

    private SrqImpl(final IaImpl ia, final PzImpl pz, final int capacity, final int maxRecvIov)
    {
        super(ia, HandleType.SRQ);
        this.pz = pz;
        this.capacity = capacity;
        this.maxRecvIov = maxRecvIov;
        grow(capacity);
    }

    static SrqImpl create(final IaImpl ia, final ProtectionZone pzHandle, final SrqAttr attr)
    {
        synchronized (ia.lock)
        {
            ia.checkLive();
            final PzImpl pz = cast(pzHandle, PzImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_PZ, false, "pz");
            if (attr == null)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR, "srq_attr is null");
            }
            if (attr.maxRecvDtos <= 0 || attr.maxRecvDtos > ia.config.maxRecvPerSrq)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR,
                    "max_recv_dtos " + attr.maxRecvDtos + " is outside 1.."
                    + ia.config.maxRecvPerSrq);
            }
            if (attr.maxRecvIov <= 0 || attr.maxRecvIov > ia.config.maxIov)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR,
                    "max_recv_iov " + attr.maxRecvIov + " is outside 1.."
                    + ia.config.maxIov);
            }
            if (attr.lowWatermark != io.jdat.Dat.SRQ_LW_DEFAULT)
            {
                throw Errors.invalidParameter(DatArg.SRQ_CREATE_ATTR,
                    "low_watermark must be DAT_SRQ_LW_DEFAULT at creation");
            }
            ia.checkLimit(HandleType.SRQ, ia.config.maxSrqs, DatReturnSubtype.RESOURCE_SRQ, "SRQs");
            final SrqImpl srq = new SrqImpl(ia, pz, attr.maxRecvDtos, attr.maxRecvIov);
            ia.register(srq, ia.config.maxSrqs, DatReturnSubtype.RESOURCE_SRQ, "SRQs");
            pz.addUser();
            return srq;
        }
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_SRQ;
    }

    private void grow(final int to)
    {
        while (allocated < to)
        {
            free.push(new RecvBuffer(maxRecvIov));
            allocated++;
        }
    }

    @Override
    public void postRecv(final int numSegments, final LmrTriplet[] iov, final long userCookie)
    {
        checkLive();
        synchronized (this)
        {
            // a buffer occupies the SRQ until its completion is reaped (dat_srq_resize(3DAT))
            final RecvBuffer b = outstanding >= capacity ? null : free.poll();
            if (b == null)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_SRQ,
                    "the SRQ holds " + capacity + " buffers already (posted and not yet reaped)");
            }
            try
            {
                b.local.fill(ia.memory, numSegments, iov, maxRecvIov, pz, true, 3);
            }
            catch (final RuntimeException e)
            {
                free.push(b);
                throw e;
            }
            b.cookie = userCookie;
            b.flags = 0;
            b.srq = this;
            posted.add(b);
            outstanding++;
        }
    }

    /** An endpoint takes the next buffer for an arriving message; null if none. */
    RecvBuffer take()
    {
        final boolean fire;
        final RecvBuffer b;
        synchronized (this)
        {
            b = posted.poll();
            if (b == null)
            {
                return null;
            }
            fire = lwArmed && posted.size() < lowWatermark;
            if (fire)
            {
                lwArmed = false;
            }
        }
        if (fire)
        {
            ia.reportAsync(EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT,
                null);
        }
        return b;
    }

    /** A held buffer's completion was generated: the buffer object can be posted again. */
    synchronized void completed(final RecvBuffer b)
    {
        b.local.clear();
        if (allocated > capacity)
        {
            // shrinking: let surplus buffers go
            allocated--;
        }
        else
        {
            free.push(b);
        }
    }

    /** The consumer dequeued (or lost) a completion of one of this SRQ's buffers. */
    synchronized void reaped()
    {
        outstanding--;
    }

    @Override
    public void query(final long srqParamMask, final SrqParam param)
    {
        checkLive();
        Errors.checkQuery(srqParamMask, SrqParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param == null)
        {
            return;
        }
        synchronized (this)
        {
            param.iaHandle = ia;
            param.srqState = SrqState.OPERATIONAL;
            param.pzHandle = pz;
            param.maxRecvDtos = capacity;
            param.maxRecvIov = maxRecvIov;
            param.lowWatermark = lowWatermark;
            param.availableDtoCount = posted.size();
            param.outstandingDtoCount = outstanding;
        }
    }

    @Override
    public void resize(final int srqMaxRecvDto)
    {
        checkLive();
        if (srqMaxRecvDto <= 0 || srqMaxRecvDto > ia.config.maxRecvPerSrq)
        {
            throw Errors.invalidParameter(DatArg.SRQ_RESIZE_MAX_RECV_DTO,
                "max_recv_dtos " + srqMaxRecvDto + " is outside 1.."
                + ia.config.maxRecvPerSrq);
        }
        synchronized (this)
        {
            if (outstanding > srqMaxRecvDto)
            {
                throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, outstanding
                    + " buffers are outstanding, more than " + srqMaxRecvDto);
            }
            if (srqMaxRecvDto < lowWatermark)
            {
                throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE, "the new size is below the low watermark "
                    + lowWatermark);
            }
            capacity = srqMaxRecvDto;
            grow(capacity);
            // shrink what is free now; held buffers are dropped as they complete
            while (allocated > capacity && !free.isEmpty())
            {
                free.pop();
                allocated--;
            }
        }
    }

    @Override
    public void setLw(final int lowWatermarkValue)
    {
        checkLive();
        final boolean fire;
        synchronized (this)
        {
            if (lowWatermarkValue < 0 || lowWatermarkValue > capacity)
            {
                throw Errors.invalidParameter(DatArg.SRQ_SET_LW_LOW_WATERMARK,
                    "low watermark " + lowWatermarkValue + " is outside 0.." + capacity);
            }
            lowWatermark = lowWatermarkValue;
            lwArmed = lowWatermarkValue != io.jdat.Dat.SRQ_LW_DEFAULT;
            // the man page words this backwards: the event fires at once if we are already below
            fire = lwArmed && posted.size() < lowWatermark;
            if (fire)
            {
                lwArmed = false;
            }
        }
        if (fire)
        {
            ia.reportAsync(EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT,
                null);
        }
    }

    @Override
    public void free()
    {
        synchronized (ia.lock)
        {
            checkLive();
            if (endpoints > 0)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                    endpoints + " endpoints use this SRQ");
            }
            synchronized (this)
            {
                // buffers still posted are discarded: there is no EVD to flush them to
                for (final RecvBuffer b : posted)
                {
                    b.local.clear();
                }
                posted.clear();
                free.clear();
            }
            pz.removeUser();
            ia.forget(this);
            markDestroyed();
        }
    }

    synchronized int available()
    {
        return posted.size();
    }
}

package io.jdat.engine;

import io.jdat.AsyncErrorReason;
import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatReturnSubtype;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EpStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.IaAddress;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.ServiceType;
import io.jdat.SharedReceiveQueue;
import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.PendingConnect;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An endpoint: the 13-state machine of uDAPL 1.2, its request and receive queues, and the
 * validation and placement of everything its connection delivers.
 *
 * <p>Locking: {@link #lock} guards the state, both queues and the current {@link Connection}.
 * The IA lock may be taken before it, never after it. EVD locks are taken inside it. No call
 * into a transport other than {@link Channel#post} happens while it is held.
 *
 * <p>Request queue: a ring of {@link WorkRequest}s with three counters, {@code sqHead} (oldest
 * not yet completed to the consumer), {@code sqStart} (next to hand to the channel) and
 * {@code sqTail} (next free). Requests start in order (a fence or a lack of RDMA Read credits
 * holds back everything behind it) and retire in order, so completions appear in posting order.
 */
final class EpImpl extends EngineObject implements Endpoint
{
    private static final int STREAM_RECV = 0;
    private static final int STREAM_REQUEST = 1;
    private static final int STREAM_CONNECT = 2;
    private static final int REQUEST_FLAGS = CompletionFlags.SUPPRESS_FLAG | CompletionFlags.SOLICITED_WAIT_FLAG
        | CompletionFlags.UNSIGNALLED_FLAG | CompletionFlags.BARRIER_FENCE_FLAG;
    private static final int ALL_QOS = Qos.HIGH_THROUGHPUT | Qos.LOW_LATENCY | Qos.ECONOMY | Qos.PREMIUM;

    final ReentrantLock lock = new ReentrantLock();
    private volatile EpState state = EpState.UNCONNECTED;
    final EpAttr attr;
    /** Whether the consumer chose the RDMA Read limits (else the provider may adjust them at setup). */
    private boolean readLimitsExplicit;
    PzImpl pz;
    EvdImpl recvEvd;
    EvdImpl requestEvd;
    EvdImpl connectEvd;
    final SrqImpl srq;
    final boolean providerCreated;

    private WorkRequest[] sq;
    private long sqHead;
    private long sqStart;
    private long sqTail;
    private RecvBuffer[] rq;
    private long rqHead;
    private long rqTail;
    private boolean recvEverPosted;
    private final Segments scratch;

    private volatile Connection conn;
    private IaAddress remoteAddress;
    private long remotePortQual;
    private long localPortQual;
    /** What this EP was actively connected to, for dat_ep_dup_connect. */
    private IaAddress connectedAddress;
    private long connectedQual = -1;
    /** RSP or CR that holds this endpoint, if any. */
    RspImpl rsp;
    CrImpl cr;

    private int softHw = Dat.WATERMARK_INFINITE;
    private int hardHw = Dat.WATERMARK_INFINITE;

    private EpImpl(final IaImpl ia, final PzImpl pz, final EvdImpl recv, final EvdImpl request,
        final EvdImpl connect, final SrqImpl srq, final EpAttr attr, final boolean explicit,
        final boolean providerCreated)
    {
        super(ia, HandleType.EP);
        this.pz = pz;
        this.recvEvd = recv;
        this.requestEvd = request;
        this.connectEvd = connect;
        this.srq = srq;
        this.attr = attr;
        this.readLimitsExplicit = explicit;
        this.providerCreated = providerCreated;
        this.sq = newSendQueue(attr);
        this.rq = newRecvQueue(attr);
        this.scratch = new Segments(Math.max(ia.config.maxIov, 1));
        this.softHw = attr.srqSoftHw;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_EP;
    }

    private WorkRequest[] newSendQueue(final EpAttr a)
    {
        final int iov = Math.max(a.maxRequestIov, Math.max(a.maxRdmaReadIov, a.maxRdmaWriteIov));
        final WorkRequest[] ring = new WorkRequest[a.maxRequestDtos];
        for (int i = 0; i < ring.length; i++)
        {
            ring[i] = new WorkRequest(iov);
        }
        return ring;
    }

    private RecvBuffer[] newRecvQueue(final EpAttr a)
    {
        final RecvBuffer[] ring = new RecvBuffer[srq != null ? 0 : Math.max(0, a.maxRecvDtos)];
        for (int i = 0; i < ring.length; i++)
        {
            ring[i] = new RecvBuffer(a.maxRecvIov);
        }
        return ring;
    }

    // ================================================================ creation

    static EpImpl create(final IaImpl ia, final ProtectionZone pzHandle, final EventDispatcher recv,
        final EventDispatcher request, final EventDispatcher connect, final SharedReceiveQueue srqHandle,
        final EpAttr attributes, final boolean withSrq)
    {
        synchronized (ia.lock)
        {
            ia.checkLive();
            final PzImpl pz = cast(pzHandle, PzImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_PZ, true, "pz");
            final EvdImpl recvEvd = evd(ia, recv, EvdFlags.DTO_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                "recv_evd");
            final EvdImpl requestEvd = evd(ia, request, EvdFlags.DTO_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                "request_evd");
            final EvdImpl connectEvd = evd(ia, connect, EvdFlags.CONNECTION_FLAG,
                DatReturnSubtype.INVALID_HANDLE_EVD_CONN, "connect_evd");
            SrqImpl srq = null;
            if (withSrq)
            {
                srq = cast(srqHandle, SrqImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_SRQ, false, "srq");
                if (attributes == null)
                {
                    throw Errors.invalidParameter(7, "dat_ep_create_with_srq needs attributes");
                }
            }
            final EpAttr attr = attributes == null ? defaults(ia) : new EpAttr(attributes);
            validate(ia, attr, srq != null);
            ia.checkLimit(HandleType.EP, ia.config.maxEps, DatReturnSubtype.RESOURCE_TEP, "EPs");
            if (srq != null && srq.endpoints >= ia.config.maxEpPerSrq)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_SRQ,
                    "the SRQ already serves " + srq.endpoints + " endpoints (max_ep_per_srq)");
            }
            final EpImpl ep = new EpImpl(ia, pz, recvEvd, requestEvd, connectEvd, srq, attr, attributes != null,
                false);
            ep.attachAll();
            ia.register(ep, ia.config.maxEps, DatReturnSubtype.RESOURCE_TEP, "EPs");
            if (pz != null)
            {
                pz.addUser();
            }
            if (srq != null)
            {
                srq.endpoints++;
            }
            return ep;
        }
    }

    /**
     * An endpoint the provider creates for a PSP's request: no PZ, no EVDs, default attributes
     * with RDMA Read limits that match the request. IA lock held.
     */
    static EpImpl createForRequest(final IaImpl ia, final IncomingRequest request)
    {
        ia.checkLimit(HandleType.EP, ia.config.maxEps, DatReturnSubtype.RESOURCE_TEP, "EPs");
        final EpAttr attr = defaults(ia);
        attr.maxRdmaReadIn = Math.min(Math.max(attr.maxRdmaReadIn, request.peerOrd()), ia.config.maxRdmaReadPerEp);
        attr.maxRdmaReadOut = Math.min(attr.maxRdmaReadOut, request.peerIrd());
        final EpImpl ep = new EpImpl(ia, null, null, null, null, null, attr, false, true);
        ep.state = EpState.TENTATIVE_CONNECTION_PENDING;
        ia.register(ep, ia.config.maxEps, DatReturnSubtype.RESOURCE_TEP, "EPs");
        return ep;
    }

    private static EvdImpl evd(final IaImpl ia, final EventDispatcher handle, final int needed,
        final DatReturnSubtype subtype, final String what)
    {
        final EvdImpl e = cast(handle, EvdImpl.class, ia, subtype, true, what);
        if (e != null && !e.accepts(needed))
        {
            throw Errors.invalidHandle(subtype, what + " was not created for this kind of event");
        }
        return e;
    }

    /** The provider's default attributes, within this IA's limits. */
    static EpAttr defaults(final IaImpl ia)
    {
        final EngineConfig c = ia.config;
        final EpAttr a = new EpAttr();
        a.maxMessageSize = Math.min(a.maxMessageSize, c.maxMessageSize);
        a.maxRdmaSize = Math.min(a.maxRdmaSize, c.maxRdmaSize);
        a.maxRecvDtos = Math.min(a.maxRecvDtos, c.maxDtoPerEp);
        a.maxRequestDtos = Math.min(a.maxRequestDtos, c.maxDtoPerEp);
        a.maxRecvIov = Math.min(a.maxRecvIov, c.maxIov);
        a.maxRequestIov = Math.min(a.maxRequestIov, c.maxIov);
        a.maxRdmaReadIov = Math.min(a.maxRdmaReadIov, c.maxIov);
        a.maxRdmaWriteIov = Math.min(a.maxRdmaWriteIov, c.maxIov);
        a.maxRdmaReadIn = Math.min(a.maxRdmaReadIn, c.maxRdmaReadPerEp);
        a.maxRdmaReadOut = Math.min(a.maxRdmaReadOut, c.maxRdmaReadPerEp);
        return a;
    }

    private static void validate(final IaImpl ia, final EpAttr a, final boolean withSrq)
    {
        final EngineConfig c = ia.config;
        if (a.serviceType != ServiceType.RC)
        {
            throw Errors.modelNotSupported("service type " + a.serviceType + " (uDAPL 1.2 has RC only)");
        }
        if ((a.qos & ~ALL_QOS) != 0)
        {
            throw Errors.invalidParameter(6, "unknown QoS bits 0x" + Integer.toHexString(a.qos));
        }
        if (a.qos != Qos.BEST_EFFORT)
        {
            throw Errors.modelNotSupported("QoS other than DAT_QOS_BEST_EFFORT");
        }
        check(a.maxMessageSize >= 0 && a.maxMessageSize <= c.maxMessageSize, "max_message_size", a.maxMessageSize,
            c.maxMessageSize);
        check(a.maxRdmaSize >= 0 && a.maxRdmaSize <= c.maxRdmaSize, "max_rdma_size", a.maxRdmaSize, c.maxRdmaSize);
        check(a.maxRequestDtos >= 0 && a.maxRequestDtos <= c.maxDtoPerEp, "max_request_dtos", a.maxRequestDtos,
            c.maxDtoPerEp);
        check(a.maxRequestIov >= 0 && a.maxRequestIov <= c.maxIov, "max_request_iov", a.maxRequestIov, c.maxIov);
        if (!withSrq)
        {
            check(a.maxRecvDtos >= 0 && a.maxRecvDtos <= c.maxDtoPerEp, "max_recv_dtos", a.maxRecvDtos,
                c.maxDtoPerEp);
            check(a.maxRecvIov >= 0 && a.maxRecvIov <= c.maxIov, "max_recv_iov", a.maxRecvIov, c.maxIov);
        }
        check(a.maxRdmaReadIn >= 0 && a.maxRdmaReadIn <= c.maxRdmaReadPerEp, "max_rdma_read_in", a.maxRdmaReadIn,
            c.maxRdmaReadPerEp);
        check(a.maxRdmaReadOut >= 0 && a.maxRdmaReadOut <= c.maxRdmaReadPerEp, "max_rdma_read_out",
            a.maxRdmaReadOut, c.maxRdmaReadPerEp);
        check(a.maxRdmaReadIov >= 0 && a.maxRdmaReadIov <= c.maxIov, "max_rdma_read_iov", a.maxRdmaReadIov, c.maxIov);
        check(a.maxRdmaWriteIov >= 0 && a.maxRdmaWriteIov <= c.maxIov, "max_rdma_write_iov", a.maxRdmaWriteIov,
            c.maxIov);
        if (a.srqSoftHw < Dat.WATERMARK_INFINITE)
        {
            throw Errors.invalidParameter(6, "srq_soft_hw " + a.srqSoftHw);
        }
        if (a.recvCompletionFlags != CompletionFlags.EVD_THRESHOLD_FLAG
            && a.recvCompletionFlags != CompletionFlags.SOLICITED_WAIT_FLAG
            && a.recvCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(6, "recv_completion_flags must be EVD_THRESHOLD, SOLICITED_WAIT or "
                + "UNSIGNALLED, not 0x" + Integer.toHexString(a.recvCompletionFlags));
        }
        if (a.requestCompletionFlags != CompletionFlags.EVD_THRESHOLD_FLAG
            && a.requestCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(6, "request_completion_flags must be EVD_THRESHOLD or UNSIGNALLED, not 0x"
                + Integer.toHexString(a.requestCompletionFlags));
        }
        if (a.epTransportSpecificCount < 0 || a.epProviderSpecificCount < 0)
        {
            throw Errors.invalidParameter(6, "negative attribute count");
        }
    }

    private static void check(final boolean ok, final String what, final long value, final long max)
    {
        if (!ok)
        {
            throw Errors.invalidParameter(6, what + " " + value + " is outside 0.." + max);
        }
    }

    // ================================================================ EVD streams

    /** Attaches this EP's three streams to their EVDs, checking the sharing rules. IA lock held. */
    private void attachAll()
    {
        int done = 0;
        try
        {
            attach(recvEvd, STREAM_RECV, attr.recvCompletionFlags);
            done++;
            attach(requestEvd, STREAM_REQUEST, attr.requestCompletionFlags);
            done++;
            attach(connectEvd, STREAM_CONNECT, 0);
        }
        catch (final RuntimeException e)
        {
            if (done > 1)
            {
                detach(requestEvd, STREAM_REQUEST, attr.requestCompletionFlags);
            }
            if (done > 0)
            {
                detach(recvEvd, STREAM_RECV, attr.recvCompletionFlags);
            }
            throw e;
        }
    }

    private void detachAll()
    {
        detach(recvEvd, STREAM_RECV, attr.recvCompletionFlags);
        detach(requestEvd, STREAM_REQUEST, attr.requestCompletionFlags);
        detach(connectEvd, STREAM_CONNECT, 0);
    }

    /**
     * The man page's rules for EP streams that share an EVD: DTO streams on one EVD use the same
     * completion configuration; an EVD that also carries non-DTO events allows only
     * EVD_THRESHOLD; unsignalled and solicited-wait streams do not mix with anything else.
     */
    private static void attach(final EvdImpl e, final int stream, final int flag)
    {
        if (e == null)
        {
            return;
        }
        if (stream == STREAM_CONNECT)
        {
            if (e.unsignalledStreams + e.solicitedStreams > 0)
            {
                throw Errors.invalidParameter(5, "an EVD with unsignalled or solicited-wait DTO streams cannot also "
                    + "take connection events");
            }
            e.otherStreams++;
            e.streamRefs++;
            return;
        }
        final boolean clash = switch (flag)
        {
            case CompletionFlags.UNSIGNALLED_FLAG -> e.otherStreams > 0 || e.thresholdStreams + e.solicitedStreams > 0;
            case CompletionFlags.SOLICITED_WAIT_FLAG -> e.otherStreams > 0 || e.requestStreams > 0
                || e.thresholdStreams + e.unsignalledStreams > 0;
            default -> e.unsignalledStreams + e.solicitedStreams > 0;
        };
        if (clash || stream == STREAM_REQUEST && e.solicitedStreams > 0)
        {
            throw Errors.invalidParameter(stream == STREAM_RECV ? 3 : 4,
                "the EVD is shared with streams whose completion flags do not match");
        }
        switch (flag)
        {
            case CompletionFlags.UNSIGNALLED_FLAG -> e.unsignalledStreams++;
            case CompletionFlags.SOLICITED_WAIT_FLAG -> e.solicitedStreams++;
            default -> e.thresholdStreams++;
        }
        if (stream == STREAM_REQUEST)
        {
            e.requestStreams++;
        }
        e.streamRefs++;
    }

    private static void detach(final EvdImpl e, final int stream, final int flag)
    {
        if (e == null)
        {
            return;
        }
        e.streamRefs--;
        if (stream == STREAM_CONNECT)
        {
            e.otherStreams--;
            return;
        }
        switch (flag)
        {
            case CompletionFlags.UNSIGNALLED_FLAG -> e.unsignalledStreams--;
            case CompletionFlags.SOLICITED_WAIT_FLAG -> e.solicitedStreams--;
            default -> e.thresholdStreams--;
        }
        if (stream == STREAM_REQUEST)
        {
            e.requestStreams--;
        }
    }

    // ================================================================ query, modify, status

    EpState state()
    {
        return state;
    }

    boolean isCurrent(final Connection c)
    {
        return conn == c;
    }

    @Override
    public void query(final long epParamMask, final EpParam param)
    {
        checkLive();
        Errors.checkQuery(epParamMask, EpParam.FIELD_ALL, param, 3);
        if (param == null)
        {
            return;
        }
        Locks.lock(lock);
        try
        {
            param.iaHandle = ia;
            param.epState = state;
            param.localIaAddress = ia.port().address();
            param.localPortQual = localPortQual;
            param.remoteIaAddress = remoteAddress;
            param.remotePortQual = remotePortQual;
            param.pzHandle = pz;
            param.recvEvdHandle = recvEvd;
            param.requestEvdHandle = requestEvd;
            param.connectEvdHandle = connectEvd;
            param.srqHandle = srq;
            param.epAttr.copyFrom(attr);
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public void modify(final long mask, final EpParam param)
    {
        synchronized (ia.lock)
        {
            checkLive();
            if ((mask & ~EpParam.FIELD_ALL) != 0)
            {
                throw Errors.invalidParameter(2, String.format("mask 0x%x has undefined bits", mask));
            }
            if (param == null)
            {
                throw Errors.invalidParameter(3, "ep_param is null");
            }
            final long never = EpParam.FIELD_IA_HANDLE | EpParam.FIELD_EP_STATE | EpParam.FIELD_LOCAL_IA_ADDRESS_PTR
                | EpParam.FIELD_LOCAL_PORT_QUAL | EpParam.FIELD_REMOTE_IA_ADDRESS_PTR
                | EpParam.FIELD_REMOTE_PORT_QUAL | EpParam.FIELD_SRQ_HANDLE;
            if ((mask & never) != 0)
            {
                throw Errors.invalidParameter(2, "the mask names a parameter that can never be modified");
            }
            Locks.lock(lock);
            try
            {
                modifyLocked(mask, param);
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    private void modifyLocked(final long mask, final EpParam param)
    {
        final EpState s = state;
        final boolean quiescent = s == EpState.UNCONNECTED || s == EpState.TENTATIVE_CONNECTION_PENDING;
        final boolean configurable = quiescent || s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING;
        if ((mask & EpParam.FIELD_PZ_HANDLE) != 0 && !quiescent)
        {
            throw Errors.invalidState(stateSubtype(s), "the PZ can change only while UNCONNECTED or TENTATIVE");
        }
        if ((mask & ~EpParam.FIELD_PZ_HANDLE) != 0 && !configurable)
        {
            throw Errors.invalidState(stateSubtype(s), "EP parameters can change only before connecting or accepting");
        }
        final long specific = EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR | EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR
            | EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR | EpParam.FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR;
        if ((mask & specific) != 0 && s != EpState.UNCONNECTED)
        {
            throw Errors.invalidState(stateSubtype(s), "specific attributes can change only while UNCONNECTED");
        }
        if ((mask & EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) != 0 && recvEverPosted)
        {
            throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EP_RECV_WATERMARK,
                "recv_completion_flags can change only before any receive was posted");
        }
        final EpAttr next = new EpAttr(attr);
        final EpAttr in = param.epAttr;
        if ((mask & EpParam.FIELD_EP_ATTR_SERVICE_TYPE) != 0)
        {
            next.serviceType = in.serviceType;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE) != 0)
        {
            next.maxMessageSize = in.maxMessageSize;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_SIZE) != 0)
        {
            next.maxRdmaSize = in.maxRdmaSize;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_QOS) != 0)
        {
            next.qos = in.qos;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) != 0)
        {
            next.recvCompletionFlags = in.recvCompletionFlags;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS) != 0)
        {
            next.requestCompletionFlags = in.requestCompletionFlags;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS) != 0)
        {
            next.maxRecvDtos = in.maxRecvDtos;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS) != 0)
        {
            next.maxRequestDtos = in.maxRequestDtos;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RECV_IOV) != 0)
        {
            next.maxRecvIov = in.maxRecvIov;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV) != 0)
        {
            next.maxRequestIov = in.maxRequestIov;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN) != 0)
        {
            next.maxRdmaReadIn = in.maxRdmaReadIn;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_OUT) != 0)
        {
            next.maxRdmaReadOut = in.maxRdmaReadOut;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_SRQ_SOFT_HW) != 0)
        {
            next.srqSoftHw = in.srqSoftHw;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IOV) != 0)
        {
            next.maxRdmaReadIov = in.maxRdmaReadIov;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV) != 0)
        {
            next.maxRdmaWriteIov = in.maxRdmaWriteIov;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR) != 0)
        {
            next.epTransportSpecificCount = in.epTransportSpecificCount;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR) != 0)
        {
            next.epTransportSpecific = in.epTransportSpecific == null ? new io.jdat.NamedAttr[0]
                : in.epTransportSpecific.clone();
        }
        if ((mask & EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR) != 0)
        {
            next.epProviderSpecificCount = in.epProviderSpecificCount;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR) != 0)
        {
            next.epProviderSpecific = in.epProviderSpecific == null ? new io.jdat.NamedAttr[0]
                : in.epProviderSpecific.clone();
        }
        validate(ia, next, srq != null);
        final long posted = rqTail - rqHead;
        if (srq == null && next.maxRecvDtos < posted)
        {
            throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EP_RECV_WATERMARK,
                posted + " receives are posted, more than max_recv_dtos " + next.maxRecvDtos);
        }
        final PzImpl nextPz = (mask & EpParam.FIELD_PZ_HANDLE) != 0
            ? cast(param.pzHandle, PzImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_PZ, true, "pz_handle") : pz;
        final EvdImpl nextRecv = (mask & EpParam.FIELD_RECV_EVD_HANDLE) != 0
            ? evd(ia, param.recvEvdHandle, EvdFlags.DTO_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_RECV, "recv_evd")
            : recvEvd;
        final EvdImpl nextRequest = (mask & EpParam.FIELD_REQUEST_EVD_HANDLE) != 0
            ? evd(ia, param.requestEvdHandle, EvdFlags.DTO_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                "request_evd") : requestEvd;
        final EvdImpl nextConnect = (mask & EpParam.FIELD_CONNECT_EVD_HANDLE) != 0
            ? evd(ia, param.connectEvdHandle, EvdFlags.CONNECTION_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                "connect_evd") : connectEvd;
        // re-attach the streams with the new flags and EVDs, all or nothing
        detachAll();
        final EvdImpl oldRecv = recvEvd;
        final EvdImpl oldRequest = requestEvd;
        final EvdImpl oldConnect = connectEvd;
        final EpAttr old = new EpAttr(attr);
        recvEvd = nextRecv;
        requestEvd = nextRequest;
        connectEvd = nextConnect;
        attr.copyFrom(next);
        try
        {
            attachAll();
        }
        catch (final RuntimeException e)
        {
            recvEvd = oldRecv;
            requestEvd = oldRequest;
            connectEvd = oldConnect;
            attr.copyFrom(old);
            attachAll();
            throw e;
        }
        if (nextPz != pz)
        {
            if (pz != null)
            {
                pz.removeUser();
            }
            if (nextPz != null)
            {
                nextPz.addUser();
            }
            pz = nextPz;
        }
        if ((mask & (EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN | EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_OUT)) != 0)
        {
            readLimitsExplicit = true;
        }
        if (old.maxRequestDtos != attr.maxRequestDtos || old.maxRequestIov != attr.maxRequestIov
            || old.maxRdmaReadIov != attr.maxRdmaReadIov || old.maxRdmaWriteIov != attr.maxRdmaWriteIov)
        {
            sq = newSendQueue(attr);
            sqHead = sqStart = sqTail = 0;
        }
        if (srq == null && (old.maxRecvDtos != attr.maxRecvDtos || old.maxRecvIov != attr.maxRecvIov))
        {
            final RecvBuffer[] next2 = newRecvQueue(attr);
            // keep what is posted, in order
            for (long i = rqHead; i < rqTail; i++)
            {
                final RecvBuffer from = rq[(int) (i % rq.length)];
                final int to = (int) (i - rqHead);
                if (from.local.count > next2[to].local.regions.length)
                {
                    throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE,
                        "a posted receive has more segments than the new max_recv_iov");
                }
                next2[to] = from;
            }
            rqTail -= rqHead;
            rqHead = 0;
            rq = next2;
        }
        if (s == EpState.TENTATIVE_CONNECTION_PENDING || s == EpState.UNCONNECTED)
        {
            softHw = attr.srqSoftHw;
        }
    }

    @Override
    public void getStatus(final EpStatus status)
    {
        checkLive();
        if (status == null)
        {
            return;
        }
        Locks.lock(lock);
        try
        {
            status.epState = state;
            final Connection c = conn;
            status.recvIdle = srq == null ? rqHead == rqTail : c == null || c.current == null;
            status.requestIdle = sqHead == sqTail;
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public void recvQuery(final DatCount nbufsAllocated, final DatCount bufsAllocSpan)
    {
        checkLive();
        Locks.lock(lock);
        try
        {
            final int held = heldBuffers();
            if (nbufsAllocated != null)
            {
                nbufsAllocated.value = held;
            }
            if (bufsAllocSpan != null)
            {
                // buffers are allocated to the next messages in order, so the span equals the count
                bufsAllocSpan.value = held;
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Receive buffers this EP holds: posted ones, or the SRQ buffer of the message in progress. Lock held. */
    private int heldBuffers()
    {
        if (srq == null)
        {
            return (int) (rqTail - rqHead);
        }
        final Connection c = conn;
        return c != null && c.current != null ? 1 : 0;
    }

    @Override
    public void setWatermark(final int soft, final int hard)
    {
        checkLive();
        if (soft < Dat.WATERMARK_INFINITE || hard < Dat.WATERMARK_INFINITE)
        {
            throw Errors.invalidParameter(2, "watermarks must be non-negative or DAT_WATERMARK_INFINITE");
        }
        Locks.lock(lock);
        try
        {
            softHw = soft;
            hardHw = hard;
        }
        finally
        {
            lock.unlock();
        }
        checkWatermarks();
    }

    /** Fires an armed watermark the held-buffer count exceeds (soft: once per setting). */
    private void checkWatermarks()
    {
        boolean fireSoft = false;
        Connection breakIt = null;
        Locks.lock(lock);
        try
        {
            final int held = heldBuffers();
            if (softHw != Dat.WATERMARK_INFINITE && held > softHw)
            {
                softHw = Dat.WATERMARK_INFINITE;
                fireSoft = true;
            }
            final Connection c = conn;
            if (hardHw != Dat.WATERMARK_INFINITE && held > hardHw && c != null && c.established && !c.closed)
            {
                breakIt = c;
            }
        }
        finally
        {
            lock.unlock();
        }
        if (fireSoft)
        {
            ia.reportAsync(EventNumber.JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK, this,
                AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, null);
        }
        if (breakIt != null)
        {
            fail(breakIt, TerminateInfo.of(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
                TerminateCodes.RDMAP_CATASTROPHIC_STREAM), null, null, true);
        }
    }

    static DatReturnSubtype stateSubtype(final EpState s)
    {
        return switch (s)
        {
            case UNCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED;
            case RESERVED -> DatReturnSubtype.INVALID_STATE_EP_RESERVED;
            case PASSIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING;
            case ACTIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING;
            case TENTATIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING;
            case CONNECTED -> DatReturnSubtype.INVALID_STATE_EP_CONNECTED;
            case DISCONNECT_PENDING -> DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            case DISCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED;
            case COMPLETION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING;
            default -> DatReturnSubtype.INVALID_STATE_EP_NOTREADY;
        };
    }

    // ================================================================ connection management

    @Override
    public void connect(final IaAddress remote, final long remoteConnQual, final long timeoutMicros,
        final byte[] privateData, final int qos, final int connectFlags)
    {
        checkLive();
        if (remote == null)
        {
            throw new io.jdat.DatException(io.jdat.DatReturnType.INVALID_ADDRESS,
                DatReturnSubtype.INVALID_ADDRESS_MALFORMED, "remote_ia_address is null");
        }
        checkSetupArguments(timeoutMicros, privateData, qos);
        if ((connectFlags & ~ConnectFlags.MULTIPATH_FLAG) != 0)
        {
            throw Errors.invalidParameter(8, "unknown connect flags 0x" + Integer.toHexString(connectFlags));
        }
        if (connectFlags == ConnectFlags.MULTIPATH_FLAG)
        {
            throw Errors.modelNotSupported("multipath connections are not supported");
        }
        ia.port().checkAddress(remote);
        startConnect(remote, remoteConnQual, timeoutMicros, privateData);
    }

    @Override
    public void dupConnect(final Endpoint dupEp, final long timeoutMicros, final byte[] privateData, final int qos)
    {
        checkLive();
        final EpImpl dup = cast(dupEp, EpImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_EP, false, "dup_ep_handle");
        checkSetupArguments(timeoutMicros, privateData, qos);
        final IaAddress address;
        final long qual;
        Locks.lock(dup.lock);
        try
        {
            if (dup.state != EpState.CONNECTED)
            {
                throw Errors.invalidState(stateSubtype(dup.state), "dup_ep_handle is not CONNECTED");
            }
            if (dup.connectedAddress == null)
            {
                throw Errors.invalidParameter(2, "dup_ep_handle was connected passively: there is no service "
                    + "point to connect to again");
            }
            address = dup.connectedAddress;
            qual = dup.connectedQual;
        }
        finally
        {
            dup.lock.unlock();
        }
        startConnect(address, qual, timeoutMicros, privateData);
    }

    private void checkSetupArguments(final long timeoutMicros, final byte[] privateData, final int qos)
    {
        Errors.checkTimeout(timeoutMicros, 4);
        if (timeoutMicros == 0)
        {
            throw Errors.invalidParameter(4, "the connect timeout must be positive");
        }
        final int max = ia.port().maxPrivateDataSize();
        if (privateData != null && privateData.length > max)
        {
            throw Errors.invalidParameter(5, privateData.length + " bytes of private data; this provider carries "
                + max);
        }
        if ((qos & ~ALL_QOS) != 0)
        {
            throw Errors.invalidParameter(7, "unknown QoS bits 0x" + Integer.toHexString(qos));
        }
        if (qos != Qos.BEST_EFFORT)
        {
            throw Errors.modelNotSupported("QoS other than DAT_QOS_BEST_EFFORT");
        }
    }

    private void startConnect(final IaAddress remote, final long qual, final long timeoutMicros,
        final byte[] privateData)
    {
        final Connection c = new Connection(this, true);
        Locks.lock(lock);
        try
        {
            checkLive();
            if (state != EpState.UNCONNECTED)
            {
                throw Errors.invalidState(stateSubtype(state), "connect needs an UNCONNECTED endpoint");
            }
            if (pz == null)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EP_PZ, "the endpoint has no PZ");
            }
            if (connectEvd == null)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EP_EVD_CONNECT,
                    "the endpoint has no connect EVD");
            }
            conn = c;
            state = EpState.ACTIVE_CONNECTION_PENDING;
            remoteAddress = remote;
            remotePortQual = qual;
            connectedAddress = null;
        }
        finally
        {
            lock.unlock();
        }
        final PendingConnect pending;
        try
        {
            pending = ia.port().connect(new ConnectRequest(remote, qual,
                privateData == null ? new byte[0] : privateData.clone(), attr.maxRdmaReadIn, attr.maxRdmaReadOut), c);
        }
        catch (final RuntimeException e)
        {
            Locks.lock(lock);
            try
            {
                if (conn == c && state == EpState.ACTIVE_CONNECTION_PENDING)
                {
                    conn = null;
                    state = EpState.UNCONNECTED;
                }
            }
            finally
            {
                lock.unlock();
            }
            // dat_ia_close destroyed the endpoint before its transport refused: the handle is gone
            checkLive();
            throw e;
        }
        Locks.lock(lock);
        try
        {
            c.pending = pending;
            if (conn == c)
            {
                localPortQual = pending.localPortQual();
                if (!c.closed && !c.established && timeoutMicros != Dat.TIMEOUT_INFINITE)
                {
                    c.timer = ia.schedule(c::timedOut, timeoutMicros);
                }
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The active side's connection is up. */
    void activeEstablished(final Connection c, final Channel ch, final byte[] privateData, final int peerIrd,
        final int peerOrd)
    {
        ScheduledFuture<?> timer = null;
        boolean stale = false;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed || state != EpState.ACTIVE_CONNECTION_PENDING)
            {
                stale = true;
            }
            else
            {
                c.channel = ch;
                c.established = true;
                c.negotiated(attr.maxRdmaReadIn, Math.min(attr.maxRdmaReadOut, peerIrd));
                state = EpState.CONNECTED;
                connectedAddress = remoteAddress;
                connectedQual = remotePortQual;
                timer = c.timer;
                postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, privateData.clone());
            }
        }
        finally
        {
            lock.unlock();
        }
        if (timer != null)
        {
            timer.cancel(false);
        }
        if (stale)
        {
            ch.abort();
            return;
        }
        checkWatermarks();
    }

    /** Accepts {@code request} on this endpoint (dat_cr_accept validated the call). */
    void accept(final CrImpl crObj, final IncomingRequest request, final byte[] privateData)
    {
        final Connection c = new Connection(this, false);
        final int ird;
        final int ord;
        final boolean mismatch;
        Locks.lock(lock);
        try
        {
            final int peerIrd = request.peerIrd();
            final int peerOrd = request.peerOrd();
            if (readLimitsExplicit)
            {
                // the consumer chose the limits: they must cover what the peer asked for
                mismatch = attr.maxRdmaReadIn < peerOrd || attr.maxRdmaReadOut > peerIrd;
                ird = attr.maxRdmaReadIn;
                ord = attr.maxRdmaReadOut;
            }
            else
            {
                // provider defaults may be adjusted during setup
                attr.maxRdmaReadIn = Math.min(Math.max(attr.maxRdmaReadIn, peerOrd), ia.config.maxRdmaReadPerEp);
                attr.maxRdmaReadOut = Math.min(attr.maxRdmaReadOut, peerIrd);
                ird = attr.maxRdmaReadIn;
                ord = attr.maxRdmaReadOut;
                mismatch = ird < peerOrd;
            }
            conn = c;
            cr = null;
            rsp = null;
            state = EpState.COMPLETION_PENDING;
            remoteAddress = request.remoteAddress();
            remotePortQual = request.remotePortQual();
            localPortQual = request.localConnQual();
            connectedAddress = null;
            if (!mismatch)
            {
                c.negotiated(ird, Math.min(ord, peerIrd));
            }
        }
        finally
        {
            lock.unlock();
        }
        if (mismatch)
        {
            request.reject(false);
            setupFailed(c, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            return;
        }
        request.accept(privateData == null ? new byte[0] : privateData.clone(), ird, ord, c);
    }

    /** The passive side's connection is up. */
    void passiveEstablished(final Connection c, final Channel ch)
    {
        boolean stale = false;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed || state != EpState.COMPLETION_PENDING)
            {
                stale = true;
            }
            else
            {
                c.channel = ch;
                c.established = true;
                state = EpState.CONNECTED;
                postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
            }
        }
        finally
        {
            lock.unlock();
        }
        if (stale)
        {
            ch.abort();
            return;
        }
        checkWatermarks();
    }

    /** Connection setup failed: the EP is DISCONNECTED, its receives flushed, one event says why. */
    void setupFailed(final Connection c, final EventNumber event)
    {
        ScheduledFuture<?> timer = null;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return;
            }
            c.closed = true;
            timer = c.timer;
            state = EpState.DISCONNECTED;
            flushRecvs(c, null);
            flushRequests(null, null);
            postConnection(event, null);
        }
        finally
        {
            lock.unlock();
        }
        if (timer != null)
        {
            timer.cancel(false);
        }
    }

    @Override
    public void disconnect(final int flags)
    {
        checkLive();
        if (flags != CloseFlags.ABRUPT_FLAG && flags != CloseFlags.GRACEFUL_FLAG)
        {
            throw Errors.invalidParameter(2, "disconnect flags must be ABRUPT (0) or GRACEFUL (1)");
        }
        Connection abortIt = null;
        Channel closeGracefully = null;
        Locks.lock(lock);
        try
        {
            final Connection c = conn;
            switch (state)
            {
                case DISCONNECTED:
                    return;
                case ACTIVE_CONNECTION_PENDING:
                case COMPLETION_PENDING:
                    // aborting setup ends in DISCONNECTED, with one terminal event
                    abortIt = c;
                    break;
                case CONNECTED:
                    if (flags == CloseFlags.ABRUPT_FLAG)
                    {
                        abortIt = c;
                    }
                    else
                    {
                        state = EpState.DISCONNECT_PENDING;
                        if (sqHead == sqTail && !c.disconnecting)
                        {
                            c.disconnecting = true;
                            closeGracefully = c.channel;
                        }
                    }
                    break;
                case DISCONNECT_PENDING:
                    // an abrupt disconnect ends it at once; a graceful one changes nothing
                    if (flags == CloseFlags.ABRUPT_FLAG)
                    {
                        abortIt = c;
                    }
                    break;
                default:
                    throw Errors.invalidState(stateSubtype(state), "there is no connection to disconnect");
            }
        }
        finally
        {
            lock.unlock();
        }
        if (abortIt != null)
        {
            // the transport lets go of the queued messages before they are flushed, so a request
            // reported flushed never reaches the peer (Channel#abort); what is delivered meanwhile
            // completes as usual, and whoever ends the connection first reports the one event
            final Channel seen = abortIt.channel;
            abortTransport(abortIt);
            final Channel late;
            Locks.lock(lock);
            try
            {
                if (conn == abortIt && state != EpState.DISCONNECTED)
                {
                    endLocked(abortIt, EventNumber.CONNECTION_EVENT_DISCONNECTED, null, null);
                }
                late = abortIt.channel;
            }
            finally
            {
                lock.unlock();
            }
            if (late != null && late != seen)
            {
                // the connection came up while it was being aborted
                late.abort();
            }
        }
        if (closeGracefully != null)
        {
            closeGracefully.disconnect();
        }
    }

    private static void abortTransport(final Connection c)
    {
        final ScheduledFuture<?> timer = c.timer;
        if (timer != null)
        {
            timer.cancel(false);
        }
        final PendingConnect p = c.pending;
        if (p != null && !c.established)
        {
            p.cancel();
        }
        final Channel ch = c.channel;
        if (ch != null)
        {
            ch.abort();
        }
    }

    /**
     * Ends a connection: DISCONNECTED, every request and receive flushed (the culprit, if any,
     * with its own status), and one event. Lock held.
     */
    private void endLocked(final Connection c, final EventNumber event, final WorkRequest culprit,
        final DtoStatus culpritStatus)
    {
        c.closed = true;
        state = EpState.DISCONNECTED;
        flushRequests(culprit, culpritStatus);
        flushRecvs(c, null);
        postConnection(event, null);
    }

    /**
     * A violation or an error ends the connection: it breaks here (BROKEN), and the peer is told
     * with a Terminate if {@code send} is given.
     */
    void fail(final Connection c, final TerminateInfo send, final WorkRequest culprit, final DtoStatus culpritStatus,
        final boolean abort)
    {
        final Channel ch;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return;
            }
            ch = c.channel;
            endLocked(c, EventNumber.CONNECTION_EVENT_BROKEN, culprit, culpritStatus);
        }
        finally
        {
            lock.unlock();
        }
        if (ch == null)
        {
            return;
        }
        if (send != null)
        {
            ch.terminate(send);
        }
        else if (abort)
        {
            ch.abort();
        }
    }

    /** The channel ended. */
    void closed(final Connection c, final CloseReason reason)
    {
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return;
            }
            if (!c.established)
            {
                c.closed = true;
                state = EpState.DISCONNECTED;
                flushRecvs(c, null);
                flushRequests(null, null);
                postConnection(c.active ? EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED
                    : EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
                return;
            }
            endLocked(c, reason == CloseReason.BROKEN ? EventNumber.CONNECTION_EVENT_BROKEN
                : EventNumber.CONNECTION_EVENT_DISCONNECTED, null, null);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The peer sent a Terminate: the operation it names fails with the matching error. */
    void terminated(final Connection c, final TerminateInfo info)
    {
        WorkRequest culprit = null;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return;
            }
            culprit = culprit(c, info);
        }
        finally
        {
            lock.unlock();
        }
        fail(c, null, culprit, dtoStatusFor(info), false);
    }

    /** The request a Terminate is about: by MSN for untagged, the oldest unfinished Write for tagged. Lock held. */
    private WorkRequest culprit(final Connection c, final TerminateInfo info)
    {
        for (long i = sqHead; i < sqStart; i++)
        {
            final WorkRequest wr = sq[(int) (i % sq.length)];
            if (wr.state == WorkRequest.DONE)
            {
                continue;
            }
            if (!info.hdrKnown())
            {
                return wr;
            }
            if (info.tagged() && info.opcode() == RdmapOpcode.RDMA_WRITE && wr.op == WorkRequest.WRITE)
            {
                return wr;
            }
            if (!info.tagged() && info.queue() == 0 && wr.op == WorkRequest.SEND && wr.msn == info.msn())
            {
                return wr;
            }
            if ((!info.tagged() && info.queue() == 1 || info.opcode() == RdmapOpcode.RDMA_READ_REQUEST)
                && wr.op == WorkRequest.READ)
            {
                for (final ReadOp op : c.outstandingReads)
                {
                    if (op.wr == wr && op.msn == info.msn())
                    {
                        return wr;
                    }
                }
            }
        }
        return null;
    }

    /** What a Terminate means for the initiator's DTO. */
    static DtoStatus dtoStatusFor(final TerminateInfo t)
    {
        return switch (t.layer())
        {
            case TerminateCodes.LAYER_RDMAP -> t.etype() == TerminateCodes.RDMAP_REMOTE_PROTECTION
                ? DtoStatus.ERR_REMOTE_ACCESS : DtoStatus.ERR_REMOTE_RESPONDER;
            case TerminateCodes.LAYER_DDP -> switch (t.etype())
            {
                case TerminateCodes.DDP_TAGGED_BUFFER -> DtoStatus.ERR_REMOTE_ACCESS;
                case TerminateCodes.DDP_UNTAGGED_BUFFER -> t.code() == TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER
                    ? DtoStatus.ERR_RECEIVER_NOT_READY : DtoStatus.ERR_REMOTE_RESPONDER;
                default -> DtoStatus.ERR_REMOTE_RESPONDER;
            };
            default -> DtoStatus.ERR_TRANSPORT;
        };
    }

    @Override
    public void reset()
    {
        checkLive();
        Locks.lock(lock);
        try
        {
            switch (state)
            {
                case UNCONNECTED:
                    return;
                case DISCONNECTED:
                    conn = null;
                    state = EpState.UNCONNECTED;
                    // the old ring may still be referenced by a closing channel: never reuse it
                    sq = newSendQueue(attr);
                    sqHead = sqStart = sqTail = 0;
                    localPortQual = 0;
                    remoteAddress = null;
                    remotePortQual = 0;
                    return;
                default:
                    throw Errors.invalidState(stateSubtype(state), "reset needs a DISCONNECTED endpoint");
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public void free()
    {
        final Runnable transport;
        synchronized (ia.lock)
        {
            checkLive();
            final EpState s = state;
            if (s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING
                || s == EpState.TENTATIVE_CONNECTION_PENDING)
            {
                throw Errors.invalidState(stateSubtype(s), "free the RSP or reject the connection request first");
            }
            transport = destroy();
            ia.forget(this);
        }
        transport.run();
    }

    /**
     * Destroys this endpoint: the connection is cut, references are released, and no event
     * follows (not-yet-dequeued completions may or may not appear, as the spec allows). Returns
     * what must then be done to the transport, with no lock held. IA lock held.
     */
    Runnable destroy()
    {
        final Connection c;
        Locks.lock(lock);
        try
        {
            c = conn;
            conn = null;
            if (c != null)
            {
                c.closed = true;
                if (srq != null && c.current != null)
                {
                    // a held SRQ buffer will never be completed or reaped
                    srq.completed(c.current);
                    srq.reaped();
                    c.current = null;
                }
            }
            releaseBinds();
            markDestroyed();
            state = EpState.DISCONNECTED;
        }
        finally
        {
            lock.unlock();
        }
        detachAll();
        if (pz != null)
        {
            pz.removeUser();
        }
        if (srq != null)
        {
            srq.endpoints--;
        }
        final RspImpl r = rsp;
        if (r != null)
        {
            r.endpointGone();
        }
        return c == null ? () -> { } : () -> abortTransport(c);
    }

    /** Binds that never executed give their LMR back. Lock held. */
    private void releaseBinds()
    {
        for (long i = sqStart; i < sqTail; i++)
        {
            final WorkRequest wr = sq[(int) (i % sq.length)];
            if (wr.op == WorkRequest.BIND && wr.bindLmr != null)
            {
                wr.bindLmr.boundRmrs.decrementAndGet();
                wr.bindLmr = null;
            }
        }
    }

    /** Passive side: the endpoint is handed to a connection request (RSP or provider PSP). */
    void reserveFor(final RspImpl r)
    {
        Locks.lock(lock);
        try
        {
            if (state != EpState.UNCONNECTED)
            {
                throw Errors.invalidState(stateSubtype(state), "an RSP needs an UNCONNECTED endpoint");
            }
            rsp = r;
            state = EpState.RESERVED;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The RSP received its request: the endpoint waits for accept or reject. */
    boolean requestArrived(final CrImpl crObj)
    {
        Locks.lock(lock);
        try
        {
            if (state != EpState.RESERVED)
            {
                return false;
            }
            cr = crObj;
            state = EpState.PASSIVE_CONNECTION_PENDING;
            return true;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Back to the consumer: its RSP's request was rejected or handed off. */
    void released()
    {
        Locks.lock(lock);
        try
        {
            if (state == EpState.PASSIVE_CONNECTION_PENDING)
            {
                state = EpState.UNCONNECTED;
            }
            rsp = null;
            cr = null;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Back to the consumer: its RSP was freed before a request came. */
    void unreserve()
    {
        Locks.lock(lock);
        try
        {
            if (state == EpState.RESERVED)
            {
                state = EpState.UNCONNECTED;
                rsp = null;
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /** A connection event on the connect EVD (if the consumer gave one). Lock held. */
    private void postConnection(final EventNumber number, final byte[] privateData)
    {
        final EvdImpl e = connectEvd;
        if (e != null)
        {
            e.postConnection(number, this, privateData);
        }
    }

    // ================================================================ posting

    @Override
    public void postSend(final int numSegments, final LmrTriplet[] iov, final long userCookie, final int flags)
    {
        postRequest(WorkRequest.SEND, numSegments, iov, userCookie, null, flags);
    }

    @Override
    public void postRdmaWrite(final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final RmrTriplet remote, final int flags)
    {
        postRequest(WorkRequest.WRITE, numSegments, iov, userCookie, remote, flags);
    }

    @Override
    public void postRdmaRead(final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final RmrTriplet remote, final int flags)
    {
        postRequest(WorkRequest.READ, numSegments, iov, userCookie, remote, flags);
    }

    private void postRequest(final int op, final int n, final LmrTriplet[] iov, final long cookie,
        final RmrTriplet remote, final int flags)
    {
        checkLive();
        final int flagsArg = op == WorkRequest.SEND ? 5 : 6;
        if ((flags & ~REQUEST_FLAGS) != 0)
        {
            throw Errors.invalidParameter(flagsArg, "unknown completion flags 0x" + Integer.toHexString(flags));
        }
        if ((flags & CompletionFlags.UNSIGNALLED_FLAG) != 0
            && attr.requestCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(flagsArg, "DAT_COMPLETION_UNSIGNALLED_FLAG needs the EP's "
                + "request_completion_flags to be UNSIGNALLED");
        }
        if (op != WorkRequest.SEND && remote == null)
        {
            throw Errors.invalidParameter(5, "remote_buffer is null");
        }
        Channel flush = null;
        Locks.lock(lock);
        try
        {
            final EpState s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED)
            {
                throw Errors.invalidState(stateSubtype(s), "requests can be posted only while CONNECTED or "
                    + "DISCONNECTED");
            }
            final int maxIov = switch (op)
            {
                case WorkRequest.SEND -> attr.maxRequestIov;
                case WorkRequest.WRITE -> attr.maxRdmaWriteIov;
                default -> attr.maxRdmaReadIov;
            };
            if (s == EpState.DISCONNECTED)
            {
                // accepted and flushed at once
                scratch.fill(ia.memory, n, iov, maxIov, pz, op == WorkRequest.READ, 3);
                checkLengths(op, scratch.total, remote);
                scratch.clear();
                completeRequestEvent(cookie, flags, DtoStatus.ERR_FLUSHED, 0);
                return;
            }
            if (sq.length == 0 || sqTail - sqHead == sq.length)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEP,
                    "max_request_dtos (" + sq.length + ") requests are outstanding");
            }
            final Connection c = conn;
            if (op == WorkRequest.READ && c.ord == 0)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_CREDITS,
                    "the connection allows no outstanding RDMA Reads (max_rdma_read_out 0)");
            }
            final WorkRequest wr = sq[(int) (sqTail % sq.length)];
            wr.reset();
            wr.local.fill(ia.memory, n, iov, maxIov, pz, op == WorkRequest.READ, 3);
            try
            {
                checkLengths(op, wr.local.total, remote);
            }
            catch (final RuntimeException e)
            {
                wr.local.clear();
                throw e;
            }
            wr.op = op;
            wr.flags = flags;
            wr.cookie = cookie;
            wr.state = WorkRequest.QUEUED;
            wr.solicited = (flags & CompletionFlags.SOLICITED_WAIT_FLAG) != 0;
            if (remote != null)
            {
                wr.remoteStag = remote.rmrContext;
                wr.remoteTo = remote.targetAddress;
                wr.remoteLength = op == WorkRequest.READ ? remote.segmentLength : wr.local.total;
            }
            sqTail++;
            startReady(c);
            flush = c.channel;
        }
        finally
        {
            lock.unlock();
        }
        flush.flush();
    }

    private void checkLengths(final int op, final long local, final RmrTriplet remote)
    {
        switch (op)
        {
            case WorkRequest.SEND ->
            {
                if (local > attr.maxMessageSize)
                {
                    throw Errors.invalidParameter(3, local + " bytes exceed max_message_size " + attr.maxMessageSize);
                }
            }
            case WorkRequest.WRITE ->
            {
                if (local > remote.segmentLength)
                {
                    throw Errors.lengthError(local + " bytes do not fit the remote buffer of " + remote.segmentLength);
                }
                if (local > attr.maxRdmaSize)
                {
                    throw Errors.invalidParameter(3, local + " bytes exceed max_rdma_size " + attr.maxRdmaSize);
                }
            }
            default ->
            {
                if (remote.segmentLength < 0)
                {
                    throw Errors.invalidParameter(5, "negative remote length");
                }
                if (remote.segmentLength > local)
                {
                    throw Errors.lengthError("the remote buffer of " + remote.segmentLength
                        + " bytes does not fit local_iov's " + local);
                }
                if (remote.segmentLength > attr.maxRdmaSize)
                {
                    throw Errors.invalidParameter(5, remote.segmentLength + " bytes exceed max_rdma_size "
                        + attr.maxRdmaSize);
                }
            }
        }
    }

    /** Posts an RMR bind through this endpoint (dat_rmr_bind validated the rest). */
    void postBind(final RmrImpl rmr, final MemoryRegion region, final LmrImpl lmr, final long cookie,
        final int flags)
    {
        checkLive();
        Locks.lock(lock);
        try
        {
            final EpState s = state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED)
            {
                throw Errors.invalidState(stateSubtype(s), "binds can be posted only while CONNECTED or DISCONNECTED");
            }
            if (s == EpState.DISCONNECTED)
            {
                if (lmr != null)
                {
                    lmr.boundRmrs.decrementAndGet();
                }
                postBindEvent(rmr, cookie, flags, DtoStatus.ERR_FLUSHED);
                return;
            }
            if (sq.length == 0 || sqTail - sqHead == sq.length)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEP,
                    "max_request_dtos (" + sq.length + ") requests are outstanding");
            }
            final WorkRequest wr = sq[(int) (sqTail % sq.length)];
            wr.reset();
            wr.op = WorkRequest.BIND;
            wr.flags = flags;
            wr.cookie = cookie;
            wr.state = WorkRequest.QUEUED;
            wr.rmr = rmr;
            wr.bindRegion = region;
            wr.bindLmr = lmr;
            sqTail++;
            startReady(conn);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Hands every startable request to the channel, in order. Lock held. */
    private void startReady(final Connection c)
    {
        final Channel ch = c.channel;
        while (sqStart < sqTail)
        {
            final WorkRequest wr = sq[(int) (sqStart % sq.length)];
            if ((wr.flags & CompletionFlags.BARRIER_FENCE_FLAG) != 0 && !c.outstandingReads.isEmpty()
                && wr.state == WorkRequest.QUEUED)
            {
                return;
            }
            switch (wr.op)
            {
                case WorkRequest.SEND ->
                {
                    wr.msn = c.sendMsn++;
                    wr.state = WorkRequest.STARTED;
                    ch.post(wr);
                }
                case WorkRequest.WRITE ->
                {
                    wr.state = WorkRequest.STARTED;
                    ch.post(wr);
                }
                case WorkRequest.READ ->
                {
                    if (!issueReads(c, wr))
                    {
                        return;
                    }
                }
                default ->
                {
                    executeBind(wr);
                }
            }
            sqStart++;
        }
        retire();
    }

    /**
     * Issues the Read Requests of a read: one per local segment that receives data (one of size
     * 0 for an empty read), as far as ORD credits allow. True once all are issued. Lock held.
     */
    private boolean issueReads(final Connection c, final WorkRequest wr)
    {
        final Segments local = wr.local;
        final int needed = readsNeeded(wr);
        long remoteOffset = 0;
        for (int i = 0; i < wr.readsIssued; i++)
        {
            remoteOffset += local.lengths[i];
        }
        wr.state = WorkRequest.STARTED;
        while (wr.readsIssued < needed)
        {
            final ReadOp op = c.freeReads.poll();
            if (op == null)
            {
                return false;
            }
            final int i = wr.readsIssued;
            final long size = Math.min(wr.remoteLength - remoteOffset, local.count == 0 ? 0 : local.lengths[i]);
            op.wr = wr;
            op.msn = c.readMsn++;
            op.sink = local.count == 0 || size == 0 ? null : local.regions[i];
            op.sinkOffset = local.count == 0 ? 0 : local.offsets[i];
            op.size = size;
            op.srcStag = wr.remoteStag;
            op.srcTo = wr.remoteTo + remoteOffset;
            op.received = 0;
            c.outstandingReads.add(op);
            c.channel.post(op);
            remoteOffset += size;
            wr.readsIssued++;
        }
        return true;
    }

    private static int readsNeeded(final WorkRequest wr)
    {
        long remaining = wr.remoteLength;
        int n = 0;
        for (int i = 0; i < wr.local.count && remaining > 0; i++)
        {
            remaining -= wr.local.lengths[i];
            n++;
        }
        return Math.max(n, 1);
    }

    /** An RMR bind takes effect when it reaches the head of the start queue. Lock held. */
    private void executeBind(final WorkRequest wr)
    {
        wr.rmr.apply(wr.bindRegion, wr.bindLmr);
        wr.bindLmr = null;
        wr.state = WorkRequest.DONE;
        wr.status = DtoStatus.SUCCESS;
    }

    /** Completes finished requests to the consumer, oldest first. Lock held. */
    private void retire()
    {
        while (sqHead < sqStart)
        {
            final WorkRequest wr = sq[(int) (sqHead % sq.length)];
            if (wr.state != WorkRequest.DONE)
            {
                return;
            }
            if (wr.op == WorkRequest.BIND)
            {
                postBindEvent(wr.rmr, wr.cookie, wr.flags, wr.status);
            }
            else
            {
                completeRequestEvent(wr.cookie, wr.flags, wr.status, wr.transferred);
            }
            if (wr.status == DtoStatus.SUCCESS)
            {
                wr.reset();
            }
            // else the connection ended and the channel may still read the request until it is
            // gone: leave it whole (the ring is not reused, see reset())
            sqHead++;
        }
    }

    private void completeRequestEvent(final long cookie, final int flags, final DtoStatus status, final long length)
    {
        if (status == DtoStatus.SUCCESS && (flags & CompletionFlags.SUPPRESS_FLAG) != 0)
        {
            return;
        }
        final EvdImpl e = requestEvd;
        if (e != null)
        {
            e.postDto(this, cookie, status, length, requestNotifies(flags), null);
        }
    }

    private void postBindEvent(final RmrImpl rmr, final long cookie, final int flags, final DtoStatus status)
    {
        if (status == DtoStatus.SUCCESS && (flags & CompletionFlags.SUPPRESS_FLAG) != 0)
        {
            return;
        }
        final EvdImpl e = requestEvd;
        if (e != null)
        {
            e.postRmrBind(rmr, cookie, status, requestNotifies(flags));
        }
    }

    private boolean requestNotifies(final int flags)
    {
        return attr.requestCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG
            || (flags & CompletionFlags.UNSIGNALLED_FLAG) == 0;
    }

    /**
     * Every request not yet complete completes in error, in order: the culprit with its status,
     * the rest flushed; so does every request behind the first of them whose success was not
     * reported yet (completions come in posting order, and once one is an error every later one
     * is too: dat_ep_disconnect, digest §3.4). The ring is not reused afterwards (see
     * {@link #reset()}). Lock held.
     */
    private void flushRequests(final WorkRequest culprit, final DtoStatus culpritStatus)
    {
        boolean failing = false;
        for (long i = sqHead; i < sqTail; i++)
        {
            final WorkRequest wr = sq[(int) (i % sq.length)];
            if (wr.state == WorkRequest.DONE)
            {
                if (failing && wr.status == DtoStatus.SUCCESS && wr.op != WorkRequest.BIND)
                {
                    // sent, but reported behind a request that failed
                    wr.status = DtoStatus.ERR_FLUSHED;
                    wr.transferred = 0;
                }
                else if (wr.status != DtoStatus.SUCCESS)
                {
                    failing = true;
                }
            }
            else
            {
                failing = true;
                wr.state = WorkRequest.DONE;
                wr.status = wr == culprit ? culpritStatus : DtoStatus.ERR_FLUSHED;
                wr.transferred = 0;
                if (wr.op == WorkRequest.BIND && wr.bindLmr != null)
                {
                    wr.bindLmr.boundRmrs.decrementAndGet();
                    wr.bindLmr = null;
                }
            }
        }
        sqStart = sqTail;
        retire();
    }

    @Override
    public void postRecv(final int numSegments, final LmrTriplet[] iov, final long userCookie, final int flags)
    {
        checkLive();
        if (srq != null)
        {
            throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE,
                "this endpoint takes its receive buffers from an SRQ; post them with dat_srq_post_recv");
        }
        if ((flags & ~CompletionFlags.UNSIGNALLED_FLAG) != 0)
        {
            throw Errors.invalidParameter(5, "a receive takes only DAT_COMPLETION_UNSIGNALLED_FLAG");
        }
        if (flags != 0 && attr.recvCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(5, "DAT_COMPLETION_UNSIGNALLED_FLAG needs the EP's recv_completion_flags "
                + "to be UNSIGNALLED");
        }
        Locks.lock(lock);
        try
        {
            if (state == EpState.DISCONNECTED)
            {
                scratch.fill(ia.memory, numSegments, iov, attr.maxRecvIov, pz, true, 3);
                scratch.clear();
                recvEverPosted = true;
                completeRecvEvent(userCookie, flags, DtoStatus.ERR_FLUSHED, 0, false, null);
                return;
            }
            if (rq.length == 0 || rqTail - rqHead == rq.length)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEP,
                    "max_recv_dtos (" + rq.length + ") receives are posted");
            }
            final RecvBuffer b = rq[(int) (rqTail % rq.length)];
            b.local.fill(ia.memory, numSegments, iov, attr.maxRecvIov, pz, true, 3);
            b.cookie = userCookie;
            b.flags = flags;
            b.srq = null;
            rqTail++;
            recvEverPosted = true;
        }
        finally
        {
            lock.unlock();
        }
        if (softHw != Dat.WATERMARK_INFINITE || hardHw != Dat.WATERMARK_INFINITE)
        {
            checkWatermarks();
        }
    }

    private void completeRecvEvent(final long cookie, final int flags, final DtoStatus status, final long length,
        final boolean solicited, final SrqImpl fromSrq)
    {
        final EvdImpl e = recvEvd;
        final boolean notify = switch (attr.recvCompletionFlags)
        {
            case CompletionFlags.SOLICITED_WAIT_FLAG -> solicited;
            case CompletionFlags.UNSIGNALLED_FLAG -> fromSrq != null || (flags & CompletionFlags.UNSIGNALLED_FLAG) == 0;
            default -> true;
        };
        if (e == null || !e.postDto(this, cookie, status, length, notify, fromSrq))
        {
            if (fromSrq != null)
            {
                // nobody will dequeue this completion
                fromSrq.reaped();
            }
        }
    }

    /** Every receive this EP holds completes flushed (the one in progress with {@code status} if given). Lock held. */
    private void flushRecvs(final Connection c, final DtoStatus currentStatus)
    {
        if (srq != null)
        {
            if (c != null && c.current != null)
            {
                final RecvBuffer b = c.current;
                c.current = null;
                final long cookie = b.cookie;
                srq.completed(b);
                completeRecvEvent(cookie, 0, currentStatus != null ? currentStatus : DtoStatus.ERR_FLUSHED, 0,
                    false, srq);
            }
            return;
        }
        boolean first = true;
        for (long i = rqHead; i < rqTail; i++)
        {
            final RecvBuffer b = rq[(int) (i % rq.length)];
            final DtoStatus st = first && c != null && c.current == b && currentStatus != null ? currentStatus
                : DtoStatus.ERR_FLUSHED;
            completeRecvEvent(b.cookie, b.flags, st, 0, false, null);
            b.local.clear();
            first = false;
        }
        rqHead = rqTail;
        if (c != null)
        {
            c.current = null;
        }
    }

    // ================================================================ inbound traffic

    /** An untagged segment of a Send: find or continue its receive buffer and place the bytes. */
    boolean inboundSend(final Connection c, final int msn, final int mo, final boolean last, final boolean solicited,
        final MemorySegment src, final long off, final int len)
    {
        TerminateInfo t = null;
        DtoStatus recvStatus = null;
        boolean fireSoft = false;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return false;
            }
            RecvBuffer b = c.current;
            if (b == null)
            {
                if (msn != c.expectedSendMsn)
                {
                    t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, 0, msn, mo, solicited);
                }
                else if (mo != 0)
                {
                    t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MO, 0, msn, mo, solicited);
                }
                else
                {
                    b = takeBuffer(c);
                    if (b == null)
                    {
                        t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, 0, msn, mo, solicited);
                    }
                    else
                    {
                        c.current = b;
                        c.received = 0;
                        if (srq != null)
                        {
                            // an SRQ endpoint now holds one buffer: check its watermarks
                            if (softHw != Dat.WATERMARK_INFINITE && 1 > softHw)
                            {
                                softHw = Dat.WATERMARK_INFINITE;
                                fireSoft = true;
                            }
                            if (hardHw != Dat.WATERMARK_INFINITE && 1 > hardHw)
                            {
                                t = TerminateInfo.of(TerminateCodes.LAYER_RDMAP,
                                    TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_CATASTROPHIC_STREAM);
                            }
                        }
                    }
                }
            }
            else if (msn != c.expectedSendMsn)
            {
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, 0, msn, mo, solicited);
            }
            else if (Integer.toUnsignedLong(mo) != c.received)
            {
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MO, 0, msn, mo, solicited);
            }
            if (t == null)
            {
                if (c.received + len > b.local.total)
                {
                    recvStatus = DtoStatus.ERR_LOCAL_LENGTH;
                    t = untagged(TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG, 0, msn, mo, solicited);
                }
                else if (!placeable(b.local) || !copy(b.local, c.received, src, off, len))
                {
                    recvStatus = DtoStatus.ERR_LOCAL_PROTECTION;
                    t = TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_LOCAL_CATASTROPHIC, 0);
                }
                else
                {
                    c.received += len;
                    if (last)
                    {
                        finishReceive(c, b, solicited);
                    }
                }
            }
            if (t != null && recvStatus != null)
            {
                // the failing receive completes with its own status before the flushes
                flushRecvs(c, recvStatus);
            }
        }
        finally
        {
            lock.unlock();
        }
        if (fireSoft)
        {
            ia.reportAsync(EventNumber.JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK, this,
                AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, null);
        }
        if (t != null)
        {
            fail(c, t, null, null, false);
            return false;
        }
        return true;
    }

    private static TerminateInfo untagged(final int code, final int queue, final int msn, final int mo,
        final boolean solicited)
    {
        return TerminateInfo.untagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER, code,
            queue == 1 ? RdmapOpcode.RDMA_READ_REQUEST : solicited ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND,
            queue, msn, mo);
    }

    /** The next receive buffer for a new message. Lock held. */
    private RecvBuffer takeBuffer(final Connection c)
    {
        if (srq != null)
        {
            return srq.take();
        }
        return rqHead == rqTail ? null : rq[(int) (rqHead % rq.length)];
    }

    /** Whether every region of a receive is still registered in this EP's PZ. */
    private boolean placeable(final Segments s)
    {
        for (int i = 0; i < s.count; i++)
        {
            final MemoryRegion r = s.regions[i];
            if (!r.valid || r.pz != (srq != null ? srq.pz : pz))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean copy(final Segments s, final long at, final MemorySegment src, final long off,
        final int len)
    {
        try
        {
            return s.scatter(at, src, off, len);
        }
        catch (final RuntimeException e)
        {
            // memory released under us (closed arena) or not writable
            return false;
        }
    }

    private void finishReceive(final Connection c, final RecvBuffer b, final boolean solicited)
    {
        c.current = null;
        c.expectedSendMsn++;
        final long length = c.received;
        if (srq != null)
        {
            // the buffer goes back before the completion is visible: a consumer that reaps it
            // and reposts at once must find a free buffer
            final long cookie = b.cookie;
            srq.completed(b);
            completeRecvEvent(cookie, 0, DtoStatus.SUCCESS, length, solicited, srq);
        }
        else
        {
            completeRecvEvent(b.cookie, b.flags, DtoStatus.SUCCESS, length, solicited, null);
            b.local.clear();
            rqHead++;
        }
    }

    /** A tagged segment of an RDMA Write into this side's memory. */
    boolean inboundWrite(final Connection c, final int stag, final long to, final MemorySegment src, final long off,
        final int len)
    {
        if (conn != c || c.closed)
        {
            return false;
        }
        if (len == 0)
        {
            return true;
        }
        final MemoryRegion r = ia.memory.lookup(stag);
        final int code = checkRemote(r, to, len, MemPriv.REMOTE_WRITE_FLAG);
        TerminateInfo t = null;
        if (code >= 0)
        {
            t = code == ACCESS
                ? TerminateInfo.tagged(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_PROTECTION,
                    TerminateCodes.RDMAP_ACCESS_RIGHTS, RdmapOpcode.RDMA_WRITE, stag, to)
                : TerminateInfo.tagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER, code,
                    RdmapOpcode.RDMA_WRITE, stag, to);
        }
        else
        {
            try
            {
                MemorySegment.copy(src, off, r.memory, to - r.base, len);
            }
            catch (final RuntimeException e)
            {
                t = TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_LOCAL_CATASTROPHIC, 0);
            }
        }
        if (t != null)
        {
            fail(c, t, null, null, false);
            return false;
        }
        return true;
    }

    /** {@link #checkRemote} result: the access right is missing (an RDMAP error, not a DDP one). */
    private static final int ACCESS = 100;

    /**
     * Checks a remote access to {@code [to, to + len)} through STag region {@code r}: -1 if
     * allowed, else a DDP tagged-buffer code (or {@link #ACCESS}).
     */
    private int checkRemote(final MemoryRegion r, final long to, final long len, final int right)
    {
        if (r == null)
        {
            return TerminateCodes.DDP_TAGGED_INVALID_STAG;
        }
        if (r.pz != pz)
        {
            return TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED;
        }
        if (!r.has(right))
        {
            return ACCESS;
        }
        if (Long.compareUnsigned(to + len, to) < 0)
        {
            return TerminateCodes.DDP_TAGGED_TO_WRAP;
        }
        if (r.offsetOf(to, len) < 0)
        {
            return TerminateCodes.DDP_TAGGED_BASE_BOUNDS;
        }
        return -1;
    }

    /** An RDMA Read Request: validate the source and queue the response. */
    boolean inboundReadRequest(final Connection c, final int msn, final int sinkStag, final long sinkTo,
        final int size, final int srcStag, final long srcTo)
    {
        TerminateInfo t = null;
        Channel flush = null;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return false;
            }
            final long length = Integer.toUnsignedLong(size);
            if (msn != c.expectedReadMsn)
            {
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, 1, msn, 0, false);
            }
            else if (c.inboundReads >= c.ird || c.freeResponses.isEmpty())
            {
                // more reads than this side agreed to serve (IRD)
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, 1, msn, 0, false);
            }
            else
            {
                final MemoryRegion r = length == 0 ? null : ia.memory.lookup(srcStag);
                final int code = length == 0 ? -1 : checkRemote(r, srcTo, length, MemPriv.REMOTE_READ_FLAG);
                if (code >= 0)
                {
                    t = TerminateInfo.untagged(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_PROTECTION,
                        rdmapCode(code), RdmapOpcode.RDMA_READ_REQUEST, 1, msn, 0);
                }
                else
                {
                    final ReadResponse resp = c.freeResponses.pop();
                    resp.sinkStag = sinkStag;
                    resp.sinkTo = sinkTo;
                    resp.memory = r == null ? null : r.memory;
                    resp.offset = r == null ? 0 : srcTo - r.base;
                    resp.length = size;
                    c.inboundReads++;
                    c.expectedReadMsn++;
                    c.channel.post(resp);
                    flush = c.channel;
                }
            }
        }
        finally
        {
            lock.unlock();
        }
        if (t != null)
        {
            fail(c, t, null, null, false);
            return false;
        }
        flush.flush();
        return true;
    }

    private static int rdmapCode(final int ddpCode)
    {
        return switch (ddpCode)
        {
            case TerminateCodes.DDP_TAGGED_INVALID_STAG -> TerminateCodes.RDMAP_INVALID_STAG;
            case TerminateCodes.DDP_TAGGED_BASE_BOUNDS -> TerminateCodes.RDMAP_BASE_BOUNDS;
            case TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED -> TerminateCodes.RDMAP_STAG_NOT_ASSOCIATED;
            case TerminateCodes.DDP_TAGGED_TO_WRAP -> TerminateCodes.RDMAP_TO_WRAP;
            default -> TerminateCodes.RDMAP_ACCESS_RIGHTS;
        };
    }

    /** A tagged segment of an RDMA Read Response: it must continue the oldest outstanding read exactly. */
    boolean inboundReadResponse(final Connection c, final int stag, final long to, final boolean last,
        final MemorySegment src, final long off, final int len)
    {
        TerminateInfo t = null;
        DtoStatus culpritStatus = null;
        WorkRequest culprit = null;
        Channel flush = null;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return false;
            }
            final ReadOp op = c.outstandingReads.peek();
            if (op == null || stag != op.stag())
            {
                t = tagged(TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED, stag, to);
            }
            else if (to != op.to() + op.received || len > op.size - op.received || !last && len == 0
                || last && op.received + len != op.size)
            {
                t = tagged(TerminateCodes.DDP_TAGGED_BASE_BOUNDS, stag, to);
            }
            else if (len > 0 && !op.sink.valid)
            {
                // the sink's LMR was freed after the post: its STag is no longer valid (RFC 5041
                // tagged buffer error, as siw reports it); locally a protection error (digest §4.4)
                culprit = op.wr;
                culpritStatus = DtoStatus.ERR_LOCAL_PROTECTION;
                t = tagged(TerminateCodes.DDP_TAGGED_INVALID_STAG, stag, to);
            }
            else if (len > 0 && !copyInto(op, src, off, len))
            {
                culprit = op.wr;
                culpritStatus = DtoStatus.ERR_LOCAL_PROTECTION;
                t = TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_LOCAL_CATASTROPHIC, 0);
            }
            else
            {
                op.received += len;
                if (last)
                {
                    c.outstandingReads.poll();
                    final WorkRequest wr = op.wr;
                    op.clear();
                    c.freeReads.push(op);
                    wr.readsDone++;
                    if (wr.readsDone == readsNeeded(wr))
                    {
                        wr.state = WorkRequest.DONE;
                        wr.status = DtoStatus.SUCCESS;
                        wr.transferred = wr.remoteLength;
                    }
                    startReady(c);
                    flush = c.channel;
                }
            }
        }
        finally
        {
            lock.unlock();
        }
        if (t != null)
        {
            fail(c, t, culprit, culpritStatus, false);
            return false;
        }
        if (flush != null)
        {
            flush.flush();
        }
        return true;
    }

    private static TerminateInfo tagged(final int code, final int stag, final long to)
    {
        return TerminateInfo.tagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER, code,
            RdmapOpcode.RDMA_READ_RESPONSE, stag, to);
    }

    private static boolean copyInto(final ReadOp op, final MemorySegment src, final long off, final int len)
    {
        try
        {
            MemorySegment.copy(src, off, op.sink.memory, op.sinkOffset + op.received, len);
            return true;
        }
        catch (final RuntimeException e)
        {
            return false;
        }
    }

    /** The channel is done with a message. */
    void sent(final Connection c, final OutboundMessage m)
    {
        Channel closeGracefully = null;
        Locks.lock(lock);
        try
        {
            if (conn != c || c.closed)
            {
                return;
            }
            if (m instanceof WorkRequest wr)
            {
                wr.state = WorkRequest.DONE;
                wr.status = DtoStatus.SUCCESS;
                wr.transferred = wr.local.total;
                retire();
            }
            else if (m instanceof ReadResponse r)
            {
                r.clear();
                c.freeResponses.push(r);
                c.inboundReads--;
            }
            if (state == EpState.DISCONNECT_PENDING && sqHead == sqTail && !c.disconnecting)
            {
                c.disconnecting = true;
                closeGracefully = c.channel;
            }
        }
        finally
        {
            lock.unlock();
        }
        if (closeGracefully != null)
        {
            closeGracefully.disconnect();
        }
    }

    @Override
    public String toString()
    {
        return "EP[" + state + ", " + ia + "]";
    }
}

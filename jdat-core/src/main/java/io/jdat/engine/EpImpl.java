package io.jdat.engine;

import io.jdat.AsyncErrorReason;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatReturnSubtype;
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
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.ServiceType;
import io.jdat.SharedReceiveQueue;
import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.spi.DatArg;

/**
 * An endpoint: its creation, attributes, EVD streams, query and modify, watermarks and
 * destruction. Its parts live beside it: the request (send) queue in {@link RequestQueue}, the
 * receive queue in {@link RecvQueue}, the 13-state machine of uDAPL 1.2 in
 * {@link EpStateMachine}, and the validation and placement of everything a connection delivers
 * in {@link Connection}.
 *
 * <p>Locking: {@link #lock} guards the state, both queues and the current {@link Connection}.
 * The IA lock may be taken before it, never after it. EVD locks are taken inside it. No call
 * into a transport other than {@link Channel#post} happens while it is held.
 */
final class EpImpl extends EngineObject implements Endpoint
{
    private static final int STREAM_RECV = 0;
    private static final int STREAM_REQUEST = 1;
    private static final int STREAM_CONNECT = 2;
    static final int REQUEST_FLAGS = CompletionFlags.SUPPRESS_FLAG | CompletionFlags.SOLICITED_WAIT_FLAG
        | CompletionFlags.UNSIGNALLED_FLAG | CompletionFlags.BARRIER_FENCE_FLAG;
    static final int ALL_QOS = Qos.HIGH_THROUGHPUT | Qos.LOW_LATENCY | Qos.ECONOMY | Qos.PREMIUM;


    /**
     * The endpoint's lock. Its holders take in the marks a channel's thread leaves when it reports
     * a message sent without waiting for the lock ({@link Connection#onSent}); they look for them
     * after letting go only while something handed to the channel is unreported.
     */
    final EpLock lock = new EpLock(ia.singleWriter, new EpLock.Marks()
    {
        @Override
        public boolean expected()
        {
            if (requests.outstanding())
            {
                return true;
            }
            final Connection c = conn;
            return c != null && c.inboundReads != 0;
        }

        @Override
        public Runnable absorb()
        {
            final Connection c = conn;
            return c == null ? null : c.absorbMarks();
        }
    });
    volatile EpState state = EpState.UNCONNECTED;
    final EpAttr attr;
    /** Whether the consumer chose the RDMA Read limits (else the provider may adjust them at setup). */
    boolean readLimitsExplicit;
    PzImpl pz;
    EvdImpl recvEvd;
    EvdImpl requestEvd;
    EvdImpl connectEvd;
    final SrqImpl srq;
    final boolean providerCreated;

    final RequestQueue requests;
    final RecvQueue recvs;
    final EpStateMachine states;

    volatile Connection conn;
    IaAddress remoteAddress;
    long remotePortQual;
    long localPortQual;
    /** What this EP was actively connected to, for dat_ep_dup_connect. */
    IaAddress connectedAddress;
    long connectedQual = -1;
    /** RSP or CR that holds this endpoint, if any. */
    RspImpl rsp;
    CrImpl cr;

    int softHw = Dat.WATERMARK_INFINITE;
    int hardHw = Dat.WATERMARK_INFINITE;

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
        this.requests = new RequestQueue(this, attr, ia.config.maxIov);
        this.recvs = new RecvQueue(this, attr, ia.config.maxIov);
        this.states = new EpStateMachine(this);
        this.softHw = attr.srqSoftHw;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_EP;
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
                    throw Errors.invalidParameter(DatArg.EP_CREATE_WITH_SRQ_ATTRIBUTES,
                        "dat_ep_create_with_srq needs attributes");
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
            ep.attachAll(false);
            if (recvEvd != null)
            {
                recvEvd.tryDirect(ep, ep.recvs);
            }
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
            throw Errors.invalidParameter(DatArg.EP_CREATE_ATTRIBUTES,
                "unknown QoS bits 0x" + Integer.toHexString(a.qos));
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
            throw Errors.invalidParameter(DatArg.EP_CREATE_ATTRIBUTES, "srq_soft_hw " + a.srqSoftHw);
        }
        if (a.recvCompletionFlags != CompletionFlags.EVD_THRESHOLD_FLAG
            && a.recvCompletionFlags != CompletionFlags.SOLICITED_WAIT_FLAG
            && a.recvCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(DatArg.EP_CREATE_ATTRIBUTES,
                "recv_completion_flags must be EVD_THRESHOLD, SOLICITED_WAIT or "
                + "UNSIGNALLED, not 0x" + Integer.toHexString(a.recvCompletionFlags));
        }
        if (a.requestCompletionFlags != CompletionFlags.EVD_THRESHOLD_FLAG
            && a.requestCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(DatArg.EP_CREATE_ATTRIBUTES,
                "request_completion_flags must be EVD_THRESHOLD or UNSIGNALLED, not 0x"
                + Integer.toHexString(a.requestCompletionFlags));
        }
        if (a.epTransportSpecificCount < 0 || a.epProviderSpecificCount < 0)
        {
            throw Errors.invalidParameter(DatArg.EP_CREATE_ATTRIBUTES, "negative attribute count");
        }
    }

    private static void check(final boolean ok, final String what, final long value, final long max)
    {
        if (!ok)
        {
            throw Errors.invalidParameter(DatArg.EP_CREATE_ATTRIBUTES, what + " " + value + " is outside 0.." + max);
        }
    }

    // ================================================================ EVD streams

    /**
     * Attaches this EP's three streams to their EVDs, checking the sharing rules. IA lock held.
     * A refusal names the EVD's argument of dat_ep_create (and _with_srq, which has the same
     * positions), or for dat_ep_modify its ep_param, which holds all three.
     */
    private void attachAll(final boolean modify)
    {
        int done = 0;
        try
        {
            attach(recvEvd, STREAM_RECV, attr.recvCompletionFlags,
                modify ? DatArg.EP_MODIFY_PARAM : DatArg.EP_CREATE_RECV_EVD);
            done++;
            attach(requestEvd, STREAM_REQUEST, attr.requestCompletionFlags,
                modify ? DatArg.EP_MODIFY_PARAM : DatArg.EP_CREATE_REQUEST_EVD);
            done++;
            attach(connectEvd, STREAM_CONNECT, 0, modify ? DatArg.EP_MODIFY_PARAM : DatArg.EP_CREATE_CONNECT_EVD);
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
        if (requestEvd != null)
        {
            requestEvd.consumerClaims.letGo(this);
        }
        detach(connectEvd, STREAM_CONNECT, 0);
    }

    /**
     * The man page's rules for EP streams that share an EVD: DTO streams on one EVD use the same
     * completion configuration; an EVD that also carries non-DTO events allows only
     * EVD_THRESHOLD; unsignalled and solicited-wait streams do not mix with anything else.
     */
    private static void attach(final EvdImpl e, final int stream, final int flag, final int arg)
    {
        if (e == null)
        {
            return;
        }
        // a second stream: the EVD's events leave the receive queue's slots first
        e.leaveDirect();
        if (stream == STREAM_CONNECT)
        {
            if (e.unsignalledStreams + e.solicitedStreams > 0)
            {
                throw Errors.invalidParameter(arg,
                    "an EVD with unsignalled or solicited-wait DTO streams cannot also "
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
            throw Errors.invalidParameter(arg,
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
        e.leaveDirect();
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
        Errors.checkQuery(epParamMask, EpParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param == null)
        {
            return;
        }
        lock.lock();
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
                throw Errors.invalidParameter(DatArg.EP_MODIFY_MASK,
                    String.format("mask 0x%x has undefined bits", mask));
            }
            if (param == null)
            {
                throw Errors.invalidParameter(DatArg.EP_MODIFY_PARAM, "ep_param is null");
            }
            final long never = EpParam.FIELD_IA_HANDLE | EpParam.FIELD_EP_STATE | EpParam.FIELD_LOCAL_IA_ADDRESS_PTR
                | EpParam.FIELD_LOCAL_PORT_QUAL | EpParam.FIELD_REMOTE_IA_ADDRESS_PTR
                | EpParam.FIELD_REMOTE_PORT_QUAL | EpParam.FIELD_SRQ_HANDLE;
            if ((mask & never) != 0)
            {
                throw Errors.invalidParameter(DatArg.EP_MODIFY_MASK,
                    "the mask names a parameter that can never be modified");
            }
            lock.lock();
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
        if ((mask & EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) != 0 && recvs.everPosted)
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
        final long posted = recvs.posted();
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
            attachAll(true);
        }
        catch (final RuntimeException e)
        {
            recvEvd = oldRecv;
            requestEvd = oldRequest;
            connectEvd = oldConnect;
            attr.copyFrom(old);
            attachAll(true);
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
            requests.renew(attr);
        }
        if (srq == null && (old.maxRecvDtos != attr.maxRecvDtos || old.maxRecvIov != attr.maxRecvIov))
        {
            recvs.resize(attr);
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
        lock.lock();
        try
        {
            status.epState = state;
            final Connection c = conn;
            status.recvIdle = srq == null ? recvs.posted() == 0 : c == null || c.current == null;
            status.requestIdle = requests.idle();
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
        lock.lock();
        try
        {
            final int held = recvs.held();
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

    @Override
    public void setWatermark(final int soft, final int hard)
    {
        checkLive();
        if (soft < Dat.WATERMARK_INFINITE || hard < Dat.WATERMARK_INFINITE)
        {
            throw Errors.invalidParameter(DatArg.EP_SET_WATERMARK_SOFT,
                "watermarks must be non-negative or DAT_WATERMARK_INFINITE");
        }
        lock.lock();
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
    void checkWatermarks()
    {
        boolean fireSoft = false;
        TerminateInfo t = null;
        Channel broken = null;
        lock.lock();
        try
        {
            final int held = recvs.held();
            if (softHw != Dat.WATERMARK_INFINITE && held > softHw)
            {
                softHw = Dat.WATERMARK_INFINITE;
                fireSoft = true;
            }
            final Connection c = conn;
            if (hardHw != Dat.WATERMARK_INFINITE && held > hardHw && c != null && c.established && !c.closed)
            {
                t = TerminateInfo.of(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
                    TerminateCodes.RDMAP_CATASTROPHIC_STREAM);
                broken = states.failLocked(c, t, null, null, null);
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
        EpStateMachine.tell(broken, t, true);
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
        lock.lock();
        try
        {
            c = conn;
            conn = null;
            if (c != null)
            {
                c.close();
                if (srq != null && c.current != null)
                {
                    // a held SRQ buffer will never be completed or reaped
                    srq.completed(c.current);
                    srq.reaped();
                    c.current = null;
                }
            }
            requests.releaseBinds();
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
        if (c == null)
        {
            return () ->
            {
                // no transport to abort
            };
        }
        return () -> EpStateMachine.abortTransport(c);
    }

    /** A connection event on the connect EVD (if the consumer gave one). Lock held. */
    void postConnection(final EventNumber number, final byte[] privateData)
    {
        final EvdImpl e = connectEvd;
        if (e != null)
        {
            e.postConnection(number, this, privateData);
        }
    }

    // ================================================================ connection management

    @Override
    public void connect(final IaAddress remote, final long remoteConnQual, final long timeoutMicros,
        final byte[] privateData, final int qos, final int connectFlags)
    {
        states.connect(remote, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(final Endpoint dupEp, final long timeoutMicros, final byte[] privateData, final int qos)
    {
        states.dupConnect(dupEp, timeoutMicros, privateData, qos);
    }

    @Override
    public void disconnect(final int flags)
    {
        states.disconnect(flags);
    }

    @Override
    public void reset()
    {
        states.reset();
    }

    // ================================================================ posting

    @Override
    public void postSend(final int numSegments, final LmrTriplet[] iov, final long userCookie, final int flags)
    {
        requests.post(WorkRequest.SEND, numSegments, iov, userCookie, null, flags);
    }

    @Override
    public void postRdmaWrite(final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final RmrTriplet remote, final int flags)
    {
        requests.post(WorkRequest.WRITE, numSegments, iov, userCookie, remote, flags);
    }

    @Override
    public void postRdmaRead(final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final RmrTriplet remote, final int flags)
    {
        requests.post(WorkRequest.READ, numSegments, iov, userCookie, remote, flags);
    }

    @Override
    public void postRecv(final int numSegments, final LmrTriplet[] iov, final long userCookie, final int flags)
    {
        recvs.post(numSegments, iov, userCookie, flags);
    }

    @Override
    public String toString()
    {
        return "EP[" + state + ", " + ia + "]";
    }
}

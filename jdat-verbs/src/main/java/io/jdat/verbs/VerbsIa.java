package io.jdat.verbs;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.OsWaitProxyAgent;
import io.jdat.ProtectionZone;
import io.jdat.ProviderAttr;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RegionDescription;
import io.jdat.ReservedServicePoint;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.spi.DatArg;
import io.jdat.spi.IaOpenRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An open IA: the RDMA device behind one IPv4 address, reached through an {@code rdma_cm_id}
 * bound to that address (which attaches the device's {@code ibv_context}), with the IA's
 * rdma_cm event channel. A thread named {@code jdat-verbs-cm-<device>} reads that channel and
 * turns rdma_cm events into DAT connection and CR events; it is the only thread the IA starts,
 * and closing the IA ends it.
 */
final class VerbsIa extends VerbsObject implements InterfaceAdapter
{
    /** Endpoint ids index this table ({@code wr_id}'s high half); at most this many EPs at once. */
    private static final int MAX_EPS = 4096;
    /** SRQ ids index this table ({@code wr_id} of an SRQ buffer); at most this many SRQs at once. */
    private static final int MAX_SRQS = 1024;
    private static final int CM_POLL_MS = 100;

    final String iaName;
    final InetAddress inet;
    final IaAddress address;
    final String deviceName;
    final MemorySegment context;
    final Ibv.Ops ops;
    final int maxQpWr;
    final int maxSge;
    final int maxCqe;
    final int maxMw;
    final long maxMrSize;
    final int maxQpRdAtom;
    final int maxQpInitRdAtom;
    final int maxSrq;
    final int maxSrqWr;
    final int maxSrqSge;
    final VerbsEvd asyncEvd;
    /** Each lkey's local privileges (DAT's LOCAL_READ and LOCAL_WRITE, checked before a post). */
    final LkeyTable lkeys = new LkeyTable();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment channel;
    private final int channelFd;
    /** The id that holds the device open for the IA's lifetime. */
    private final MemorySegment deviceId;
    private final Map<Long, VerbsObject> byCmId = new ConcurrentHashMap<>();
    private final VerbsEp[] endpoints = new VerbsEp[MAX_EPS];
    private int nextEpId = 1;
    private final VerbsSrq[] srqs = new VerbsSrq[MAX_SRQS];
    private int nextSrqId = 1;
    /** Endpoints of SRQs by QP number: an SRQ buffer's completion names only the QP that took it. */
    private final QpTable<VerbsEp> qps = new QpTable<>(2 * MAX_EPS, VerbsIa::qpNumOf);
    /** The device's async event descriptor (SRQ limit events). */
    private final int asyncFd;
    private final Set<VerbsObject> children = new LinkedHashSet<>();
    private final Runnable onClose;
    private final Thread cmThread;
    private volatile boolean closing;

    VerbsIa(final IaOpenRequest request, final InetAddress inet)
    {
        super(null, HandleType.IA);
        this.iaName = request.iaName();
        this.onClose = request.onClose();
        this.inet = inet;
        this.address = IaAddress.of(inet);
        final MemorySegment ch = RdmaCm.createEventChannel();
        if (ch.equals(MemorySegment.NULL))
        {
            throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "rdma_create_event_channel", Native.errno());
        }
        this.channel = ch.reinterpret(8);
        this.channelFd = channel.get(Native.INT, RdmaCm.CHANNEL_FD);
        final MemorySegment idOut = arena.allocate(Native.PTR);
        if (RdmaCm.createId(channel, idOut, 0) != 0)
        {
            final int errno = Native.errno();
            RdmaCm.destroyEventChannel(channel);
            throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "rdma_create_id", errno);
        }
        this.deviceId = idOut.get(Native.PTR, 0).reinterpret(RdmaCm.ID_SIZE);
        try
        {
            bindLocal(deviceId, 0);
            final MemorySegment ctx = deviceId.get(Native.PTR, RdmaCm.ID_VERBS);
            if (ctx.equals(MemorySegment.NULL))
            {
                throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "dat_ia_open: " + inet.getHostAddress() + " belongs to no RDMA device");
            }
            this.context = ctx.reinterpret(512);
            this.deviceName = Ibv.deviceName(context.get(Native.PTR, 0));
            this.ops = new Ibv.Ops(context);
            final MemorySegment attr = arena.allocate(Ibv.DEVICE_ATTR_SIZE, 8);
            final int rc = Ibv.queryDevice(context, attr);
            if (rc != 0)
            {
                throw nativeFailure(DatReturnType.INTERNAL_ERROR, "ibv_query_device", rc);
            }
            this.maxQpWr = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_QP_WR);
            this.maxSge = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_SGE);
            this.maxCqe = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_CQE);
            this.maxMw = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_MW);
            this.maxMrSize = attr.get(Native.LONG, Ibv.DEVICE_ATTR_MAX_MR_SIZE);
            this.maxQpRdAtom = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_QP_RD_ATOM);
            this.maxQpInitRdAtom = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_QP_INIT_RD_ATOM);
            this.maxSrq = Math.min(MAX_SRQS - 1, attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_SRQ));
            this.maxSrqWr = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_SRQ_WR);
            this.maxSrqSge = attr.get(Native.INT, Ibv.DEVICE_ATTR_MAX_SRQ_SGE);
            this.asyncFd = context.get(Native.INT, Ibv.CONTEXT_ASYNC_FD);
        }
        catch (final RuntimeException e)
        {
            RdmaCm.destroyId(deviceId);
            RdmaCm.destroyEventChannel(channel);
            arena.close();
            throw e;
        }
        this.asyncEvd = new VerbsEvd(this, Math.max(1, request.asyncEvdMinQlen()), EvdFlags.ASYNC_FLAG);
        this.cmThread = Thread.ofPlatform().daemon().name("jdat-verbs-cm-" + deviceName).unstarted(this::cmLoop);
        cmThread.start();
    }

    // ---- bookkeeping ---------------------------------------------------------------------

    synchronized <T extends VerbsObject> T remember(final T o)
    {
        children.add(o);
        return o;
    }

    synchronized void forget(final VerbsObject o)
    {
        children.remove(o);
    }

    /** A new rdma_cm_id on the IA's channel whose events go to {@code owner}. */
    MemorySegment newCmId(final VerbsObject owner)
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment out = a.allocate(Native.PTR);
            if (RdmaCm.createId(channel, out, 0) != 0)
            {
                throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "rdma_create_id", Native.errno());
            }
            final MemorySegment id = out.get(Native.PTR, 0).reinterpret(RdmaCm.ID_SIZE);
            byCmId.put(id.address(), owner);
            return id;
        }
    }

    void adoptCmId(final MemorySegment id, final VerbsObject owner)
    {
        byCmId.put(id.address(), owner);
    }

    void forgetCmId(final MemorySegment id)
    {
        byCmId.remove(id.address());
    }

    /** Binds an id to the IA's address and {@code port} (0: any). */
    void bindLocal(final MemorySegment id, final int port)
    {
        try (Arena a = Arena.ofConfined())
        {
            if (RdmaCm.bindAddr(id, Sockaddr.of(a, inet, port)) != 0)
            {
                final int errno = Native.errno();
                if (errno == 98)
                {
                    throw new DatException(DatReturnType.CONN_QUAL_IN_USE, "connection qualifier " + port
                        + " is in use on " + inet.getHostAddress());
                }
                throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES,
                    "rdma_bind_addr(" + inet.getHostAddress() + ":" + port + ")", errno);
            }
        }
    }

    synchronized int newEndpointId()
    {
        for (int tries = 0; tries < MAX_EPS; tries++)
        {
            final int id = nextEpId++;
            if (nextEpId == Integer.MAX_VALUE)
            {
                nextEpId = 1;
            }
            if (endpoints[id & (MAX_EPS - 1)] == null)
            {
                return id;
            }
        }
        throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
            "dat_ep_create: " + MAX_EPS + " endpoints are open");
    }

    /** The endpoint with this id, or null (freed). Read on the completion path: no allocation. */
    VerbsEp endpoint(final int id)
    {
        final VerbsEp ep = endpoints[id & (MAX_EPS - 1)];
        return ep != null && ep.id == id ? ep : null;
    }

    synchronized void forgetEndpoint(final VerbsEp ep)
    {
        if (endpoints[ep.id & (MAX_EPS - 1)] == ep)
        {
            endpoints[ep.id & (MAX_EPS - 1)] = null;
        }
    }

    /** The SRQ with this id, or null (freed). Read on the completion path: no allocation. */
    VerbsSrq srq(final int id)
    {
        final VerbsSrq s = srqs[id & (MAX_SRQS - 1)];
        return s != null && s.id == id ? s : null;
    }

    synchronized void forgetSrq(final VerbsSrq s)
    {
        if (srqs[s.id & (MAX_SRQS - 1)] == s)
        {
            srqs[s.id & (MAX_SRQS - 1)] = null;
        }
    }

    void rememberQp(final VerbsEp ep)
    {
        qps.put(ep);
    }

    void forgetQp(final VerbsEp ep)
    {
        qps.remove(ep);
    }

    private static int qpNumOf(final VerbsEp ep)
    {
        return ep.qpNum;
    }

    /** The endpoint of an SRQ whose QP has this number, or null. */
    VerbsEp endpointOfQp(final int qpNum)
    {
        return qps.get(qpNum);
    }

    private void checkOpen()
    {
        if (freed || closing)
        {
            throw new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, "IA is closed");
        }
    }

    private VerbsPz pz(final ProtectionZone pz, final int arg)
    {
        if (pz instanceof VerbsPz p && p.ia == this && !p.freed)
        {
            return p;
        }
        throw new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
            "argument " + arg + ": not a protection zone of this IA");
    }

    private VerbsEvd evd(final EventDispatcher evd, final int needFlag, final DatReturnSubtype subtype,
        final String what)
    {
        if (evd instanceof VerbsEvd e && e.ia == this && !e.freed && (e.flags & needFlag) != 0)
        {
            return e;
        }
        if (evd == null)
        {
            throw notImplemented("an endpoint without a " + what + " EVD");
        }
        throw new DatException(DatReturnType.INVALID_HANDLE, subtype, "not a " + what + " EVD of this IA: " + evd);
    }

    // ---- DAT calls -----------------------------------------------------------------------

    @Override
    public EventDispatcher query(final long iaAttrMask, final IaAttr a, final long providerAttrMask,
        final ProviderAttr p)
    {
        checkOpen();
        // the same checks, in the same order, as the engine's providers
        if ((iaAttrMask & ~IaAttr.FIELD_ALL) != 0)
        {
            throw invalidParameter(DatArg.IA_QUERY_IA_ATTR_MASK,
                "dat_ia_query: undefined IA attribute mask bits 0x" + Long.toHexString(iaAttrMask & ~IaAttr.FIELD_ALL));
        }
        if (iaAttrMask != 0 && a == null)
        {
            throw invalidParameter(DatArg.IA_QUERY_IA_ATTR,
                "dat_ia_query: no IaAttr for mask 0x" + Long.toHexString(iaAttrMask));
        }
        if ((providerAttrMask & ~ProviderAttr.FIELD_ALL) != 0)
        {
            throw invalidParameter(DatArg.IA_QUERY_PROVIDER_ATTR_MASK, "dat_ia_query: undefined provider attribute "
                + "mask bits 0x" + Long.toHexString(providerAttrMask & ~ProviderAttr.FIELD_ALL));
        }
        if (providerAttrMask != 0 && p == null)
        {
            throw invalidParameter(DatArg.IA_QUERY_PROVIDER_ATTR,
                "dat_ia_query: no ProviderAttr for mask 0x" + Long.toHexString(providerAttrMask));
        }
        if (a != null)
        {
            a.adapterName = deviceName;
            a.vendorName = "rdma-core";
            a.iaAddress = address;
            a.maxEps = MAX_EPS - 1;
            a.maxDtoPerEp = maxQpWr;
            a.maxRdmaReadPerEpIn = maxQpRdAtom;
            a.maxRdmaReadPerEpOut = maxQpInitRdAtom;
            a.maxEvdQlen = maxCqe;
            a.maxIovSegmentsPerDto = maxSge;
            a.maxLmrBlockSize = maxMrSize;
            a.maxMessageSize = 1L << 31;
            a.maxRdmaSize = 1L << 31;
            a.maxRmrs = maxMw;
            a.maxSrqs = maxSrq;
            a.maxEpPerSrq = MAX_EPS - 1;
            a.maxRecvPerSrq = maxSrqWr;
        }
        if (p != null)
        {
            p.providerName = "jdat-verbs";
            p.isThreadSafe = true;
            p.maxPrivateDataSize = VerbsEp.MAX_PRIVATE_DATA;
            p.srqSupported = maxSrq > 0;
            p.srqWatermarksSupported = maxSrq > 0 ? 1 : 0;
            p.srqEpPzDifferenceSupported = false;
            p.srqInfoSupported = maxSrq > 0 ? 1 : 0;
        }
        return asyncEvd;
    }

    @Override
    public ProtectionZone pzCreate()
    {
        checkOpen();
        final MemorySegment pd = Ibv.allocPd(context);
        if (pd.equals(MemorySegment.NULL))
        {
            throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "ibv_alloc_pd", Native.errno());
        }
        return remember(new VerbsPz(this, pd));
    }

    /**
     * {@code dat_lmr_create} of virtual memory: {@code ibv_reg_mr}. verbs lets the local NIC read
     * every registered byte; DAT's LOCAL_READ and LOCAL_WRITE are kept by checking the segments of
     * every post against {@link #lkeys}. verbs grants remote write only with local write, so REMOTE_WRITE
     * without LOCAL_WRITE fails with DAT_INVALID_PARAMETER instead of registering with more rights.
     */
    @Override
    public Lmr lmrCreate(final int memType, final RegionDescription region, final long length,
        final ProtectionZone pz, final int memPrivileges)
    {
        checkOpen();
        if (memType != MemType.VIRTUAL)
        {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED,
                "dat_lmr_create: the verbs provider registers DAT_MEM_TYPE_VIRTUAL only (asked: " + memType + ")");
        }
        if (!(region instanceof RegionDescription.Va va) || va.memory() == null)
        {
            throw invalidParameter(DatArg.LMR_CREATE_REGION_DESCRIPTION, "dat_lmr_create: no virtual memory region");
        }
        final VerbsPz p = pz(pz, 5);
        if (length <= 0 || length > va.memory().byteSize())
        {
            throw invalidParameter(DatArg.LMR_CREATE_LENGTH, "dat_lmr_create: length " + length + " for a region of "
                + va.memory().byteSize() + " bytes");
        }
        if ((memPrivileges & ~(MemPriv.ALL_FLAG | MemPriv.RO_DISABLE_FLAG)) != 0)
        {
            throw invalidParameter(DatArg.LMR_CREATE_PRIVILEGES,
                "dat_lmr_create: unknown privileges 0x" + Integer.toHexString(memPrivileges));
        }
        if ((memPrivileges & MemPriv.REMOTE_WRITE_FLAG) != 0 && (memPrivileges & MemPriv.LOCAL_WRITE_FLAG) == 0)
        {
            throw invalidParameter(DatArg.LMR_CREATE_PRIVILEGES,
                "dat_lmr_create: verbs grants remote write only with local write; ask for "
                + "DAT_MEM_PRIV_LOCAL_WRITE_FLAG too");
        }
        int access = 0;
        if ((memPrivileges & MemPriv.LOCAL_WRITE_FLAG) != 0)
        {
            access |= Ibv.ACCESS_LOCAL_WRITE;
        }
        if ((memPrivileges & MemPriv.REMOTE_WRITE_FLAG) != 0)
        {
            access |= Ibv.ACCESS_REMOTE_WRITE;
        }
        if ((memPrivileges & MemPriv.REMOTE_READ_FLAG) != 0)
        {
            access |= Ibv.ACCESS_REMOTE_READ;
        }
        final MemorySegment memory = va.memory().asSlice(0, length);
        final MemorySegment mr = Ibv.regMr(p.pd, memory, length, access);
        if (mr.equals(MemorySegment.NULL))
        {
            throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "ibv_reg_mr(" + length + " bytes)",
                Native.errno());
        }
        p.users.incrementAndGet();
        final boolean remote = (memPrivileges & (MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG)) != 0;
        final VerbsLmr lmr = new VerbsLmr(this, p, mr, memory, memPrivileges, remote);
        lkeys.add(lmr.lmrContext(), memPrivileges);
        return remember(lmr);
    }

    @Override
    public void lmrSyncRdmaRead(final LmrTriplet[] segments, final long n)
    {
        checkOpen();
        checkSegments(segments, n);
    }

    @Override
    public void lmrSyncRdmaWrite(final LmrTriplet[] segments, final long n)
    {
        checkOpen();
        checkSegments(segments, n);
    }

    /** Memory the NIC writes is coherent with the CPU on the hosts rdma-core supports here. */
    private static void checkSegments(final LmrTriplet[] segments, final long n)
    {
        if (segments == null || n < 0 || n > segments.length)
        {
            throw invalidParameter(DatArg.LMR_SYNC_LOCAL_SEGMENTS, "lmr sync: " + n + " segments");
        }
    }

    @Override
    public EventDispatcher evdCreate(final int evdMinQlen, final Cno cno, final int evdFlags)
    {
        checkOpen();
        if (evdMinQlen <= 0 || evdMinQlen > maxCqe)
        {
            throw invalidParameter(DatArg.EVD_CREATE_MIN_QLEN,
                "dat_evd_create: queue length " + evdMinQlen + " (device max " + maxCqe + ")");
        }
        if (evdFlags == 0 || (evdFlags & ~EvdFlags.ALL_FLAGS) != 0)
        {
            throw invalidParameter(DatArg.EVD_CREATE_FLAGS, "dat_evd_create: flags 0x" + Integer.toHexString(evdFlags));
        }
        if (cno != null)
        {
            throw notImplemented("dat_evd_create with a CNO (CNOs)");
        }
        return remember(new VerbsEvd(this, evdMinQlen, evdFlags));
    }

    @Override
    public Cno cnoCreate(final OsWaitProxyAgent agent)
    {
        checkOpen();
        throw notImplemented("dat_cno_create");
    }

    @Override
    public Endpoint epCreate(final ProtectionZone pz, final EventDispatcher recvEvd, final EventDispatcher requestEvd,
        final EventDispatcher connectEvd, final EpAttr attributes)
    {
        checkOpen();
        return endpoint(pz, recvEvd, requestEvd, connectEvd, null, attributes);
    }

    private Endpoint endpoint(final ProtectionZone pz, final EventDispatcher recvEvd,
        final EventDispatcher requestEvd, final EventDispatcher connectEvd, final VerbsSrq srq, final EpAttr attributes)
    {
        final VerbsPz p = pz(pz, 2);
        final VerbsEvd r = evd(recvEvd, EvdFlags.DTO_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_RECV, "receive");
        final VerbsEvd q = evd(requestEvd, EvdFlags.DTO_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, "request");
        final VerbsEvd c = evd(connectEvd, EvdFlags.CONNECTION_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
            "connection");
        final EpAttr attr = attributes == null ? defaults() : attributes;
        if (srq != null && srq.pz != p)
        {
            // the provider attribute srq_ep_pz_difference_supported is false: a QP's receives are
            // checked against the QP's PD, so an SRQ in another PZ would fail every message
            throw invalidParameter(2, "dat_ep_create_with_srq: the endpoint's PZ is not the SRQ's "
                + "(srq_ep_pz_difference_supported is false)");
        }
        final int recvDtos = srq != null ? 1 : attr.maxRecvDtos;
        final int recvIov = srq != null ? 0 : attr.maxRecvIov;
        if (recvDtos < 1 || attr.maxRequestDtos < 1 || recvDtos > maxQpWr
            || attr.maxRequestDtos > maxQpWr)
        {
            throw invalidParameter(DatArg.EP_CREATE_ATTRIBUTES,
                "dat_ep_create: queue depths " + attr.maxRecvDtos + "/" + attr.maxRequestDtos
                + " (device: 1.." + maxQpWr + ")");
        }
        if (recvIov < 0 || attr.maxRequestIov < 0 || recvIov > maxSge || attr.maxRequestIov > maxSge)
        {
            throw invalidParameter(DatArg.EP_CREATE_ATTRIBUTES,
                "dat_ep_create: segments " + attr.maxRecvIov + "/" + attr.maxRequestIov
                + " (device: 0.." + maxSge + ")");
        }
        final VerbsEp ep;
        synchronized (this)
        {
            final int id = newEndpointId();
            ep = new VerbsEp(this, id, p, r, q, c, srq, attr);
            endpoints[id & (MAX_EPS - 1)] = ep;
        }
        if (srq != null)
        {
            srq.users.incrementAndGet();
        }
        p.users.incrementAndGet();
        r.users.incrementAndGet();
        q.users.incrementAndGet();
        c.users.incrementAndGet();
        return remember(ep);
    }

    private EpAttr defaults()
    {
        final EpAttr a = new EpAttr();
        a.maxRecvDtos = Math.min(64, maxQpWr);
        a.maxRequestDtos = Math.min(64, maxQpWr);
        a.maxRecvIov = Math.min(4, maxSge);
        a.maxRequestIov = Math.min(4, maxSge);
        a.maxRdmaReadIn = Math.min(8, maxQpRdAtom);
        a.maxRdmaReadOut = Math.min(8, maxQpInitRdAtom);
        return a;
    }

    @Override
    public Endpoint epCreateWithSrq(final ProtectionZone pz, final EventDispatcher recvEvd,
        final EventDispatcher requestEvd, final EventDispatcher connectEvd, final SharedReceiveQueue srq,
        final EpAttr attributes)
    {
        checkOpen();
        final VerbsSrq s = srqOf(srq);
        if (attributes == null)
        {
            throw invalidParameter(DatArg.EP_CREATE_WITH_SRQ_ATTRIBUTES, "dat_ep_create_with_srq: no EpAttr");
        }
        return endpoint(pz, recvEvd, requestEvd, connectEvd, s, attributes);
    }

    private VerbsSrq srqOf(final SharedReceiveQueue srq)
    {
        if (srq instanceof VerbsSrq s && s.ia == this && !s.freed)
        {
            return s;
        }
        throw new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ,
            "dat_ep_create_with_srq: not an SRQ of this IA: " + srq);
    }

    @Override
    public PublicServicePoint pspCreate(final long connQual, final EventDispatcher evd, final int pspFlags)
    {
        checkOpen();
        if (connQual <= 0 || connQual > 0xFFFF)
        {
            throw invalidParameter(DatArg.PSP_CREATE_CONN_QUAL,
                "dat_psp_create: connection qualifier " + connQual + " is not a port 1..65535");
        }
        return psp(connQual, evd, pspFlags);
    }

    @Override
    public PublicServicePoint pspCreateAny(final EventDispatcher evd, final int pspFlags)
    {
        checkOpen();
        return psp(0, evd, pspFlags);
    }

    private PublicServicePoint psp(final long connQual, final EventDispatcher evd, final int pspFlags)
    {
        final VerbsEvd e = evd(evd, EvdFlags.CR_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_CR, "CR");
        if (pspFlags == PspFlags.PROVIDER_FLAG)
        {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED,
                "dat_psp_create with DAT_PSP_PROVIDER_FLAG: the verbs provider makes no endpoints of its own");
        }
        if (pspFlags != PspFlags.CONSUMER_FLAG)
        {
            throw invalidParameter(DatArg.PSP_CREATE_FLAGS, "dat_psp_create: flags " + pspFlags);
        }
        return remember(new VerbsPsp(this, connQual, e, pspFlags));
    }

    @Override
    public ReservedServicePoint rspCreate(final long connQual, final Endpoint ep, final EventDispatcher evd)
    {
        checkOpen();
        if (connQual <= 0 || connQual > 0xFFFF)
        {
            throw invalidParameter(2, // conn_qual
                "dat_rsp_create: connection qualifier " + connQual + " is not a port 1..65535");
        }
        if (ep == null)
        {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED,
                "dat_rsp_create without an endpoint: the verbs provider makes no endpoints of its own");
        }
        if (!(ep instanceof VerbsEp v) || v.ia != this || v.freed)
        {
            throw new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                "dat_rsp_create: not an endpoint of this IA: " + ep);
        }
        final VerbsEvd e = evd(evd, EvdFlags.CR_FLAG, DatReturnSubtype.INVALID_HANDLE_EVD_CR, "CR");
        return remember(new VerbsRsp(this, connQual, v, e));
    }

    @Override
    public SharedReceiveQueue srqCreate(final ProtectionZone pz, final SrqAttr attributes)
    {
        checkOpen();
        final VerbsPz p = pz(pz, 2);
        if (attributes == null)
        {
            throw invalidParameter(DatArg.SRQ_CREATE_ATTR, "dat_srq_create: no SrqAttr");
        }
        if (maxSrq <= 0)
        {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED,
                "dat_srq_create: device " + deviceName + " has no shared receive queues (max_srq 0)");
        }
        if (attributes.maxRecvDtos <= 0 || attributes.maxRecvDtos > maxSrqWr)
        {
            throw invalidParameter(DatArg.SRQ_CREATE_ATTR,
                "dat_srq_create: max_recv_dtos " + attributes.maxRecvDtos + " is outside 1.." + maxSrqWr);
        }
        if (attributes.maxRecvIov <= 0 || attributes.maxRecvIov > maxSrqSge)
        {
            throw invalidParameter(DatArg.SRQ_CREATE_ATTR,
                "dat_srq_create: max_recv_iov " + attributes.maxRecvIov + " is outside 1.." + maxSrqSge);
        }
        if (attributes.lowWatermark != io.jdat.Dat.SRQ_LW_DEFAULT)
        {
            throw invalidParameter(DatArg.SRQ_CREATE_ATTR,
                "dat_srq_create: low_watermark must be DAT_SRQ_LW_DEFAULT at creation");
        }
        final VerbsSrq srq;
        synchronized (this)
        {
            final int id = newSrqId();
            srq = new VerbsSrq(this, id, p, attributes.maxRecvDtos, attributes.maxRecvIov);
            srqs[id & (MAX_SRQS - 1)] = srq;
        }
        p.users.incrementAndGet();
        return remember(srq);
    }

    private int newSrqId()
    {
        for (int tries = 0; tries < MAX_SRQS; tries++)
        {
            final int id = nextSrqId++;
            if (nextSrqId == Integer.MAX_VALUE)
            {
                nextSrqId = 1;
            }
            if (srqs[id & (MAX_SRQS - 1)] == null && (id & (MAX_SRQS - 1)) != 0)
            {
                return id;
            }
        }
        throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
            "dat_srq_create: " + (MAX_SRQS - 1) + " SRQs are open");
    }

    @Override
    public void close(final int closeFlags)
    {
        if (closeFlags != CloseFlags.ABRUPT_FLAG && closeFlags != CloseFlags.GRACEFUL_FLAG)
        {
            throw invalidParameter(DatArg.IA_CLOSE_FLAGS, "dat_ia_close: flags " + closeFlags);
        }
        final List<VerbsObject> left;
        synchronized (this)
        {
            checkOpen();
            left = new ArrayList<>(children);
            left.remove(asyncEvd);
            if (closeFlags == CloseFlags.GRACEFUL_FLAG && !left.isEmpty())
            {
                throw invalidState(DatReturnSubtype.NO_SUBTYPE, "dat_ia_close(GRACEFUL): " + left.size()
                    + " objects are still open");
            }
            closing = true;
        }
        // teardown order: what uses others first
        for (final VerbsObject o : left)
        {
            if (o instanceof VerbsEp ep)
            {
                ep.destroy();
            }
        }
        for (final VerbsObject o : left)
        {
            switch (o)
            {
                case VerbsPsp psp -> psp.destroy();
                case VerbsRsp rsp -> rsp.destroy();
                case VerbsCr cr -> cr.destroy();
                default ->
                {
                }
            }
        }
        for (final VerbsObject o : left)
        {
            switch (o)
            {
                case VerbsSrq srq -> srq.destroy();
                case VerbsLmr lmr -> lmr.destroy();
                default ->
                {
                }
            }
        }
        for (final VerbsObject o : left)
        {
            switch (o)
            {
                case VerbsEvd evd -> evd.destroy();
                case VerbsPz pz -> pz.destroy();
                default ->
                {
                }
            }
        }
        asyncEvd.destroy();
        cmThread.interrupt();
        try
        {
            cmThread.join(5000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        RdmaCm.destroyId(deviceId);
        RdmaCm.destroyEventChannel(channel);
        arena.close();
        freed = true;
        if (onClose != null)
        {
            onClose.run();
        }
    }

    // ---- the rdma_cm thread ---------------------------------------------------------------

    private void cmLoop()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment pollfds = a.allocate(16, 8);
            final MemorySegment eventOut = a.allocate(Native.PTR);
            final MemorySegment asyncEvent = a.allocate(Ibv.ASYNC_EVENT_SIZE, 8);
            while (!closing)
            {
                final int ready = Native.pollIn(pollfds, channelFd, asyncFd, CM_POLL_MS);
                if (ready <= 0)
                {
                    continue;
                }
                if ((ready & 2) != 0 && Ibv.getAsyncEvent(context, asyncEvent) == 0)
                {
                    onAsyncEvent(asyncEvent);
                    Ibv.ackAsyncEvent(asyncEvent);
                }
                if ((ready & 1) == 0 || RdmaCm.getCmEvent(channel, eventOut) != 0)
                {
                    continue;
                }
                final MemorySegment event = eventOut.get(Native.PTR, 0).reinterpret(RdmaCm.EVENT_SIZE);
                MemorySegment destroyAfterAck = null;
                try
                {
                    destroyAfterAck = dispatch(event);
                }
                catch (final RuntimeException e)
                {
                    asyncEvd.post(new VerbsEvd.SoftEvent(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR.value(), null,
                        null, null, null, e.toString()));
                }
                finally
                {
                    RdmaCm.ackCmEvent(event);
                }
                if (destroyAfterAck != null)
                {
                    RdmaCm.destroyId(destroyAfterAck);
                }
            }
        }
    }

    /**
     * {@code dat_cr_handoff}: the request's id and private data as a new request of the PSP or RSP
     * of this IA on {@code connQual}; false when none listens there (an RSP that had its request
     * does not).
     */
    boolean handOff(final VerbsCr from, final long connQual)
    {
        final List<VerbsObject> all;
        synchronized (this)
        {
            all = new ArrayList<>(children);
        }
        for (final VerbsObject o : all)
        {
            if (o instanceof VerbsPsp psp && !psp.freed && psp.connQual() == connQual)
            {
                final VerbsCr cr = remember(new VerbsCr(this, psp, connQual, null, from.cmId, from.privateData));
                psp.evd.post(new VerbsEvd.SoftEvent(EventNumber.CONNECTION_REQUEST_EVENT.value(), null, null, psp, cr,
                    null));
                return true;
            }
            if (o instanceof VerbsRsp rsp && rsp.connQual == connQual && rsp.take())
            {
                final VerbsCr cr = remember(new VerbsCr(this, rsp, connQual, rsp.ep, from.cmId, from.privateData));
                rsp.evd.post(new VerbsEvd.SoftEvent(EventNumber.CONNECTION_REQUEST_EVENT.value(), null, null, rsp, cr,
                    null));
                final MemorySegment listening = rsp.stopListening();
                if (listening != null)
                {
                    RdmaCm.destroyId(listening);
                }
                return true;
            }
        }
        return false;
    }

    /** An event of the device's async channel: an SRQ's limit reached; the rest are not reported. */
    private void onAsyncEvent(final MemorySegment event)
    {
        if (event.get(Native.INT, Ibv.ASYNC_EVENT_TYPE) == Ibv.EVENT_SRQ_LIMIT_REACHED)
        {
            final long srqAddress = event.get(Native.PTR, Ibv.ASYNC_EVENT_ELEMENT).address();
            for (final VerbsSrq s : srqs)
            {
                if (s != null && s.srq.address() == srqAddress)
                {
                    s.limitReached();
                }
            }
        }
    }

    /** One rdma_cm event; returns an id to destroy once the event is acknowledged, or null. */
    private MemorySegment dispatch(final MemorySegment event)
    {
        final int type = event.get(Native.INT, RdmaCm.EVENT_EVENT);
        final int status = event.get(Native.INT, RdmaCm.EVENT_STATUS);
        final MemorySegment id = event.get(Native.PTR, RdmaCm.EVENT_ID);
        if (type == RdmaCm.CONNECT_REQUEST)
        {
            final MemorySegment listenId = event.get(Native.PTR, RdmaCm.EVENT_LISTEN_ID);
            final VerbsObject owner = byCmId.get(listenId.address());
            if (owner instanceof VerbsPsp psp && !psp.freed)
            {
                final VerbsCr cr = remember(new VerbsCr(this, psp, psp.connQual(), null, id,
                    VerbsEp.privateDataOf(event)));
                psp.evd.post(new VerbsEvd.SoftEvent(EventNumber.CONNECTION_REQUEST_EVENT.value(), null, null, psp, cr,
                    null));
                return null;
            }
            if (owner instanceof VerbsRsp rsp && rsp.take())
            {
                final VerbsCr cr = remember(new VerbsCr(this, rsp, rsp.connQual, rsp.ep, id,
                    VerbsEp.privateDataOf(event)));
                rsp.evd.post(new VerbsEvd.SoftEvent(EventNumber.CONNECTION_REQUEST_EVENT.value(), null, null, rsp, cr,
                    null));
                // its one request: the listening id goes once this event is acknowledged
                return rsp.stopListening();
            }
            RdmaCm.reject(id);
            return id;
        }
        final VerbsObject owner = byCmId.get(id.address());
        if (owner instanceof VerbsEp ep)
        {
            ep.onCmEvent(type, status, event);
        }
        return null;
    }
}

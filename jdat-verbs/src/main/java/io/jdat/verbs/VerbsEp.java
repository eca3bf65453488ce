package io.jdat.verbs;

import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EpStatus;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.IaAddress;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.spi.DatArg;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An endpoint: an RC QP on an {@code rdma_cm_id}. The QP is made when the endpoint connects
 * (on its own id, bound to the IA's address) or accepts (on the request's id); receives posted
 * before that wait in their slots and go to the QP when it exists.
 *
 * <p>Each queue is a ring of preallocated work requests with their scatter/gather lists in native
 * memory; a post fills the next slot and hands it to the NIC through the context's ops table, so
 * posting allocates nothing. {@code wr_id} names the endpoint and the slot:
 * <pre>
 *  63            32 31 30                0
 * +----------------+--+-------------------+
 * | endpoint id    |R | slot              |   R = 1 for a receive
 * +----------------+--+-------------------+
 * </pre>
 * A QP completes its work requests in order, so a completion frees its slot and every slot
 * before it; requests whose successful completion the consumer suppressed are posted unsignalled
 * (but for one every half queue, so that the slots come back).
 */
final class VerbsEp extends VerbsObject implements Endpoint
{
    static final long RECV_BIT = 0x8000_0000L;
    static final long SLOT_MASK = 0x7FFF_FFFFL;
    /** MPA carries at most 512 bytes of private data; rdma_cm's length field is one byte. */
    static final int MAX_PRIVATE_DATA = 255;
    private static final int RESOLVE_MS = 2000;

    final int id;
    final VerbsPz pz;
    final VerbsEvd recvEvd;
    final VerbsEvd reqEvd;
    final VerbsEvd connEvd;
    /** The SRQ this endpoint takes its receive buffers from, or null (its own receive queue). */
    final VerbsSrq srq;
    /** The QP's number while it exists (an SRQ completion names the endpoint by it), else -1. */
    volatile int qpNum = -1;
    private final EpAttr attr;
    private final Arena arena = Arena.ofShared();
    private volatile EpState state = EpState.UNCONNECTED;
    /** The rdma_cm_id the QP lives on, or null. */
    private MemorySegment cmId;
    private MemorySegment qp;
    private InetAddress remoteAddress;
    private long remotePort;

    private final int sendDepth;
    private final int sendIov;
    private final MemorySegment[] sendWr;
    private final MemorySegment[] sendSge;
    final long[] sendCookie;
    final long[] sendLength;
    final boolean[] sendSuppress;
    /** The post number of each slot's request: a completion frees its slot and every one before. */
    final long[] sendSeq;
    private long sendPosted;
    /** The post number of the last request posted signalled. */
    private long lastSignalled = -1;
    final AtomicLong sendCompleted = new AtomicLong();

    private final int recvDepth;
    private final int recvIov;
    private final MemorySegment[] recvWr;
    private final MemorySegment[] recvSge;
    final long[] recvCookie;
    private long recvPosted;
    /** Receives handed to the QP (the rest wait for it). */
    private long recvGiven;
    final AtomicLong recvCompleted = new AtomicLong();

    private final MemorySegment badWr;
    private final MemorySegment initAttr;
    private final MemorySegment connParam;
    private final MemorySegment privateData;

    VerbsEp(final VerbsIa ia, final int id, final VerbsPz pz, final VerbsEvd recvEvd, final VerbsEvd reqEvd,
        final VerbsEvd connEvd, final VerbsSrq srq, final EpAttr attr)
    {
        super(ia, HandleType.EP);
        this.id = id;
        this.pz = pz;
        this.srq = srq;
        this.recvEvd = recvEvd;
        this.reqEvd = reqEvd;
        this.connEvd = connEvd;
        this.attr = new EpAttr(attr);
        this.sendDepth = attr.maxRequestDtos;
        this.sendIov = attr.maxRequestIov;
        // an endpoint of an SRQ has no receive queue of its own
        this.recvDepth = srq == null ? attr.maxRecvDtos : 0;
        this.recvIov = srq == null ? attr.maxRecvIov : 0;
        this.sendWr = slots(sendDepth, Ibv.SEND_WR_SIZE);
        this.sendSge = slots(sendDepth, Ibv.SGE_SIZE * Math.max(1, sendIov));
        this.sendCookie = new long[sendDepth];
        this.sendLength = new long[sendDepth];
        this.sendSuppress = new boolean[sendDepth];
        this.sendSeq = new long[sendDepth];
        this.recvWr = slots(recvDepth, Ibv.RECV_WR_SIZE);
        this.recvSge = slots(recvDepth, Ibv.SGE_SIZE * Math.max(1, recvIov));
        this.recvCookie = new long[recvDepth];
        this.badWr = arena.allocate(Native.PTR);
        this.initAttr = arena.allocate(Ibv.QP_INIT_ATTR_SIZE, 8);
        this.connParam = arena.allocate(RdmaCm.CONN_PARAM_SIZE, 8);
        this.privateData = arena.allocate(MAX_PRIVATE_DATA + 1, 8);
        initAttr.set(Native.PTR, Ibv.QP_INIT_SEND_CQ, reqEvd.cq);
        initAttr.set(Native.PTR, Ibv.QP_INIT_RECV_CQ, recvEvd.cq);
        initAttr.set(Native.PTR, Ibv.QP_INIT_SRQ, srq == null ? MemorySegment.NULL : srq.srq);
        initAttr.set(Native.INT, Ibv.QP_INIT_MAX_SEND_WR, sendDepth);
        initAttr.set(Native.INT, Ibv.QP_INIT_MAX_RECV_WR, recvDepth);
        initAttr.set(Native.INT, Ibv.QP_INIT_MAX_SEND_SGE, Math.max(1, sendIov));
        initAttr.set(Native.INT, Ibv.QP_INIT_MAX_RECV_SGE, srq == null ? Math.max(1, recvIov) : 0);
        initAttr.set(Native.INT, Ibv.QP_INIT_QP_TYPE, Ibv.QPT_RC);
        initAttr.set(Native.INT, Ibv.QP_INIT_SQ_SIG_ALL, 0);
        for (int i = 0; i < sendDepth; i++)
        {
            sendWr[i].set(Native.LONG, Ibv.SEND_WR_ID, ((long) id << 32) | i);
            sendWr[i].set(Native.PTR, Ibv.SEND_WR_SG_LIST, sendSge[i]);
        }
        for (int i = 0; i < recvDepth; i++)
        {
            recvWr[i].set(Native.LONG, Ibv.RECV_WR_ID, ((long) id << 32) | RECV_BIT | i);
            recvWr[i].set(Native.PTR, Ibv.RECV_WR_SG_LIST, recvSge[i]);
        }
    }

    private MemorySegment[] slots(final int n, final long size)
    {
        final MemorySegment all = arena.allocate(size * n, 8);
        final MemorySegment[] s = new MemorySegment[n];
        for (int i = 0; i < n; i++)
        {
            s[i] = all.asSlice(i * size, size);
        }
        return s;
    }

    // ---- data transfer -------------------------------------------------------------------

    @Override
    public void postSend(final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final int completionFlags)
    {
        post(Ibv.WR_SEND, numSegments, iov, userCookie, null, completionFlags);
    }

    @Override
    public void postRdmaWrite(final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final RmrTriplet remoteBuffer, final int completionFlags)
    {
        post(Ibv.WR_RDMA_WRITE, numSegments, iov, userCookie, remote(remoteBuffer), completionFlags);
    }

    @Override
    public void postRdmaRead(final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final RmrTriplet remoteBuffer, final int completionFlags)
    {
        post(Ibv.WR_RDMA_READ, numSegments, iov, userCookie, remote(remoteBuffer), completionFlags);
    }

    private static RmrTriplet remote(final RmrTriplet r)
    {
        if (r == null)
        {
            throw invalidParameter(DatArg.POST_RDMA_REMOTE_IOV, "no remote buffer (RmrTriplet)");
        }
        return r;
    }

    private synchronized void post(final int opcode, final int n, final LmrTriplet[] iov, final long cookie,
        final RmrTriplet remote, final int completionFlags)
    {
        checkValid();
        if (state != EpState.CONNECTED)
        {
            throw invalidState(stateSubtype(), "post on an endpoint in state " + state);
        }
        if (n < 0 || n > sendIov || (n > 0 && (iov == null || iov.length < n)))
        {
            throw invalidParameter(DatArg.POST_NUM_SEGMENTS, n + " segments (this endpoint takes 0.." + sendIov + ")");
        }
        final long posted = sendPosted;
        if (posted - sendCompleted.get() >= sendDepth)
        {
            reqEvd.reclaim();
        }
        if (posted - sendCompleted.get() >= sendDepth)
        {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                "request queue full (" + sendDepth + " outstanding)");
        }
        checkPrivileges(n, iov, opcode == Ibv.WR_RDMA_READ ? MemPriv.LOCAL_WRITE_FLAG : MemPriv.LOCAL_READ_FLAG);
        final int slot = (int) (posted % sendDepth);
        final long total = fillSges(sendSge[slot], n, iov);
        if (remote != null && total > remote.segmentLength)
        {
            throw new DatException(DatReturnType.LENGTH_ERROR,
                total + " bytes do not fit the remote segment of " + remote.segmentLength);
        }
        final MemorySegment wr = sendWr[slot];
        wr.set(Native.INT, Ibv.SEND_WR_NUM_SGE, n);
        wr.set(Native.INT, Ibv.SEND_WR_OPCODE, opcode);
        // a suppressed completion is asked of the NIC only every half queue, so that the CQ holds
        // no more than the consumer sized its EVD for; the QP completes in order, so a completion
        // frees its slot and all before it, and a flush reports every request, signalled or not
        final boolean suppress = (completionFlags & CompletionFlags.SUPPRESS_FLAG) != 0;
        final boolean signalled = !suppress || posted - lastSignalled >= Math.max(1, sendDepth / 2);
        int flags = signalled ? Ibv.SEND_SIGNALED : 0;
        if ((completionFlags & CompletionFlags.SOLICITED_WAIT_FLAG) != 0 && opcode == Ibv.WR_SEND)
        {
            flags |= Ibv.SEND_SOLICITED;
        }
        if ((completionFlags & CompletionFlags.BARRIER_FENCE_FLAG) != 0)
        {
            flags |= Ibv.SEND_FENCE;
        }
        wr.set(Native.INT, Ibv.SEND_WR_FLAGS, flags);
        if (remote != null)
        {
            wr.set(Native.LONG, Ibv.SEND_WR_REMOTE_ADDR, remote.targetAddress);
            wr.set(Native.INT, Ibv.SEND_WR_RKEY, remote.rmrContext);
        }
        sendCookie[slot] = cookie;
        sendLength[slot] = total;
        sendSuppress[slot] = suppress;
        sendSeq[slot] = posted;
        final int rc;
        try
        {
            rc = (int) ia.ops.postSend.invokeExact(qp, wr, badWr);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
        if (rc != 0)
        {
            throw nativeFailure(rc == 12 ? DatReturnType.INSUFFICIENT_RESOURCES : DatReturnType.INTERNAL_ERROR,
                "ibv_post_send", rc);
        }
        sendPosted = posted + 1;
        if (signalled)
        {
            lastSignalled = posted;
        }
    }

    @Override
    public synchronized void postRecv(final int n, final LmrTriplet[] iov, final long cookie,
        final int completionFlags)
    {
        checkValid();
        if (srq != null)
        {
            // digest, dat_ep_create_with_srq: the buffers of this endpoint go to its SRQ
            throw invalidState(DatReturnSubtype.NO_SUBTYPE,
                "dat_ep_post_recv on an endpoint made with an SRQ: post to the SRQ (dat_srq_post_recv)");
        }
        if (n < 0 || n > recvIov || (n > 0 && (iov == null || iov.length < n)))
        {
            throw invalidParameter(DatArg.POST_NUM_SEGMENTS, n + " segments (this endpoint takes 0.." + recvIov + ")");
        }
        final long posted = recvPosted;
        if (posted - recvCompleted.get() >= recvDepth)
        {
            recvEvd.reclaim();
        }
        if (posted - recvCompleted.get() >= recvDepth)
        {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                "receive queue full (" + recvDepth + " outstanding)");
        }
        checkPrivileges(n, iov, MemPriv.LOCAL_WRITE_FLAG);
        final int slot = (int) (posted % recvDepth);
        fillSges(recvSge[slot], n, iov);
        recvWr[slot].set(Native.INT, Ibv.RECV_WR_NUM_SGE, n);
        recvCookie[slot] = cookie;
        recvPosted = posted + 1;
        if (qp != null)
        {
            giveRecvs();
        }
    }

    /** Hands the receives not yet on the QP to it, in order. Caller holds the lock. */
    private void giveRecvs()
    {
        while (recvGiven < recvPosted)
        {
            final int slot = (int) (recvGiven % recvDepth);
            final int rc;
            try
            {
                rc = (int) ia.ops.postRecv.invokeExact(qp, recvWr[slot], badWr);
            }
            catch (final Throwable t)
            {
                throw Ibv.rethrow(t);
            }
            if (rc != 0)
            {
                recvPosted = recvGiven; // the rest never reach the NIC: not posted
                throw nativeFailure(rc == 12 ? DatReturnType.INSUFFICIENT_RESOURCES : DatReturnType.INTERNAL_ERROR,
                    "ibv_post_recv", rc);
            }
            recvGiven++;
        }
    }

    /**
     * DAT's local privileges, which verbs does not check before the NIC runs the request: a
     * source needs LOCAL_READ, a sink LOCAL_WRITE; else DAT_PRIVILEGES_VIOLATION and nothing is
     * posted.
     */
    private void checkPrivileges(final int n, final LmrTriplet[] iov, final int needed)
    {
        for (int i = 0; i < n; i++)
        {
            if (iov[i] != null && !ia.lkeys.allows(iov[i].lmrContext, needed))
            {
                final boolean read = needed == MemPriv.LOCAL_READ_FLAG;
                throw new DatException(DatReturnType.PRIVILEGES_VIOLATION,
                    read ? DatReturnSubtype.PRIVILEGES_READ : DatReturnSubtype.PRIVILEGES_WRITE,
                    "segment " + i + ": LMR 0x" + Integer.toHexString(iov[i].lmrContext) + " was registered without "
                    + (read ? "DAT_MEM_PRIV_LOCAL_READ_FLAG" : "DAT_MEM_PRIV_LOCAL_WRITE_FLAG"));
            }
        }
    }

    static long fillSges(final MemorySegment sges, final int n, final LmrTriplet[] iov)
    {
        long total = 0;
        for (int i = 0; i < n; i++)
        {
            final LmrTriplet t = iov[i];
            if (t == null || t.segmentLength < 0 || t.segmentLength > Integer.MAX_VALUE)
            {
                throw invalidParameter(DatArg.POST_LOCAL_IOV, "segment " + i + ": " + t);
            }
            final long off = i * Ibv.SGE_SIZE;
            sges.set(Native.LONG, off + Ibv.SGE_ADDR, t.virtualAddress);
            sges.set(Native.INT, off + Ibv.SGE_LENGTH, (int) t.segmentLength);
            sges.set(Native.INT, off + Ibv.SGE_LKEY, t.lmrContext);
            total += t.segmentLength;
        }
        return total;
    }

    // ---- connections ---------------------------------------------------------------------

    @Override
    public void connect(final IaAddress remoteIaAddress, final long remoteConnQual, final long timeoutMicros,
        final byte[] privateData, final int qos, final int connectFlags)
    {
        checkValid();
        if (remoteIaAddress == null || !remoteIaAddress.isInet()
            || !(remoteIaAddress.inet() instanceof java.net.Inet4Address))
        {
            throw new DatException(DatReturnType.INVALID_ADDRESS, "dat_ep_connect: " + remoteIaAddress
                + " is not an IPv4 address");
        }
        if (remoteConnQual < 0 || remoteConnQual > 0xFFFF)
        {
            throw invalidParameter(DatArg.EP_CONNECT_REMOTE_CONN_QUAL,
                "dat_ep_connect: connection qualifier " + remoteConnQual + " is not a port");
        }
        if (timeoutMicros <= 0)
        {
            throw invalidParameter(DatArg.EP_CONNECT_TIMEOUT, "dat_ep_connect: timeout " + timeoutMicros);
        }
        setPrivateData(privateData, DatArg.EP_CONNECT_PRIVATE_DATA_SIZE);
        final MemorySegment id;
        synchronized (this)
        {
            if (state != EpState.UNCONNECTED)
            {
                throw invalidState(stateSubtype(), "dat_ep_connect in state " + state);
            }
            id = ia.newCmId(this);
            try
            {
                ia.bindLocal(id, 0);
                attachQp(id);
            }
            catch (final RuntimeException e)
            {
                detach();
                throw e;
            }
            remoteAddress = remoteIaAddress.inet();
            remotePort = remoteConnQual;
            state = EpState.ACTIVE_CONNECTION_PENDING;
        }
        try (Arena a = Arena.ofConfined())
        {
            if (RdmaCm.resolveAddr(id, MemorySegment.NULL, Sockaddr.of(a, remoteAddress, (int) remoteConnQual),
                RESOLVE_MS) != 0)
            {
                final int errno = Native.errno();
                synchronized (this)
                {
                    state = EpState.UNCONNECTED;
                }
                detach();
                throw nativeFailure(DatReturnType.INVALID_ADDRESS, "rdma_resolve_addr", errno);
            }
        }
    }

    /** Writes the private data and the RDMA Read depths into the connection parameters. */
    private void setPrivateData(final byte[] data, final int arg)
    {
        final int len = data == null ? 0 : data.length;
        if (len > MAX_PRIVATE_DATA)
        {
            throw invalidParameter(arg, len + " bytes of private data (at most " + MAX_PRIVATE_DATA + ")");
        }
        synchronized (this)
        {
            if (len > 0)
            {
                MemorySegment.copy(data, 0, privateData, Native.BYTE, 0, len);
            }
            connParam.fill((byte) 0);
            connParam.set(Native.PTR, RdmaCm.CONN_PRIVATE_DATA, len > 0 ? privateData : MemorySegment.NULL);
            connParam.set(Native.BYTE, RdmaCm.CONN_PRIVATE_DATA_LEN, (byte) len);
            connParam.set(Native.BYTE, RdmaCm.CONN_RESPONDER_RESOURCES,
                (byte) Math.min(attr.maxRdmaReadIn, ia.maxQpRdAtom));
            connParam.set(Native.BYTE, RdmaCm.CONN_INITIATOR_DEPTH,
                (byte) Math.min(attr.maxRdmaReadOut, ia.maxQpInitRdAtom));
            connParam.set(Native.BYTE, RdmaCm.CONN_RETRY_COUNT, (byte) 7);
            connParam.set(Native.BYTE, RdmaCm.CONN_RNR_RETRY_COUNT, (byte) 7);
        }
    }

    /** Creates the QP on {@code id} and hands it the receives posted so far. Caller holds the lock. */
    private void attachQp(final MemorySegment id)
    {
        cmId = id;
        if (RdmaCm.createQp(id, pz.pd, initAttr) != 0)
        {
            throw nativeFailure(DatReturnType.INSUFFICIENT_RESOURCES, "rdma_create_qp", Native.errno());
        }
        qp = id.get(Native.PTR, RdmaCm.ID_QP);
        if (srq != null)
        {
            qpNum = qp.reinterpret(Ibv.QP_NUM + 4).get(Native.INT, Ibv.QP_NUM);
            ia.rememberQp(this);
        }
        giveRecvs();
    }

    /** {@code dat_cr_accept} on this endpoint: the QP goes on the request's id, then rdma_accept. */
    void accept(final VerbsCr cr, final byte[] data)
    {
        setPrivateData(data, DatArg.CR_ACCEPT_PRIVATE_DATA_SIZE);
        synchronized (this)
        {
            // a PSP's request goes to an idle endpoint; an RSP's to the one it reserved, now waiting for it
            final EpState ready = cr.reserved == this ? EpState.PASSIVE_CONNECTION_PENDING : EpState.UNCONNECTED;
            if (state != ready)
            {
                throw invalidState(stateSubtype(), "dat_cr_accept on an endpoint in state " + state);
            }
            ia.adoptCmId(cr.cmId, this);
            attachQp(cr.cmId);
            remoteAddress = cr.remoteAddress;
            remotePort = cr.remotePort;
            state = EpState.PASSIVE_CONNECTION_PENDING;
            if (RdmaCm.accept(cr.cmId, connParam) != 0)
            {
                final int errno = Native.errno();
                state = ready;
                throw nativeFailure(DatReturnType.INTERNAL_ERROR, "rdma_accept", errno);
            }
        }
    }

    /** {@code dat_rsp_create}: an idle endpoint becomes RESERVED for the RSP's one request. */
    synchronized void reserve()
    {
        checkValid();
        if (state != EpState.UNCONNECTED)
        {
            throw invalidState(stateSubtype(), "dat_rsp_create: the endpoint is in state " + state);
        }
        state = EpState.RESERVED;
    }

    /** The RSP's request arrived: RESERVED becomes PASSIVE_CONNECTION_PENDING; false if not reserved. */
    synchronized boolean requestArrived()
    {
        if (freed || state != EpState.RESERVED)
        {
            return false;
        }
        state = EpState.PASSIVE_CONNECTION_PENDING;
        return true;
    }

    /** {@code dat_rsp_free} before its request came: the endpoint is the consumer's again. */
    synchronized void unreserve()
    {
        if (state == EpState.RESERVED)
        {
            state = EpState.UNCONNECTED;
        }
    }

    /** {@code dat_cr_reject} of the RSP's request: the endpoint is the consumer's again. */
    synchronized void requestRejected()
    {
        if (state == EpState.PASSIVE_CONNECTION_PENDING && cmId == null)
        {
            state = EpState.UNCONNECTED;
        }
    }

    /** What the IA's rdma_cm thread saw for this endpoint's id. */
    void onCmEvent(final int type, final int status, final MemorySegment event)
    {
        final EventNumber out;
        byte[] data = null;
        synchronized (this)
        {
            if (freed)
            {
                return;
            }
            switch (type)
            {
                case RdmaCm.ADDR_RESOLVED ->
                {
                    if (RdmaCm.resolveRoute(cmId, RESOLVE_MS) == 0)
                    {
                        return;
                    }
                    out = EventNumber.CONNECTION_EVENT_UNREACHABLE;
                }
                case RdmaCm.ROUTE_RESOLVED ->
                {
                    if (RdmaCm.connect(cmId, connParam) == 0)
                    {
                        return;
                    }
                    out = EventNumber.CONNECTION_EVENT_UNREACHABLE;
                }
                case RdmaCm.ESTABLISHED ->
                {
                    if (state == EpState.ACTIVE_CONNECTION_PENDING)
                    {
                        data = privateDataOf(event);
                    }
                    state = EpState.CONNECTED;
                    out = EventNumber.CONNECTION_EVENT_ESTABLISHED;
                }
                case RdmaCm.REJECTED -> out = status == -111 || status == 111
                    ? EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED : EventNumber.CONNECTION_EVENT_PEER_REJECTED;
                case RdmaCm.ADDR_ERROR, RdmaCm.ROUTE_ERROR, RdmaCm.UNREACHABLE, RdmaCm.CONNECT_ERROR ->
                    out = state == EpState.PASSIVE_CONNECTION_PENDING
                        ? EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR
                        : status == -110 ? EventNumber.CONNECTION_EVENT_TIMED_OUT
                        : EventNumber.CONNECTION_EVENT_UNREACHABLE;
                case RdmaCm.DISCONNECTED, RdmaCm.DEVICE_REMOVAL ->
                {
                    if (state == EpState.DISCONNECTED)
                    {
                        return;
                    }
                    out = state == EpState.CONNECTED || state == EpState.DISCONNECT_PENDING
                        ? (type == RdmaCm.DISCONNECTED ? EventNumber.CONNECTION_EVENT_DISCONNECTED
                        : EventNumber.CONNECTION_EVENT_BROKEN)
                        : EventNumber.CONNECTION_EVENT_BROKEN;
                }
                default ->
                {
                    return; // CONNECT_RESPONSE (not with a QP), TIMEWAIT_EXIT, ...
                }
            }
            if (out != EventNumber.CONNECTION_EVENT_ESTABLISHED)
            {
                state = EpState.DISCONNECTED;
            }
        }
        connEvd.post(new VerbsEvd.SoftEvent(out.value(), this, data, null, null, null));
    }

    /** The private data of a connection event (param.conn), copied. */
    static byte[] privateDataOf(final MemorySegment event)
    {
        final MemorySegment e = event.reinterpret(RdmaCm.EVENT_SIZE);
        final MemorySegment p = e.get(Native.PTR, RdmaCm.EVENT_CONN + RdmaCm.CONN_PRIVATE_DATA);
        final int len = Byte.toUnsignedInt(e.get(Native.BYTE, RdmaCm.EVENT_CONN + RdmaCm.CONN_PRIVATE_DATA_LEN));
        if (p.equals(MemorySegment.NULL) || len == 0)
        {
            return new byte[0];
        }
        return p.reinterpret(len).toArray(Native.BYTE);
    }

    @Override
    public void dupConnect(final Endpoint dupEp, final long timeoutMicros, final byte[] privateData, final int qos)
    {
        checkValid();
        throw notImplemented("dat_ep_dup_connect");
    }

    @Override
    public void disconnect(final int disconnectFlags)
    {
        checkValid();
        final MemorySegment id;
        boolean report = false;
        synchronized (this)
        {
            switch (state)
            {
                case CONNECTED -> state = EpState.DISCONNECT_PENDING;
                case ACTIVE_CONNECTION_PENDING, PASSIVE_CONNECTION_PENDING ->
                {
                    state = EpState.DISCONNECTED;
                    report = true;
                }
                case DISCONNECT_PENDING, DISCONNECTED ->
                {
                    return;
                }
                default -> throw invalidState(stateSubtype(), "dat_ep_disconnect in state " + state);
            }
            id = cmId;
        }
        if (id != null)
        {
            RdmaCm.disconnect(id);
        }
        if (report)
        {
            connEvd.post(new VerbsEvd.SoftEvent(EventNumber.CONNECTION_EVENT_DISCONNECTED.value(), this, null, null,
                null, null));
        }
    }

    @Override
    public void reset()
    {
        checkValid();
        synchronized (this)
        {
            if (state == EpState.UNCONNECTED)
            {
                return;
            }
            if (state != EpState.DISCONNECTED)
            {
                throw invalidState(stateSubtype(), "dat_ep_reset in state " + state);
            }
        }
        detach();
        synchronized (this)
        {
            state = EpState.UNCONNECTED;
        }
    }

    /** Destroys the QP and the id (outside the lock: rdma_destroy_id waits for the rdma_cm thread). */
    private void detach()
    {
        final MemorySegment id;
        final MemorySegment q;
        synchronized (this)
        {
            id = cmId;
            q = qp;
            cmId = null;
            qp = null;
            if (qpNum != -1)
            {
                ia.forgetQp(this);
                qpNum = -1;
            }
            // receives on the old QP were flushed or are lost with it: give later ones to a new QP
            recvGiven = recvPosted;
        }
        if (id != null)
        {
            if (q != null)
            {
                RdmaCm.destroyQp(id);
            }
            ia.forgetCmId(id);
            RdmaCm.destroyId(id);
        }
    }

    @Override
    public void free()
    {
        checkValid();
        synchronized (this)
        {
            if (state == EpState.RESERVED || state == EpState.PASSIVE_CONNECTION_PENDING
                || state == EpState.TENTATIVE_CONNECTION_PENDING)
            {
                throw invalidState(stateSubtype(), "dat_ep_free in state " + state);
            }
        }
        destroy();
    }

    void destroy()
    {
        final MemorySegment id;
        synchronized (this)
        {
            if (freed)
            {
                return;
            }
            freed = true;
            id = cmId;
            if (id != null && (state == EpState.CONNECTED || state == EpState.DISCONNECT_PENDING
                || state == EpState.ACTIVE_CONNECTION_PENDING || state == EpState.PASSIVE_CONNECTION_PENDING))
            {
                RdmaCm.disconnect(id);
            }
            state = EpState.DISCONNECTED;
        }
        detach();
        ia.forgetEndpoint(this);
        pz.users.decrementAndGet();
        recvEvd.users.decrementAndGet();
        reqEvd.users.decrementAndGet();
        connEvd.users.decrementAndGet();
        if (srq != null)
        {
            srq.users.decrementAndGet();
        }
        arena.close();
        ia.forget(this);
    }

    @Override
    public void query(final long mask, final EpParam param)
    {
        checkValid();
        if (param == null)
        {
            throw invalidParameter(DatArg.QUERY_PARAM, "dat_ep_query: no EpParam");
        }
        synchronized (this)
        {
            param.iaHandle = ia;
            param.epState = state;
            param.localIaAddress = ia.address;
            param.remoteIaAddress = remoteAddress == null ? null : IaAddress.of(remoteAddress);
            param.remotePortQual = remotePort;
            param.pzHandle = pz;
            param.recvEvdHandle = recvEvd;
            param.requestEvdHandle = reqEvd;
            param.connectEvdHandle = connEvd;
            param.epAttr.copyFrom(attr);
        }
    }

    @Override
    public void modify(final long mask, final EpParam param)
    {
        checkValid();
        throw notImplemented("dat_ep_modify");
    }

    @Override
    public synchronized void getStatus(final EpStatus status)
    {
        checkValid();
        status.epState = state;
        status.recvIdle = recvCompleted.get() == recvPosted;
        status.requestIdle = sendCompleted.get() == sendPosted;
    }

    @Override
    public synchronized void recvQuery(final DatCount nbufsAllocated, final DatCount bufsAllocSpan)
    {
        checkValid();
        final int held = (int) (recvPosted - recvCompleted.get());
        if (nbufsAllocated != null)
        {
            nbufsAllocated.value = held;
        }
        if (bufsAllocSpan != null)
        {
            bufsAllocSpan.value = held;
        }
    }

    @Override
    public void setWatermark(final int softHighWatermark, final int hardHighWatermark)
    {
        checkValid();
        // the man page's answer when a provider has no endpoint watermarks
        throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED,
            "dat_ep_set_watermark: the verbs provider has no endpoint watermarks (verbs has no such event)");
    }

    private DatReturnSubtype stateSubtype()
    {
        return switch (state)
        {
            case UNCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED;
            case RESERVED -> DatReturnSubtype.INVALID_STATE_EP_RESERVED;
            case ACTIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING;
            case PASSIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING;
            case CONNECTED -> DatReturnSubtype.INVALID_STATE_EP_CONNECTED;
            case DISCONNECT_PENDING -> DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            case DISCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED;
            default -> DatReturnSubtype.NO_SUBTYPE;
        };
    }
}

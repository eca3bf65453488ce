package io.jdat.verbs;

import static io.jdat.verbs.Native.INT;
import static io.jdat.verbs.Native.LONG;
import static io.jdat.verbs.Native.PTR;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The parts of {@code libibverbs.so.1} the provider uses, bound by hand, and the struct layouts
 * it reads and writes (rdma-core's {@code <infiniband/verbs.h>}, x86-64 / aarch64 LP64; the
 * offsets are part of the library's ABI, stable since IBVERBS_1.1).
 *
 * <pre>
 * struct ibv_context   0 device*  8 ops (struct ibv_context_ops, function pointers:
 *                                       +88 poll_cq, +96 req_notify_cq, +160 post_srq_recv,
 *                                       +200 post_send, +208 post_recv)
 *                      264 cmd_fd  268 async_fd  272 num_comp_vectors
 * struct ibv_mr        0 context*  8 pd*  16 addr  24 length  32 handle  36 lkey  40 rkey
 * struct ibv_comp_channel  0 context*  8 fd  12 refcnt
 * struct ibv_qp        0 context*  ...  52 qp_num  56 state
 * struct ibv_wc (48)   0 wr_id  8 status  12 opcode  16 vendor_err  20 byte_len  24 imm_data
 *                      28 qp_num  32 src_qp  36 wc_flags  40 pkey_index  42 slid  44 sl  45 dlid_path_bits
 * struct ibv_sge (16)  0 addr  8 length  12 lkey
 * struct ibv_send_wr (128)  0 wr_id  8 next*  16 sg_list*  24 num_sge  28 opcode  32 send_flags
 *                      36 imm_data  40 wr.rdma.remote_addr  48 wr.rdma.rkey  ...
 * struct ibv_recv_wr (32)   0 wr_id  8 next*  16 sg_list*  24 num_sge
 * struct ibv_qp_init_attr (64)  0 qp_context*  8 send_cq*  16 recv_cq*  24 srq*
 *                      32 cap.max_send_wr  36 cap.max_recv_wr  40 cap.max_send_sge  44 cap.max_recv_sge
 *                      48 cap.max_inline_data  52 qp_type  56 sq_sig_all
 * struct ibv_device_attr (232)  80 max_mr_size  112 max_qp_wr  120 max_sge  132 max_cqe
 *                      144 max_qp_rd_atom  156 max_qp_init_rd_atom  176 max_mw  212 max_srq  216 max_srq_wr
 *                      220 max_srq_sge  227 phys_port_cnt (u8)
 * struct ibv_srq_init_attr (24)  0 srq_context*  8 attr.max_wr  12 attr.max_sge  16 attr.srq_limit
 * struct ibv_srq_attr (12)  0 max_wr  4 max_sge  8 srq_limit
 * struct ibv_async_event (16)  0 element (cq* / qp* / srq* / port_num)  8 event_type
 * </pre>
 */
final class Ibv
{
    static final long CONTEXT_OPS = 8;
    static final long OPS_POLL_CQ = 88;
    static final long OPS_REQ_NOTIFY_CQ = 96;
    static final long OPS_POST_SRQ_RECV = 160;
    static final long OPS_POST_SEND = 200;
    static final long OPS_POST_RECV = 208;

    static final long MR_ADDR = 16;
    static final long MR_LENGTH = 24;
    static final long MR_LKEY = 36;
    static final long MR_RKEY = 40;
    static final long MR_SIZE = 48;

    static final long COMP_CHANNEL_FD = 8;
    static final long QP_NUM = 52;
    static final long CONTEXT_ASYNC_FD = 268;

    static final long WC_SIZE = 48;
    static final long WC_WR_ID = 0;
    static final long WC_STATUS = 8;
    static final long WC_OPCODE = 12;
    static final long WC_VENDOR_ERR = 16;
    static final long WC_BYTE_LEN = 20;
    static final long WC_QP_NUM = 28;

    static final long SGE_SIZE = 16;
    static final long SGE_ADDR = 0;
    static final long SGE_LENGTH = 8;
    static final long SGE_LKEY = 12;

    static final long SEND_WR_SIZE = 128;
    static final long SEND_WR_ID = 0;
    static final long SEND_WR_NEXT = 8;
    static final long SEND_WR_SG_LIST = 16;
    static final long SEND_WR_NUM_SGE = 24;
    static final long SEND_WR_OPCODE = 28;
    static final long SEND_WR_FLAGS = 32;
    static final long SEND_WR_REMOTE_ADDR = 40;
    static final long SEND_WR_RKEY = 48;

    static final long RECV_WR_SIZE = 32;
    static final long RECV_WR_ID = 0;
    static final long RECV_WR_NEXT = 8;
    static final long RECV_WR_SG_LIST = 16;
    static final long RECV_WR_NUM_SGE = 24;

    static final long QP_INIT_ATTR_SIZE = 64;
    static final long QP_INIT_SEND_CQ = 8;
    static final long QP_INIT_RECV_CQ = 16;
    static final long QP_INIT_SRQ = 24;
    static final long QP_INIT_MAX_SEND_WR = 32;
    static final long QP_INIT_MAX_RECV_WR = 36;
    static final long QP_INIT_MAX_SEND_SGE = 40;
    static final long QP_INIT_MAX_RECV_SGE = 44;
    static final long QP_INIT_MAX_INLINE = 48;
    static final long QP_INIT_QP_TYPE = 52;
    static final long QP_INIT_SQ_SIG_ALL = 56;

    static final long DEVICE_ATTR_SIZE = 232;
    static final long DEVICE_ATTR_MAX_MR_SIZE = 80;
    static final long DEVICE_ATTR_MAX_QP_WR = 112;
    static final long DEVICE_ATTR_MAX_SGE = 120;
    static final long DEVICE_ATTR_MAX_CQE = 132;
    static final long DEVICE_ATTR_MAX_QP_RD_ATOM = 144;
    static final long DEVICE_ATTR_MAX_QP_INIT_RD_ATOM = 156;
    static final long DEVICE_ATTR_MAX_MW = 176;
    static final long DEVICE_ATTR_MAX_SRQ = 212;
    static final long DEVICE_ATTR_MAX_SRQ_WR = 216;
    static final long DEVICE_ATTR_MAX_SRQ_SGE = 220;

    static final long SRQ_INIT_ATTR_SIZE = 24;
    static final long SRQ_INIT_MAX_WR = 8;
    static final long SRQ_INIT_MAX_SGE = 12;
    static final long SRQ_ATTR_SIZE = 12;
    static final long SRQ_ATTR_MAX_WR = 0;
    static final long SRQ_ATTR_LIMIT = 8;
    /** {@code enum ibv_srq_attr_mask}. */
    static final int SRQ_MAX_WR = 1;
    static final int SRQ_LIMIT = 2;

    static final long ASYNC_EVENT_SIZE = 16;
    static final long ASYNC_EVENT_ELEMENT = 0;
    static final long ASYNC_EVENT_TYPE = 8;
    /** {@code enum ibv_event_type}. */
    static final int EVENT_SRQ_ERR = 14;
    static final int EVENT_SRQ_LIMIT_REACHED = 15;

    /** {@code enum ibv_wr_opcode}. */
    static final int WR_RDMA_WRITE = 0;
    static final int WR_SEND = 2;
    static final int WR_RDMA_READ = 4;
    /** {@code enum ibv_send_flags}. */
    static final int SEND_FENCE = 1;
    static final int SEND_SIGNALED = 2;
    static final int SEND_SOLICITED = 4;
    /** {@code enum ibv_access_flags}. */
    static final int ACCESS_LOCAL_WRITE = 1;
    static final int ACCESS_REMOTE_WRITE = 2;
    static final int ACCESS_REMOTE_READ = 4;
    static final int QPT_RC = 2;
    /** {@code enum ibv_wc_status}. */
    static final int WC_SUCCESS = 0;
    static final int WC_LOC_LEN_ERR = 1;
    static final int WC_LOC_QP_OP_ERR = 2;
    static final int WC_LOC_PROT_ERR = 4;
    static final int WC_WR_FLUSH_ERR = 5;
    static final int WC_BAD_RESP_ERR = 7;
    static final int WC_REM_INV_REQ_ERR = 9;
    static final int WC_REM_ACCESS_ERR = 10;
    static final int WC_REM_OP_ERR = 11;
    static final int WC_RETRY_EXC_ERR = 12;
    static final int WC_RNR_RETRY_EXC_ERR = 13;

    /** Null when the library is missing; {@link #WHY} says why. */
    static final SymbolLookup LIB;
    static final String WHY;

    private static final MethodHandle GET_DEVICE_LIST;
    private static final MethodHandle FREE_DEVICE_LIST;
    private static final MethodHandle GET_DEVICE_NAME;
    private static final MethodHandle QUERY_DEVICE;
    private static final MethodHandle ALLOC_PD;
    private static final MethodHandle DEALLOC_PD;
    private static final MethodHandle REG_MR;
    private static final MethodHandle DEREG_MR;
    private static final MethodHandle CREATE_COMP_CHANNEL;
    private static final MethodHandle DESTROY_COMP_CHANNEL;
    private static final MethodHandle CREATE_CQ;
    private static final MethodHandle DESTROY_CQ;
    private static final MethodHandle GET_CQ_EVENT;
    private static final MethodHandle ACK_CQ_EVENTS;
    private static final MethodHandle CREATE_SRQ;
    private static final MethodHandle MODIFY_SRQ;
    private static final MethodHandle DESTROY_SRQ;
    private static final MethodHandle GET_ASYNC_EVENT;
    private static final MethodHandle ACK_ASYNC_EVENT;

    static
    {
        final String[] why = new String[1];
        LIB = Native.library("libibverbs.so.1", why);
        WHY = why[0];
        if (LIB != null)
        {
            GET_DEVICE_LIST = Native.errnoCall(LIB, "ibv_get_device_list", FunctionDescriptor.of(PTR, PTR));
            FREE_DEVICE_LIST = Native.call(LIB, "ibv_free_device_list", FunctionDescriptor.ofVoid(PTR));
            GET_DEVICE_NAME = Native.call(LIB, "ibv_get_device_name", FunctionDescriptor.of(PTR, PTR));
            QUERY_DEVICE = Native.errnoCall(LIB, "ibv_query_device", FunctionDescriptor.of(INT, PTR, PTR));
            ALLOC_PD = Native.errnoCall(LIB, "ibv_alloc_pd", FunctionDescriptor.of(PTR, PTR));
            DEALLOC_PD = Native.call(LIB, "ibv_dealloc_pd", FunctionDescriptor.of(INT, PTR));
            REG_MR = Native.errnoCall(LIB, "ibv_reg_mr", FunctionDescriptor.of(PTR, PTR, PTR, LONG, INT));
            DEREG_MR = Native.call(LIB, "ibv_dereg_mr", FunctionDescriptor.of(INT, PTR));
            CREATE_COMP_CHANNEL = Native.errnoCall(LIB, "ibv_create_comp_channel", FunctionDescriptor.of(PTR, PTR));
            DESTROY_COMP_CHANNEL = Native.call(LIB, "ibv_destroy_comp_channel", FunctionDescriptor.of(INT, PTR));
            CREATE_CQ = Native.errnoCall(LIB, "ibv_create_cq",
                FunctionDescriptor.of(PTR, PTR, INT, PTR, PTR, INT));
            DESTROY_CQ = Native.call(LIB, "ibv_destroy_cq", FunctionDescriptor.of(INT, PTR));
            GET_CQ_EVENT = Native.errnoCall(LIB, "ibv_get_cq_event", FunctionDescriptor.of(INT, PTR, PTR, PTR));
            ACK_CQ_EVENTS = Native.call(LIB, "ibv_ack_cq_events", FunctionDescriptor.ofVoid(PTR, INT));
            CREATE_SRQ = Native.errnoCall(LIB, "ibv_create_srq", FunctionDescriptor.of(PTR, PTR, PTR));
            MODIFY_SRQ = Native.call(LIB, "ibv_modify_srq", FunctionDescriptor.of(INT, PTR, PTR, INT));
            DESTROY_SRQ = Native.call(LIB, "ibv_destroy_srq", FunctionDescriptor.of(INT, PTR));
            GET_ASYNC_EVENT = Native.call(LIB, "ibv_get_async_event", FunctionDescriptor.of(INT, PTR, PTR));
            ACK_ASYNC_EVENT = Native.call(LIB, "ibv_ack_async_event", FunctionDescriptor.ofVoid(PTR));
        }
        else
        {
            GET_DEVICE_LIST = FREE_DEVICE_LIST = GET_DEVICE_NAME = QUERY_DEVICE = ALLOC_PD = DEALLOC_PD = null;
            REG_MR = DEREG_MR = CREATE_COMP_CHANNEL = DESTROY_COMP_CHANNEL = CREATE_CQ = DESTROY_CQ = null;
            GET_CQ_EVENT = ACK_CQ_EVENTS = null;
            CREATE_SRQ = MODIFY_SRQ = DESTROY_SRQ = GET_ASYNC_EVENT = ACK_ASYNC_EVENT = null;
        }
    }

    private Ibv()
    {
    }

    static MemorySegment getDeviceList(final MemorySegment numDevices)
    {
        try
        {
            return (MemorySegment) GET_DEVICE_LIST.invokeExact(Native.state(), numDevices);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static void freeDeviceList(final MemorySegment list)
    {
        try
        {
            FREE_DEVICE_LIST.invokeExact(list);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static String deviceName(final MemorySegment device)
    {
        try
        {
            return Native.string((MemorySegment) GET_DEVICE_NAME.invokeExact(device));
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** 0 or an errno. */
    static int queryDevice(final MemorySegment context, final MemorySegment attr)
    {
        try
        {
            return (int) QUERY_DEVICE.invokeExact(Native.state(), context, attr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static MemorySegment allocPd(final MemorySegment context)
    {
        try
        {
            return (MemorySegment) ALLOC_PD.invokeExact(Native.state(), context);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int deallocPd(final MemorySegment pd)
    {
        try
        {
            return (int) DEALLOC_PD.invokeExact(pd);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static MemorySegment regMr(final MemorySegment pd, final MemorySegment addr, final long length, final int access)
    {
        try
        {
            return (MemorySegment) REG_MR.invokeExact(Native.state(), pd, addr, length, access);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int deregMr(final MemorySegment mr)
    {
        try
        {
            return (int) DEREG_MR.invokeExact(mr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static MemorySegment createCompChannel(final MemorySegment context)
    {
        try
        {
            return (MemorySegment) CREATE_COMP_CHANNEL.invokeExact(Native.state(), context);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int destroyCompChannel(final MemorySegment channel)
    {
        try
        {
            return (int) DESTROY_COMP_CHANNEL.invokeExact(channel);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static MemorySegment createCq(final MemorySegment context, final int cqe, final MemorySegment channel)
    {
        try
        {
            return (MemorySegment) CREATE_CQ.invokeExact(Native.state(), context, cqe, MemorySegment.NULL, channel,
                0);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int destroyCq(final MemorySegment cq)
    {
        try
        {
            return (int) DESTROY_CQ.invokeExact(cq);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Blocks until the channel has an event; writes the CQ into {@code cqOut}. 0 or -1 (errno). */
    static int getCqEvent(final MemorySegment channel, final MemorySegment cqOut, final MemorySegment contextOut)
    {
        try
        {
            return (int) GET_CQ_EVENT.invokeExact(Native.state(), channel, cqOut, contextOut);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static void ackCqEvents(final MemorySegment cq, final int n)
    {
        try
        {
            ACK_CQ_EVENTS.invokeExact(cq, n);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_srq}; NULL (errno) on failure; writes the sizes it gave into {@code initAttr}. */
    static MemorySegment createSrq(final MemorySegment pd, final MemorySegment initAttr)
    {
        try
        {
            return (MemorySegment) CREATE_SRQ.invokeExact(Native.state(), pd, initAttr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** {@code ibv_modify_srq}: 0 or an errno. */
    static int modifySrq(final MemorySegment srq, final MemorySegment attr, final int mask)
    {
        try
        {
            return (int) MODIFY_SRQ.invokeExact(srq, attr, mask);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int destroySrq(final MemorySegment srq)
    {
        try
        {
            return (int) DESTROY_SRQ.invokeExact(srq);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Blocks until the context has an async event (poll its async_fd first); 0 or -1. */
    static int getAsyncEvent(final MemorySegment context, final MemorySegment event)
    {
        try
        {
            return (int) GET_ASYNC_EVENT.invokeExact(context, event);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static void ackAsyncEvent(final MemorySegment event)
    {
        try
        {
            ACK_ASYNC_EVENT.invokeExact(event);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** The inline verbs of one device context: its ops table's function pointers, bound once. */
    static final class Ops
    {
        /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
        final MethodHandle pollCq;
        /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)}. */
        final MethodHandle reqNotifyCq;
        /** {@code int post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad)}. */
        final MethodHandle postSend;
        /** {@code int post_recv(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **bad)}. */
        final MethodHandle postRecv;
        /** {@code int post_srq_recv(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **bad)}. */
        final MethodHandle postSrqRecv;

        Ops(final MemorySegment context)
        {
            final MemorySegment ctx = context.reinterpret(CONTEXT_OPS + 256);
            pollCq = Native.pointerCall(ctx.get(PTR, CONTEXT_OPS + OPS_POLL_CQ),
                FunctionDescriptor.of(INT, PTR, INT, PTR));
            reqNotifyCq = Native.pointerCall(ctx.get(PTR, CONTEXT_OPS + OPS_REQ_NOTIFY_CQ),
                FunctionDescriptor.of(INT, PTR, INT));
            postSend = Native.pointerCall(ctx.get(PTR, CONTEXT_OPS + OPS_POST_SEND),
                FunctionDescriptor.of(INT, PTR, PTR, PTR));
            postRecv = Native.pointerCall(ctx.get(PTR, CONTEXT_OPS + OPS_POST_RECV),
                FunctionDescriptor.of(INT, PTR, PTR, PTR));
            postSrqRecv = Native.pointerCall(ctx.get(PTR, CONTEXT_OPS + OPS_POST_SRQ_RECV),
                FunctionDescriptor.of(INT, PTR, PTR, PTR));
        }
    }

    static RuntimeException rethrow(final Throwable t)
    {
        if (t instanceof RuntimeException r)
        {
            return r;
        }
        if (t instanceof Error e)
        {
            throw e;
        }
        return new IllegalStateException(t);
    }
}

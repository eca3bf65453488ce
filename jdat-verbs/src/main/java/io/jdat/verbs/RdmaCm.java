package io.jdat.verbs;

import static io.jdat.verbs.Native.INT;
import static io.jdat.verbs.Native.PTR;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The parts of {@code librdmacm.so.1} the provider uses, bound by hand, and the struct layouts
 * it reads and writes (rdma-core's {@code <rdma/rdma_cma.h>}, LP64).
 *
 * <pre>
 * struct rdma_event_channel  0 fd
 * struct rdma_cm_id    0 verbs* (ibv_context)  8 channel*  16 context  24 qp*
 *                      32 route.addr.src_addr (sockaddr_storage, 128)  160 route.addr.dst_addr
 * struct rdma_cm_event (80)  0 id*  8 listen_id*  16 event  20 status  24 param.conn
 * struct rdma_conn_param (24)  0 private_data*  8 private_data_len (u8)  9 responder_resources
 *                      10 initiator_depth  11 flow_control  12 retry_count  13 rnr_retry_count
 *                      14 srq  16 qp_num
 * struct sockaddr_in (16)  0 family (AF_INET = 2)  2 port (big-endian)  4 addr (big-endian)
 * </pre>
 */
final class RdmaCm
{
    static final long CHANNEL_FD = 0;
    static final long ID_VERBS = 0;
    static final long ID_CONTEXT = 16;
    static final long ID_QP = 24;
    static final long ID_SRC_ADDR = 32;
    static final long ID_DST_ADDR = 160;
    static final long ID_SIZE = 408;

    static final long EVENT_ID = 0;
    static final long EVENT_LISTEN_ID = 8;
    static final long EVENT_EVENT = 16;
    static final long EVENT_STATUS = 20;
    static final long EVENT_CONN = 24;
    static final long EVENT_SIZE = 80;

    static final long CONN_PARAM_SIZE = 24;
    static final long CONN_PRIVATE_DATA = 0;
    static final long CONN_PRIVATE_DATA_LEN = 8;
    static final long CONN_RESPONDER_RESOURCES = 9;
    static final long CONN_INITIATOR_DEPTH = 10;
    static final long CONN_RETRY_COUNT = 12;
    static final long CONN_RNR_RETRY_COUNT = 13;

    static final long SOCKADDR_IN_SIZE = 16;

    /** {@code enum rdma_port_space}. */
    static final int PS_TCP = 0x0106;

    /** {@code enum rdma_cm_event_type}. */
    static final int ADDR_RESOLVED = 0;
    static final int ADDR_ERROR = 1;
    static final int ROUTE_RESOLVED = 2;
    static final int ROUTE_ERROR = 3;
    static final int CONNECT_REQUEST = 4;
    static final int CONNECT_RESPONSE = 5;
    static final int CONNECT_ERROR = 6;
    static final int UNREACHABLE = 7;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int DEVICE_REMOVAL = 11;
    static final int TIMEWAIT_EXIT = 15;

    static final SymbolLookup LIB;
    static final String WHY;

    private static final MethodHandle CREATE_EVENT_CHANNEL;
    private static final MethodHandle DESTROY_EVENT_CHANNEL;
    private static final MethodHandle CREATE_ID;
    private static final MethodHandle DESTROY_ID;
    private static final MethodHandle BIND_ADDR;
    private static final MethodHandle RESOLVE_ADDR;
    private static final MethodHandle RESOLVE_ROUTE;
    private static final MethodHandle CREATE_QP;
    private static final MethodHandle DESTROY_QP;
    private static final MethodHandle CONNECT;
    private static final MethodHandle LISTEN;
    private static final MethodHandle ACCEPT;
    private static final MethodHandle REJECT;
    private static final MethodHandle DISCONNECT;
    private static final MethodHandle GET_CM_EVENT;
    private static final MethodHandle ACK_CM_EVENT;

    static
    {
        final String[] why = new String[1];
        LIB = Native.library("librdmacm.so.1", why);
        WHY = why[0];
        if (LIB != null)
        {
            CREATE_EVENT_CHANNEL = Native.errnoCall(LIB, "rdma_create_event_channel", FunctionDescriptor.of(PTR));
            DESTROY_EVENT_CHANNEL = Native.call(LIB, "rdma_destroy_event_channel", FunctionDescriptor.ofVoid(PTR));
            CREATE_ID = Native.errnoCall(LIB, "rdma_create_id", FunctionDescriptor.of(INT, PTR, PTR, PTR, INT));
            DESTROY_ID = Native.errnoCall(LIB, "rdma_destroy_id", FunctionDescriptor.of(INT, PTR));
            BIND_ADDR = Native.errnoCall(LIB, "rdma_bind_addr", FunctionDescriptor.of(INT, PTR, PTR));
            RESOLVE_ADDR = Native.errnoCall(LIB, "rdma_resolve_addr", FunctionDescriptor.of(INT, PTR, PTR, PTR, INT));
            RESOLVE_ROUTE = Native.errnoCall(LIB, "rdma_resolve_route", FunctionDescriptor.of(INT, PTR, INT));
            CREATE_QP = Native.errnoCall(LIB, "rdma_create_qp", FunctionDescriptor.of(INT, PTR, PTR, PTR));
            DESTROY_QP = Native.call(LIB, "rdma_destroy_qp", FunctionDescriptor.ofVoid(PTR));
            CONNECT = Native.errnoCall(LIB, "rdma_connect", FunctionDescriptor.of(INT, PTR, PTR));
            LISTEN = Native.errnoCall(LIB, "rdma_listen", FunctionDescriptor.of(INT, PTR, INT));
            ACCEPT = Native.errnoCall(LIB, "rdma_accept", FunctionDescriptor.of(INT, PTR, PTR));
            REJECT = Native.errnoCall(LIB, "rdma_reject", FunctionDescriptor.of(INT, PTR, PTR, Native.BYTE));
            DISCONNECT = Native.errnoCall(LIB, "rdma_disconnect", FunctionDescriptor.of(INT, PTR));
            GET_CM_EVENT = Native.errnoCall(LIB, "rdma_get_cm_event", FunctionDescriptor.of(INT, PTR, PTR));
            ACK_CM_EVENT = Native.errnoCall(LIB, "rdma_ack_cm_event", FunctionDescriptor.of(INT, PTR));
        }
        else
        {
            CREATE_EVENT_CHANNEL = DESTROY_EVENT_CHANNEL = CREATE_ID = DESTROY_ID = BIND_ADDR = RESOLVE_ADDR = null;
            RESOLVE_ROUTE = CREATE_QP = DESTROY_QP = CONNECT = LISTEN = ACCEPT = REJECT = DISCONNECT = null;
            GET_CM_EVENT = ACK_CM_EVENT = null;
        }
    }

    private RdmaCm()
    {
    }

    static MemorySegment createEventChannel()
    {
        try
        {
            return (MemorySegment) CREATE_EVENT_CHANNEL.invokeExact(Native.state());
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static void destroyEventChannel(final MemorySegment channel)
    {
        try
        {
            DESTROY_EVENT_CHANNEL.invokeExact(channel);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    /** 0, or -1 with errno. {@code idOut} receives the {@code rdma_cm_id*}. */
    static int createId(final MemorySegment channel, final MemorySegment idOut, final long context)
    {
        try
        {
            return (int) CREATE_ID.invokeExact(Native.state(), channel, idOut, MemorySegment.ofAddress(context),
                PS_TCP);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static int destroyId(final MemorySegment id)
    {
        return call2(DESTROY_ID, id);
    }

    static int bindAddr(final MemorySegment id, final MemorySegment sockaddr)
    {
        return call3(BIND_ADDR, id, sockaddr);
    }

    static int resolveAddr(final MemorySegment id, final MemorySegment src, final MemorySegment dst,
        final int timeoutMs)
    {
        try
        {
            return (int) RESOLVE_ADDR.invokeExact(Native.state(), id, src, dst, timeoutMs);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static int resolveRoute(final MemorySegment id, final int timeoutMs)
    {
        try
        {
            return (int) RESOLVE_ROUTE.invokeExact(Native.state(), id, timeoutMs);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static int createQp(final MemorySegment id, final MemorySegment pd, final MemorySegment initAttr)
    {
        try
        {
            return (int) CREATE_QP.invokeExact(Native.state(), id, pd, initAttr);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static void destroyQp(final MemorySegment id)
    {
        try
        {
            DESTROY_QP.invokeExact(id);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static int connect(final MemorySegment id, final MemorySegment connParam)
    {
        return call3(CONNECT, id, connParam);
    }

    static int listen(final MemorySegment id, final int backlog)
    {
        try
        {
            return (int) LISTEN.invokeExact(Native.state(), id, backlog);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static int accept(final MemorySegment id, final MemorySegment connParam)
    {
        return call3(ACCEPT, id, connParam);
    }

    static int reject(final MemorySegment id)
    {
        try
        {
            return (int) REJECT.invokeExact(Native.state(), id, MemorySegment.NULL, (byte) 0);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    static int disconnect(final MemorySegment id)
    {
        return call2(DISCONNECT, id);
    }

    /** Blocks until the channel has an event (poll its fd first). 0, or -1 with errno. */
    static int getCmEvent(final MemorySegment channel, final MemorySegment eventOut)
    {
        return call3(GET_CM_EVENT, channel, eventOut);
    }

    static int ackCmEvent(final MemorySegment event)
    {
        return call2(ACK_CM_EVENT, event);
    }

    private static int call2(final MethodHandle h, final MemorySegment a)
    {
        try
        {
            return (int) h.invokeExact(Native.state(), a);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    private static int call3(final MethodHandle h, final MemorySegment a, final MemorySegment b)
    {
        try
        {
            return (int) h.invokeExact(Native.state(), a, b);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }
}

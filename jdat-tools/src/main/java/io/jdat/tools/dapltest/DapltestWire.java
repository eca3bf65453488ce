package io.jdat.tools.dapltest;

import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * OFED dapltest's messages ({@code test/dapltest/}), little-endian as dapltest sends them from an
 * x86 host, packed (dapltest builds with {@code pack(2)}, and {@code pack(1)} for the remote
 * memory table). On the control connection the client Sends {@code Client_Info} and the command
 * (for {@code -T T}: {@code Transaction_Cmd}), each in a buffer of 8192 bytes, and the server
 * answers {@code Server_Info}; each test endpoint then Sends a table of 100 remote memory entries
 * ({@code RemoteMemoryInfo}: RMR context u32, address u64) and 64-byte sync messages.
 */
final class DapltestWire
{
    /** dapltest's {@code DAPLTEST_VERSION}. */
    static final int VERSION = 6;
    /** The size of every control message (dapltest's buffer pool entries). */
    static final int CONTROL_SIZE = 8192;
    /** dapltest's default server port ({@code SERVER_PORT_NUMBER}). */
    static final long SERVER_PORT = 62000;
    /** dapltest's {@code MAX_OPS}. */
    static final int MAX_OPS = 100;
    /** One {@code RemoteMemoryInfo}: rmr_context u32, then the address u64, packed. */
    static final int RMI_ENTRY = 12;
    /** The remote memory table each test endpoint Sends. */
    static final int RMI_SIZE = MAX_OPS * RMI_ENTRY;
    /** A sync message. */
    static final int SYNC_SIZE = 64;
    /** The private data of every test connection (30 bytes, no NUL). */
    static final String TEST_EP_PRIVATE_DATA = "DAPL and RDMA rule! Test 4321.";
    /** A performance test's one remote memory entry, its sync message. */
    static final int PERF_SYNC_SIZE = RMI_ENTRY;
    /** Most bytes one op of a served test may move. */
    static final long MAX_OP_BYTES = 64L << 20;
    /** Most endpoints one served transaction test may ask for. */
    static final int MAX_EPS = 256;
    /** {@code Transaction_Cmd_t}: where the op array starts, and the bytes of one op. */
    private static final int OPS_AT = 568;
    private static final int OP_SIZE = 20;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private DapltestWire()
    {
    }

    /** {@code Client_Info.test_type}: the test a client asks the server for. */
    enum TestType
    {
        TRANSACTION(1),
        PERFORMANCE(2),
        /** The client's alone: dapltest's server does not serve it. */
        LIMIT(3),
        /** Stops the server. */
        QUIT(4),
        /** The client's alone, as a limit test. */
        FFT(5);

        private static final TestType[] BY_WIRE = values();

        /** The value on the wire. */
        final int wire;

        TestType(final int wire)
        {
            this.wire = wire;
        }

        /** The type of a wire value, or null when dapltest has none of that value. */
        static TestType of(final int wire)
        {
            return wire >= 1 && wire <= BY_WIRE.length ? BY_WIRE[wire - 1] : null;
        }
    }

    /** {@code Client_Info}: version, little-endian flag, test type, total threads. */
    static void clientInfo(final MemorySegment at, final TestType testType, final int totalThreads)
    {
        at.asSlice(0, CONTROL_SIZE).fill((byte) 0);
        at.set(U32, 0, VERSION);
        at.set(U32, 4, 1);
        at.set(U32, 8, testType.wire);
        at.set(U32, 12, totalThreads);
    }

    /**
     * {@code Transaction_Cmd_t}: version, client_is_little_endian, server_name[256],
     * num_iterations, num_threads, eps_per_thread, use_cno, use_rsp, debug, validate, poll,
     * port (u64), dapl_name[256], QoS, num_ops, then 100 ops of {server_initiated,
     * transfer_type (0 RR, 1 RW, 2 SR), num_segs, seg_size, reap_send_on_recv}.
     */
    static void transactionCmd(final MemorySegment at, final String serverName, final TransactionParams p,
        final long port, final String daplName)
    {
        at.asSlice(0, CONTROL_SIZE).fill((byte) 0);
        at.set(U32, 0, VERSION);
        at.set(U32, 4, 1);
        putString(at, 8, serverName);
        at.set(U32, 264, p.iters());
        at.set(U32, 268, p.threads());
        at.set(U32, 272, p.eps());
        at.set(U32, 276, p.mode() == Completion.CNO ? 1 : 0);
        at.set(U32, 280, p.rsp() ? 1 : 0);
        at.set(U32, 288, p.validate() ? 1 : 0);
        at.set(U32, 292, p.mode() == Completion.POLL ? 1 : 0);
        at.set(U64, 296, port);
        putString(at, 304, daplName);
        at.set(U32, 564, p.ops().size());
        for (int i = 0; i < p.ops().size(); i++)
        {
            final TestOp op = p.ops().get(i);
            final long o = OPS_AT + (long) i * OP_SIZE;
            at.set(U32, o, op.byClient() ? 0 : 1);
            at.set(U32, o + 4, transferType(op.type()));
            at.set(U32, o + 8, op.segs());
            at.set(U32, o + 12, (int) op.segSize());
        }
    }

    /**
     * {@code Quit_Cmd_t}: server_name[256], device_name[256], QoS. dapltest's server reads it
     * and answers {@code Server_Info} before it stops.
     */
    static void quitCmd(final MemorySegment at, final String serverName, final String deviceName)
    {
        at.asSlice(0, CONTROL_SIZE).fill((byte) 0);
        putString(at, 0, serverName);
        putString(at, 256, deviceName);
    }

    /**
     * {@code Client_Info} of {@code received} bytes: dapltest's version, little-endian, a test
     * type and the total number of threads, unchecked. Anything else fails with a {@link CheckFailed}
     * naming it.
     */
    static ClientInfo clientInfo(final MemorySegment at, final long received)
    {
        if (received != CONTROL_SIZE)
        {
            throw new CheckFailed("the client's Client_Info is " + received + " bytes, dapltest's is " + CONTROL_SIZE);
        }
        checkHeader(at, "Client_Info");
        final int wire = at.get(U32, 8);
        final int threads = at.get(U32, 12);
        final TestType type = TestType.of(wire);
        if (type == null)
        {
            throw new CheckFailed("the client's Client_Info names test type " + Integer.toUnsignedString(wire)
                + ", dapltest's are 1 to " + TestType.values().length);
        }
        return new ClientInfo(type, threads);
    }

    /**
     * What a {@code Client_Info} says: the test type and the total number of threads (dapltest
     * counts threads x endpoints for a transaction test, 0 for a quit; the commands say what runs).
     */
    record ClientInfo(TestType testType, int totalThreads)
    {
    }

    private static void checkHeader(final MemorySegment at, final String what)
    {
        final int version = at.get(U32, 0);
        if (version != VERSION)
        {
            throw new CheckFailed("the client's " + what + " says dapltest version " + Integer.toUnsignedString(version)
                + ", this server speaks " + VERSION);
        }
        if (at.get(U32, 4) != 1)
        {
            throw new CheckFailed("the client's " + what + " is not little-endian (" + Integer.toUnsignedString(
                at.get(U32, 4)) + "): a big-endian client is not supported");
        }
    }

    /**
     * The test a {@code Transaction_Cmd} of {@code received} bytes asks for, checked: at most
     * {@link #MAX_OPS} ops of known types, each of 1 to 64 segments and at most
     * {@link #MAX_OP_BYTES}, at most {@link #MAX_EPS} endpoints, and with validation the three
     * barrier Sends last. Anything else fails with a {@link CheckFailed} naming it.
     */
    static TransactionParams transaction(final MemorySegment at, final long received)
    {
        if (received != CONTROL_SIZE)
        {
            throw new CheckFailed("the client's Transaction_Cmd is " + received + " bytes, dapltest's is "
                + CONTROL_SIZE);
        }
        checkHeader(at, "Transaction_Cmd");
        final long iters = Integer.toUnsignedLong(at.get(U32, 264));
        final long threads = Integer.toUnsignedLong(at.get(U32, 268));
        final long eps = Integer.toUnsignedLong(at.get(U32, 272));
        final long nops = Integer.toUnsignedLong(at.get(U32, 564));
        if (iters < 1 || iters > Integer.MAX_VALUE || threads < 1 || eps < 1 || threads * eps > MAX_EPS)
        {
            throw new CheckFailed("the client's Transaction_Cmd asks for " + iters + " iterations, " + threads
                + " threads x " + eps + " endpoints; served: at least one of each, at most " + MAX_EPS + " endpoints");
        }
        if (nops < 1 || nops > MAX_OPS)
        {
            throw new CheckFailed("the client's Transaction_Cmd has " + nops + " ops, dapltest's limit is " + MAX_OPS);
        }
        final List<TestOp> ops = new java.util.ArrayList<>();
        for (int i = 0; i < nops; i++)
        {
            final long o = OPS_AT + (long) i * OP_SIZE;
            final int by = at.get(U32, o);
            final int type = at.get(U32, o + 4);
            final TestOp.Type t = transferType(type);
            final long segs = Integer.toUnsignedLong(at.get(U32, o + 8));
            final long size = Integer.toUnsignedLong(at.get(U32, o + 12));
            if ((by != 0 && by != 1) || t == null || segs < 1 || segs > 64 || size < 1
                || size * segs > MAX_OP_BYTES)
            {
                throw new CheckFailed("the client's Transaction_Cmd op " + i + " is {server_initiated " + by
                    + ", transfer_type " + type + ", num_segs " + segs + ", seg_size " + size + "}: served are 0 or 1, "
                    + "0 (RR) to 2 (SR), 1 to 64 segments, 1 to " + MAX_OP_BYTES + " bytes in all");
            }
            ops.add(new TestOp(by == 0, t, size, (int) segs, false));
        }
        final boolean validate = at.get(U32, 288) != 0;
        if (validate && (nops < 4 || ops.subList((int) nops - 3, (int) nops).stream()
            .anyMatch(op -> op.type() != TestOp.Type.SR)))
        {
            throw new CheckFailed("the client's Transaction_Cmd asks for validation without dapltest's three barrier "
                + "Sends at the end of its op list");
        }
        final boolean poll = at.get(U32, 292) != 0;
        final boolean cno = at.get(U32, 276) != 0;
        return new TransactionParams((int) threads, (int) eps, (int) iters, validate,
            poll ? Completion.POLL : cno ? Completion.CNO : Completion.WAIT, at.get(U32, 280) != 0, ops, false);
    }

    /**
     * {@code Performance_Cmd_t}: version, client_is_little_endian, server_name[256],
     * dapl_name[256], QoS, debug, mode (0 blocking, 1 polling), num_iterations, pipeline_len,
     * op {transfer_type, seg_size, num_segs}, use_rsp.
     */
    static PerformanceCmd performance(final MemorySegment at, final long received)
    {
        if (received != CONTROL_SIZE)
        {
            throw new CheckFailed("the client's Performance_Cmd is " + received + " bytes, dapltest's is "
                + CONTROL_SIZE);
        }
        checkHeader(at, "Performance_Cmd");
        final int mode = at.get(U32, 528);
        final long iters = Integer.toUnsignedLong(at.get(U32, 532));
        final long pipeline = Integer.toUnsignedLong(at.get(U32, 536));
        final int type = at.get(U32, 540);
        final TestOp.Type t = transferType(type);
        final long size = Integer.toUnsignedLong(at.get(U32, 544));
        final long segs = Integer.toUnsignedLong(at.get(U32, 548));
        if ((t != TestOp.Type.RR && t != TestOp.Type.RW) || segs < 1 || segs > 64 || size < 1
            || size * segs > MAX_OP_BYTES || iters < 1 || iters > Integer.MAX_VALUE)
        {
            throw new CheckFailed("the client's Performance_Cmd asks for transfer_type " + type + ", " + segs
                + " segments of " + size + " bytes, " + iters + " iterations: served are RR (0) or RW (1), 1 to 64 "
                + "segments, 1 to " + MAX_OP_BYTES + " bytes in all, at least one iteration");
        }
        return new PerformanceCmd(t, size, (int) segs, iters, pipeline,
            mode != 0);
    }

    /** Writes a {@code Performance_Cmd} asking for {@code p}, as dapltest {@code -T P} does. */
    static void performanceCmd(final MemorySegment at, final String serverName, final String daplName,
        final PerformanceCmd p)
    {
        at.asSlice(0, CONTROL_SIZE).fill((byte) 0);
        at.set(U32, 0, VERSION);
        at.set(U32, 4, 1);
        putString(at, 8, serverName);
        putString(at, 264, daplName);
        at.set(U32, 528, p.poll() ? 1 : 0);
        at.set(U32, 532, (int) p.iterations());
        at.set(U32, 536, (int) p.pipeline());
        at.set(U32, 540, transferType(p.type()));
        at.set(U32, 544, (int) p.segSize());
        at.set(U32, 548, p.segs());
    }

    /** What a {@code Performance_Cmd} asks for: an RDMA Read or an RDMA Write, as dapltest has no other. */
    record PerformanceCmd(TestOp.Type type, long segSize, int segs, long iterations, long pipeline, boolean poll)
    {
        PerformanceCmd
        {
            if (type != TestOp.Type.RR && type != TestOp.Type.RW)
            {
                throw new IllegalArgumentException("a dapltest performance test is RR or RW, not " + type);
            }
        }

        long length()
        {
            return segSize * segs;
        }
    }

    /** An op's {@code transfer_type} on the wire (dapltest's {@code DT_Transfer_Type}). */
    static int transferType(final TestOp.Type type)
    {
        return switch (type)
        {
            case RR -> 0;
            case RW -> 1;
            case SR -> 2;
        };
    }

    /** The op type of a wire {@code transfer_type}, or null when dapltest has none of that value. */
    static TestOp.Type transferType(final int wire)
    {
        return switch (wire)
        {
            case 0 -> TestOp.Type.RR;
            case 1 -> TestOp.Type.RW;
            case 2 -> TestOp.Type.SR;
            default -> null;
        };
    }

    /** {@code Server_Info}: version, little-endian, the first port of the test connections. */
    static void serverInfo(final MemorySegment at, final long firstPort)
    {
        at.asSlice(0, CONTROL_SIZE).fill((byte) 0);
        at.set(U32, 0, VERSION);
        at.set(U32, 4, 1);
        at.set(U32, 8, (int) firstPort);
    }

    /** One remote memory entry: rmr_context u32, then the address u64. */
    static void putEntry(final MemorySegment at, final long rmrContext, final long address)
    {
        at.set(U32, 0, (int) rmrContext);
        at.set(U64, 4, address);
    }

    private static void putString(final MemorySegment at, final long offset, final String s)
    {
        final byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, at, offset, Math.min(b.length, 255));
    }

    /**
     * The first port of the test connections from a {@code Server_Info} of {@code received}
     * bytes: version, little-endian flag, first_port_number. Anything else fails with a
     * {@link CheckFailed} naming it.
     */
    static long firstPort(final MemorySegment at, final long received)
    {
        if (received != CONTROL_SIZE)
        {
            throw new CheckFailed("the server's Server_Info is " + received + " bytes, dapltest's is " + CONTROL_SIZE);
        }
        final int version = at.get(U32, 0);
        if (version != VERSION)
        {
            throw new CheckFailed("the server speaks dapltest version " + version + ", this client " + VERSION);
        }
        if (at.get(U32, 4) != 1)
        {
            throw new CheckFailed("the server is big-endian (Server_Info.is_little_endian 0): not supported");
        }
        final long first = Integer.toUnsignedLong(at.get(U32, 8));
        if (first == 0 || first > 65535)
        {
            throw new CheckFailed("the server's first test port is " + first);
        }
        return first;
    }

    /** Writes the remote memory table: entry k for op k (zero where the peer does no RDMA on it). */
    static void putRmi(final MemorySegment at, final List<long[]> entries)
    {
        at.asSlice(0, RMI_SIZE).fill((byte) 0);
        for (int k = 0; k < entries.size(); k++)
        {
            if (entries.get(k) != null)
            {
                at.set(U32, (long) k * RMI_ENTRY, (int) entries.get(k)[0]);
                at.set(U64, (long) k * RMI_ENTRY + 4, entries.get(k)[1]);
            }
        }
    }

    /** Entry {@code k} of a received remote memory table: {rmr_context, address}. */
    static long[] rmi(final MemorySegment at, final int k)
    {
        return new long[] {Integer.toUnsignedLong(at.get(U32, (long) k * RMI_ENTRY)),
            at.get(U64, (long) k * RMI_ENTRY + 4)};
    }
}

package io.jdat.tools.test;

import io.jdat.tools.dat.CheckFailed;
import io.jdat.tools.dat.Completion;
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
    /** {@code Client_Info.test_type} of a transaction test. */
    static final int TRANSACTION_TEST = 1;
    /** {@code Transaction_Cmd_t}: where the op array starts, and the bytes of one op. */
    private static final int OPS_AT = 568;
    private static final int OP_SIZE = 20;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private DapltestWire()
    {
    }

    /** {@code Client_Info}: version, little-endian flag, test type, total threads. */
    static void clientInfo(final MemorySegment at, final int testType, final int totalThreads)
    {
        at.asSlice(0, CONTROL_SIZE).fill((byte) 0);
        at.set(U32, 0, VERSION);
        at.set(U32, 4, 1);
        at.set(U32, 8, testType);
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
            at.set(U32, o + 4, switch (op.type())
            {
                case RR -> 0;
                case RW -> 1;
                case SR -> 2;
            });
            at.set(U32, o + 8, op.segs());
            at.set(U32, o + 12, (int) op.segSize());
        }
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
        return new long[] {Integer.toUnsignedLong(at.get(U32, (long) k * RMI_ENTRY)), at.get(U64, (long) k * RMI_ENTRY + 4)};
    }
}

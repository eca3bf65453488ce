package io.jdat.tools.dapltest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code jdat test server} serving clients on OFED dapltest's wire: jdat's own dapltest client
 * (the one that passes against the real {@code dapltest -T S}), a {@code -T P} client and a
 * quit, written here as dapltest writes them; and clients that send what no dapltest sends, each
 * of which ends its session with an error naming it, while the server serves on.
 */
class DapltestServerTest
{
    private static final long TIMEOUT = 10_000_000;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final StringWriter log = new StringWriter();
    private TestServer server;
    private Thread serving;
    private Node client;

    @BeforeEach
    void start()
    {
        server = new TestServer("loopback", -1, new PrintWriter(log, true), TIMEOUT);
        serving = new Thread(server::serve, "test-server");
        serving.start();
        client = Node.open("loopback");
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        client.close();
        server.stop();
        serving.join(TIMEOUT / 1000 + 2000);
        server.close();
    }

    private String log()
    {
        synchronized (log)
        {
            return log.toString();
        }
    }

    /** Waits until the server's log has {@code text}; false after 20 s. */
    private boolean logged(final String text) throws InterruptedException
    {
        for (int i = 0; i < 400 && !log().contains(text); i++)
        {
            Thread.sleep(50);
        }
        return log().contains(text);
    }

    /**
     * jdat's dapltest client against the server: every op type, segments, validation or not, each
     * way of awaiting completions, and PSPs or the RSPs the server reserves when the client asks.
     */
    @ParameterizedTest(name = "{0} x {1} EPs x {2}, validate {3}, {4}, rsp {5}: {6}")
    @CsvSource(delimiter = '|', value = {
        "2|2|10|true|WAIT|false|client SR 256 server RW 4096 client RR 4096 server SR 100 3 client RW 64 2 server RR 8",
        "1|3|5|false|POLL|false|client SR 4096 server SR 4096 client RW 4096 server RR 4096",
        "2|1|4|true|CNO|false|client SR 512 server RW 512 client RR 512",
        "2|2|5|true|WAIT|true|client SR 256 server SR 256 client RW 8192 2 server RR 1000",
        "1|2|5|false|POLL|true|client SR 64 server SR 64 client RR 64"})
    void theDapltestClientPasses(final int threads, final int eps, final int iters, final boolean validate,
        final Completion mode, final boolean rsp, final String words) throws InterruptedException
    {
        final List<TestOp> ops = DapltestClient.withBarriers(TestOp.parse(List.of(words.split(" "))), validate);
        final TransactionParams p = new TransactionParams(threads, eps, iters, validate, mode, rsp, ops, false);
        final long checks = DapltestClient.run(client, server.address(), server.port(), null, 0, "loopback", p,
            TIMEOUT, null);
        // every completion of every op on every endpoint, and with validation the data checks on top
        final long completions = (long) iters * threads * eps * ops.size();
        if (validate)
        {
            assertTrue(checks > completions, "checks " + checks);
        }
        else
        {
            assertEquals(completions, checks);
        }
        assertTrue(logged("dapltest transaction passed"), log());
        assertTrue(log().contains(threads + " thread(s) x " + eps + " EP(s) x " + iters + " iteration(s), "
            + mode.name().toLowerCase(java.util.Locale.ROOT) + ", " + (rsp ? "RSP" : "PSP")), log());
        assertFalse(log().contains("FAILED"), log());
    }

    /** A control connection as dapltest's: no private data, two receives posted. */
    private Link control()
    {
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = 2;
        attr.maxRequestDtos = 2;
        final Link ctrl = client.link("raw control", attr, Completion.WAIT, TIMEOUT);
        ctrl.connect(server.address(), server.port(), null);
        return ctrl;
    }

    /**
     * Sends {@code Client_Info} (of {@code infoLength} bytes) and a command written by
     * {@code command}; returns the server's {@code Server_Info} first port, or -1 when the
     * server closed the connection instead.
     */
    private long ask(final Link ctrl, final DapltestWire.TestType testType, final int threads, final int infoLength,
        final Consumer<MemorySegment> command)
    {
        final Lmr buf = client.register(3L * DapltestWire.CONTROL_SIZE, MemPriv.LOCAL_READ_FLAG
            | MemPriv.LOCAL_WRITE_FLAG);
        final MemorySegment m = buf.memory();
        final LmrTriplet[] one = {LmrTriplet.of(buf, 2L * DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE)};
        ctrl.ep.postRecv(1, one, 9, CompletionFlags.DEFAULT_FLAG);
        DapltestWire.clientInfo(m, testType, threads);
        command.accept(m.asSlice(DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE));
        one[0] = LmrTriplet.of(buf, 0, infoLength);
        ctrl.ep.postSend(1, one, 1, CompletionFlags.DEFAULT_FLAG);
        one[0] = LmrTriplet.of(buf, DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE);
        ctrl.ep.postSend(1, one, 2, CompletionFlags.DEFAULT_FLAG);
        try
        {
            ctrl.expectRecv("Server_Info", 9, DapltestWire.CONTROL_SIZE);
        }
        catch (final CheckFailed e)
        {
            return -1;
        }
        return DapltestWire.firstPort(m.asSlice(2L * DapltestWire.CONTROL_SIZE), DapltestWire.CONTROL_SIZE);
    }

    /** dapltest -T Q, as the client sends it: the server answers, then stops serving. */
    private void quit() throws InterruptedException
    {
        DapltestControl.quit(client, server.address(), server.port(), TIMEOUT);
        serving.join(TIMEOUT / 1000);
        assertFalse(serving.isAlive(), "the server still serves after a quit:\n" + log());
    }

    @Test
    void aQuitStopsTheServer() throws InterruptedException
    {
        quit();
        assertTrue(log().contains("dapltest quit"), log());
    }

    @Test
    void thePerformanceTestExposesOneBufferAndWaitsForTheClientsSync() throws InterruptedException
    {
        final Link ctrl = control();
        final DapltestWire.PerformanceCmd cmd = new DapltestWire.PerformanceCmd(TestOp.Type.RW, 1024, 4, 50, 8, false);
        final long first = ask(ctrl, DapltestWire.TestType.PERFORMANCE, 1, DapltestWire.CONTROL_SIZE,
            m -> DapltestWire.performanceCmd(m, "loopback", "loopback", cmd));
        ctrl.awaitDisconnected();
        assertEquals(server.port() + 1, first);
        // as dapltest -T P: no private data, the server's entry first, RDMA Writes, then a sync
        final EpAttr attr = new EpAttr();
        attr.maxRdmaWriteIov = 4;
        attr.maxRequestIov = 4;
        final Link ep = client.link("raw performance", attr, Completion.WAIT, TIMEOUT);
        final Lmr small = client.register(24, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        final Lmr data = client.register(cmd.length(), MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        final LmrTriplet[] one = {LmrTriplet.of(small, 12, 12)};
        ep.ep.postRecv(1, one, 1, CompletionFlags.DEFAULT_FLAG);
        ep.connect(server.address(), first, null);
        ep.expectRecv("the server's entry", 1, 12);
        final MemorySegment entry = small.memory().asSlice(12, 12);
        final RmrTriplet target = new RmrTriplet(entry.get(U32, 0), entry.get(U64, 4), cmd.length());
        final LmrTriplet[] segs = new LmrTriplet[4];
        for (int s = 0; s < 4; s++)
        {
            segs[s] = LmrTriplet.of(data, s * 1024L, 1024);
        }
        for (int i = 0; i < 2 * cmd.iterations(); i++)
        {
            ep.ep.postRdmaWrite(4, segs, 100 + i, target, CompletionFlags.DEFAULT_FLAG);
            ep.expectRequest("Write " + i, 100 + i, cmd.length());
        }
        one[0] = LmrTriplet.of(small, 0, 12);
        ep.ep.postSend(1, one, 2, CompletionFlags.DEFAULT_FLAG);
        ep.expectRequest("sync", 2, 12);
        ep.awaitDisconnected();
        assertTrue(logged("dapltest performance done: the client's sync arrived after its 50 + 50 RW ops"), log());
    }

    @Test
    void aShortClientInfoEndsTheSessionWithItsSizeAndTheServerServesOn() throws InterruptedException
    {
        final Link ctrl = control();
        assertEquals(-1, ask(ctrl, DapltestWire.TestType.TRANSACTION, 1, 100, m ->
        {
        }));
        assertTrue(logged("FAILED: the client's Client_Info is 100 bytes, dapltest's is 8192"), log());
        quit();
    }

    @Test
    void aCommandOutOfRangeIsNamed() throws InterruptedException
    {
        final Link ctrl = control();
        final List<TestOp> ops = TestOp.parse(List.of("client", "SR", "64", "server", "SR", "64"));
        final TransactionParams p = new TransactionParams(1, 1, 1, false, Completion.WAIT, false, ops, false);
        assertEquals(-1, ask(ctrl, DapltestWire.TestType.TRANSACTION, 1, DapltestWire.CONTROL_SIZE, m ->
        {
            DapltestWire.transactionCmd(m, "x", p, 62000, "y");
            m.set(U32, 564, 101);
        }));
        assertTrue(logged("FAILED: the client's Transaction_Cmd has 101 ops, dapltest's limit is 100"), log());
        final Link again = control();
        assertEquals(-1, ask(again, DapltestWire.TestType.TRANSACTION, 1, DapltestWire.CONTROL_SIZE, m ->
        {
            DapltestWire.transactionCmd(m, "x", p, 62000, "y");
            m.set(U32, 568 + 12, 1 << 30);
        }));
        assertTrue(logged("op 0 is {server_initiated 0, transfer_type 2, num_segs 1, seg_size 1073741824}"), log());
        final Link third = control();
        assertEquals(-1, ask(third, DapltestWire.TestType.TRANSACTION, 1, DapltestWire.CONTROL_SIZE, m ->
        {
            DapltestWire.transactionCmd(m, "x", p, 62000, "y");
            m.set(U32, 0, 5);
        }));
        assertTrue(logged("the client's Transaction_Cmd says dapltest version 5, this server speaks 6"), log());
        quit();
    }

    @Test
    void aTestConnectionWithOtherPrivateDataIsRejectedAndNamed() throws InterruptedException
    {
        final Link ctrl = control();
        final List<TestOp> ops = TestOp.parse(List.of("client", "SR", "64", "server", "SR", "64"));
        final TransactionParams p = new TransactionParams(1, 1, 1, false, Completion.WAIT, false, ops, false);
        final long first = ask(ctrl, DapltestWire.TestType.TRANSACTION, 1, DapltestWire.CONTROL_SIZE,
            m -> DapltestWire.transactionCmd(m, "x", p, 62000, "y"));
        final Link ep = client.link("raw test ep", null, Completion.WAIT, TIMEOUT);
        ep.ep.connect(server.address(), first, TIMEOUT, "DAPL and RDMA rule! Test 1234.".getBytes(
            StandardCharsets.US_ASCII), io.jdat.Qos.BEST_EFFORT, io.jdat.ConnectFlags.DEFAULT_FLAG);
        assertTrue(ep.nextConnectionEvent("connect").is(EventNumber.CONNECTION_EVENT_PEER_REJECTED));
        assertTrue(logged("the connection request's private data is 'DAPL and RDMA rule! Test 1234.', dapltest's "
            + "starts with 'DAPL and RDMA rule! Test 4321.'"), log());
        quit();
    }

    @Test
    void aRemoteMemoryTableOfTheWrongSizeIsNamed() throws InterruptedException
    {
        final Link ctrl = control();
        final List<TestOp> ops = TestOp.parse(List.of("client", "SR", "64", "server", "SR", "64"));
        final TransactionParams p = new TransactionParams(1, 1, 1, false, Completion.WAIT, false, ops, false);
        final long first = ask(ctrl, DapltestWire.TestType.TRANSACTION, 1, DapltestWire.CONTROL_SIZE,
            m -> DapltestWire.transactionCmd(m, "x", p, 62000, "y"));
        final Link ep = client.link("raw test ep", null, Completion.WAIT, TIMEOUT);
        final Lmr table = client.register(DapltestWire.RMI_SIZE, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        ep.connect(server.address(), first, DapltestWire.TEST_EP_PRIVATE_DATA.getBytes(StandardCharsets.US_ASCII));
        // 100 bytes where dapltest Sends its 1200-byte table
        ep.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(table, 0, 100)}, 1, CompletionFlags.DEFAULT_FLAG);
        ep.expectRequest("short table", 1, 100);
        assertTrue(logged("FAILED: Recv of the client's remote memory table on session 1 thread 0 ep 0: 100 bytes "
            + "transferred, expected 1200"), log());
        ep.awaitDisconnected();
        quit();
    }

    @Test
    void aClientThatGoesSilentEndsItsSessionAtTheTimeout() throws InterruptedException
    {
        final Link ctrl = control();
        // connected, and nothing more: the session waits for Client_Info no longer than its timeout
        assertTrue(logged("FAILED: Recv of Client_Info on session 1 control: no event within 10.0 s"), log());
        ctrl.abort();
        quit();
    }
}

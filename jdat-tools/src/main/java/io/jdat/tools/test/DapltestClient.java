package io.jdat.tools.test;

import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.DatEvent;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.tools.dat.CheckFailed;
import io.jdat.tools.dat.Completion;
import io.jdat.tools.dat.Link;
import io.jdat.tools.dat.Node;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client of a transaction test on OFED dapltest's wire, so that the server may be the real
 * {@code dapltest -T S} ({@code test/dapltest/}: {@code dapl_transaction_test.c}).
 *
 * <ol>
 * <li>Control connection to the server's port (62000), no private data: Send {@code Client_Info}
 * and {@code Transaction_Cmd} (8192 bytes each, {@link DapltestWire}), receive
 * {@code Server_Info} with the first test port.</li>
 * <li>Endpoint {@code e} of thread {@code t} connects to {@code first_port + t * eps + e} with
 * the private data {@code "DAPL and RDMA rule! Test 4321."}, Sends its remote memory table,
 * then receives the server's (the client Sends first, for MPA's startup rule).</li>
 * <li>Each thread posts the receives of the server's Sends, waits for the server's sync on each
 * endpoint; when every thread has, each Sends its own sync.</li>
 * <li>Iterations: the ops in order, each on every endpoint of the thread (RDMA Reads and Writes
 * are posted on all, then awaited). With validation every byte of ops but the last three carries
 * {@code (iteration + 1) & 0xff}; the three barriers dapltest appends ({@code server SR},
 * {@code client SR}, {@code server SR}, 4096 bytes) tell the client when to check: after the
 * first of them.</li>
 * <li>After the last iteration a sync each way (the server's first), then an abrupt disconnect,
 * as dapltest does.</li>
 * </ol>
 */
final class DapltestClient
{
    private static final long CTRL_COOKIE = 0xc0;
    private static final long RMI_COOKIE = 0xd0;
    private static final long SYNC_COOKIE = 0xe0;

    private DapltestClient()
    {
    }

    /** The op list dapltest sends: the user's ops, and with validation its three barriers. */
    static List<TestOp> withBarriers(final List<TestOp> ops, final boolean validate)
    {
        final List<TestOp> all = new ArrayList<>(ops);
        if (validate)
        {
            all.add(new TestOp(false, TestOp.Type.SR, 4096, 1, false));
            all.add(new TestOp(true, TestOp.Type.SR, 4096, 1, false));
            all.add(new TestOp(false, TestOp.Type.SR, 4096, 1, false));
        }
        return all;
    }

    /**
     * Runs the test against the dapltest server at {@code address:port}; returns the number of
     * checks that passed; throws {@link CheckFailed} at the first failure.
     *
     * @param testPorts  where to dial the test connections instead of the server's first port (port
     *                   forwarding), or null
     * @param settleMillis pause after each test connection comes up, before its first Send
     * @param serverName what goes into {@code Transaction_Cmd.server_name}
     */
    static long run(final Node node, final IaAddress address, final long port, final Long testPorts,
        final long settleMillis, final String serverName, final TransactionParams p, final long timeoutMicros,
        final java.util.function.Consumer<String> log)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = 2;
        attr.maxRequestDtos = 4;
        final Link ctrl = node.link("client control", attr, Completion.WAIT, timeoutMicros);
        final Lmr buf = node.register(3L * DapltestWire.CONTROL_SIZE, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        final MemorySegment m = buf.memory();
        final LmrTriplet[] one = {new LmrTriplet()};
        one[0].set(buf, 2L * DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE);
        ctrl.ep.postRecv(1, one, CTRL_COOKIE, CompletionFlags.DEFAULT_FLAG);
        ctrl.connect(address, port, null);
        DapltestWire.clientInfo(m, DapltestWire.TRANSACTION_TEST, p.threads());
        DapltestWire.transactionCmd(m.asSlice(DapltestWire.CONTROL_SIZE), serverName, p, port, node.iaName);
        for (int i = 0; i < 2; i++)
        {
            one[0].set(buf, (long) i * DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE);
            ctrl.ep.postSend(1, one, CTRL_COOKIE + 1 + i, CompletionFlags.DEFAULT_FLAG);
            ctrl.expectRequest(i == 0 ? "Send of Client_Info" : "Send of Transaction_Cmd", CTRL_COOKIE + 1 + i,
                DapltestWire.CONTROL_SIZE);
        }
        final DatEvent ev = ctrl.expectRecv("Recv of Server_Info", CTRL_COOKIE, -1);
        final long named = DapltestWire.firstPort(m.asSlice(2L * DapltestWire.CONTROL_SIZE),
            ev.dto.transferredLength);
        final long firstPort = testPorts != null ? testPorts : named;
        if (log != null)
        {
            log.accept("the server's test connections start at port " + named + (testPorts != null
                ? ", dialled at " + testPorts : ""));
        }
        final AtomicLong checks = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        final List<RuntimeException> failures = new ArrayList<>();
        final CyclicBarrier ready = new CyclicBarrier(p.threads());
        for (int t = 0; t < p.threads(); t++)
        {
            final int thread = t;
            final Thread th = new Thread(() ->
            {
                try
                {
                    new Worker(node, thread, address, firstPort + (long) thread * p.eps(), p, timeoutMicros,
                        settleMillis, ready, checks).run();
                }
                catch (final RuntimeException e)
                {
                    synchronized (failures)
                    {
                        failures.add(e);
                    }
                    ready.reset();
                }
            }, "jdat-dapltest-client-" + t);
            threads.add(th);
            th.start();
        }
        for (final Thread th : threads)
        {
            try
            {
                th.join();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new CheckFailed("interrupted");
            }
        }
        ctrl.abort();
        ctrl.free();
        if (!failures.isEmpty())
        {
            throw failures.get(0);
        }
        return checks.get();
    }

    /** One client thread: its endpoints, their buffers, and the op list run over them. */
    private static final class Worker
    {
        private final int thread;
        private final TransactionParams p;
        private final CyclicBarrier ready;
        private final AtomicLong checks;
        private final long timeoutMicros;
        private final List<Ep> eps = new ArrayList<>();

        Worker(final Node node, final int thread, final IaAddress address, final long basePort,
            final TransactionParams p, final long timeoutMicros, final long settleMillis, final CyclicBarrier ready,
            final AtomicLong checks)
        {
            this.thread = thread;
            this.p = p;
            this.ready = ready;
            this.checks = checks;
            this.timeoutMicros = timeoutMicros;
            for (int e = 0; e < p.eps(); e++)
            {
                final Ep ep = connect(node, address, basePort + e, e);
                eps.add(ep);
                settle(settleMillis);
                ep.exchangeRmi();
            }
        }

        /**
         * A connected endpoint. A dapltest server creates its test PSPs while the client already
         * connects (and under emulation it is slow): a refused connection is tried again, on a
         * new endpoint, until the timeout.
         */
        /**
         * A pause between a test connection's ESTABLISHED and its first Send. dapltest's server
         * (DAPL's cma provider over siw) now and then never completes the receive of a Send that
         * arrives right after jdat's zero-length ready-to-receive Write, though siw has it; 300
         * ms avoided that in every run tried (docs/interop.md).
         */
        private static void settle(final long millis)
        {
            if (millis <= 0)
            {
                return;
            }
            try
            {
                Thread.sleep(millis);
            }
            catch (final InterruptedException x)
            {
                Thread.currentThread().interrupt();
                throw new CheckFailed("interrupted");
            }
        }

        private Ep connect(final Node node, final IaAddress address, final long port, final int e)
        {
            final long deadline = System.nanoTime() + timeoutMicros * 1000;
            final byte[] pd = DapltestWire.TEST_EP_PRIVATE_DATA.getBytes(StandardCharsets.US_ASCII);
            while (true)
            {
                final Ep ep = new Ep(node, thread, e, p, timeoutMicros);
                ep.link.ep.connect(address, port, timeoutMicros, pd, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
                final DatEvent ev = ep.link.nextConnectionEvent("connect to " + address + ":" + port);
                if (ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
                {
                    return ep;
                }
                final String what = ev.number().toString();
                ep.free();
                final boolean refused = ev.is(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED)
                    || ev.is(EventNumber.CONNECTION_EVENT_UNREACHABLE) || ev.is(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
                if (!refused || System.nanoTime() - deadline > 0)
                {
                    throw new CheckFailed("connect to " + address + ":" + port + " on client thread " + thread + " ep " + e
                        + ": " + what);
                }
                try
                {
                    Thread.sleep(300);
                }
                catch (final InterruptedException x)
                {
                    Thread.currentThread().interrupt();
                    throw new CheckFailed("interrupted");
                }
            }
        }

        void run()
        {
            try
            {
                final int n = p.ops().size();
                for (final Ep ep : eps)
                {
                    for (int k = 0; k < n; k++)
                    {
                        if (isRecv(k))
                        {
                            ep.postRecv(k);
                        }
                    }
                }
                if (p.validate())
                {
                    eps.forEach(ep -> ep.fill(0));
                }
                // the server's sync on every endpoint, every thread's, then ours
                eps.forEach(ep -> ep.awaitSync("initial"));
                awaitAllThreads();
                eps.forEach(ep -> ep.sync("initial"));
                for (int iter = 0; iter < p.iters(); iter++)
                {
                    final boolean last = iter == p.iters() - 1;
                    if (last)
                    {
                        eps.forEach(Ep::postSyncRecv); // after every receive of this iteration
                    }
                    for (int k = 0; k < n; k++)
                    {
                        final TestOp op = p.ops().get(k);
                        switch (op.type())
                        {
                            case RR, RW ->
                            {
                                if (op.byClient())
                                {
                                    for (final Ep ep : eps)
                                    {
                                        ep.postRdma(k, iter);
                                    }
                                    for (final Ep ep : eps)
                                    {
                                        ep.link.expectRequest(op.type() + " op " + k + " iteration " + iter,
                                            cookie(iter, k), op.length());
                                    }
                                }
                            }
                            case SR ->
                            {
                                if (op.byClient())
                                {
                                    for (final Ep ep : eps)
                                    {
                                        ep.send(k, iter);
                                    }
                                    for (final Ep ep : eps)
                                    {
                                        ep.link.expectRequest("Send op " + k + " iteration " + iter, cookie(iter, k),
                                            op.length());
                                    }
                                }
                                else
                                {
                                    for (final Ep ep : eps)
                                    {
                                        ep.link.expectRecv("Recv op " + k + " iteration " + iter, cookie(0, k),
                                            op.length());
                                        if (!last)
                                        {
                                            ep.postRecv(k);
                                        }
                                    }
                                }
                                if (p.validate() && k == n - 3)
                                {
                                    for (final Ep ep : eps)
                                    {
                                        checks.addAndGet(ep.check(iter));
                                        ep.fill(iter + 1);
                                    }
                                }
                            }
                        }
                        checks.addAndGet(eps.size());
                    }
                }
                eps.forEach(ep -> ep.awaitSync("final"));
                eps.forEach(ep -> ep.sync("final"));
                for (final Ep ep : eps)
                {
                    ep.link.abort();
                    ep.link.awaitDisconnected();
                }
            }
            catch (final RuntimeException e)
            {
                eps.forEach(ep -> ep.link.abort());
                throw e;
            }
            finally
            {
                eps.forEach(Ep::free);
            }
        }

        private boolean isRecv(final int k)
        {
            final TestOp op = p.ops().get(k);
            return op.type() == TestOp.Type.SR && !op.byClient();
        }

        private void awaitAllThreads()
        {
            try
            {
                ready.await(timeoutMicros, TimeUnit.MICROSECONDS);
            }
            catch (final InterruptedException | BrokenBarrierException | TimeoutException e)
            {
                throw new CheckFailed("client thread " + thread + ": the other threads did not reach the sync ("
                    + e.getClass().getSimpleName() + ")");
            }
        }
    }

    private static long cookie(final int iter, final int k)
    {
        return (long) iter * DapltestWire.MAX_OPS + k;
    }

    /** One test endpoint of the client: its buffers per op, the RMI and sync buffers. */
    private static final class Ep
    {
        final Link link;
        final int index;
        private final TransactionParams p;
        private final Lmr[] buffers;
        private final LmrTriplet[][] iov;
        private final RmrTriplet[] remote;
        private final Lmr small;
        private final LmrTriplet[] one = {new LmrTriplet()};

        Ep(final Node node, final int thread, final int index, final TransactionParams p, final long timeoutMicros)
        {
            this.index = index;
            this.p = p;
            final List<TestOp> ops = p.ops();
            final EpAttr attr = new EpAttr();
            final int segs = ops.stream().mapToInt(TestOp::segs).max().orElse(1);
            attr.maxRecvDtos = ops.size() + 3;
            attr.maxRequestDtos = ops.size() + 3;
            attr.maxRecvIov = Math.max(attr.maxRecvIov, segs);
            attr.maxRequestIov = Math.max(attr.maxRequestIov, segs);
            attr.maxRdmaReadIov = Math.max(attr.maxRdmaReadIov, segs);
            attr.maxRdmaWriteIov = Math.max(attr.maxRdmaWriteIov, segs);
            this.link = node.link("client thread " + thread + " ep " + index, attr, p.mode(), timeoutMicros);
            this.buffers = new Lmr[ops.size()];
            this.iov = new LmrTriplet[ops.size()][];
            this.remote = new RmrTriplet[ops.size()];
            for (int k = 0; k < ops.size(); k++)
            {
                final TestOp op = ops.get(k);
                buffers[k] = node.register(Math.max(1, op.length()), MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG
                    | MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG);
                iov[k] = new LmrTriplet[op.segs()];
                for (int s = 0; s < op.segs(); s++)
                {
                    iov[k][s] = LmrTriplet.of(buffers[k], s * op.segSize(), op.segSize());
                }
            }
            // RMI send, RMI recv, sync send, sync recv
            this.small = node.register(2L * DapltestWire.RMI_SIZE + 2L * DapltestWire.SYNC_SIZE,
                MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
            one[0].set(small, DapltestWire.RMI_SIZE, DapltestWire.RMI_SIZE);
            link.ep.postRecv(1, one, RMI_COOKIE, CompletionFlags.DEFAULT_FLAG);
            postSyncRecv();
        }

        void postSyncRecv()
        {
            one[0].set(small, 2L * DapltestWire.RMI_SIZE + DapltestWire.SYNC_SIZE, DapltestWire.SYNC_SIZE);
            link.ep.postRecv(1, one, SYNC_COOKIE, CompletionFlags.DEFAULT_FLAG);
        }

        /** Sends the table of what the server may read or write, then learns what it exposes. */
        void exchangeRmi()
        {
            final List<long[]> entries = new ArrayList<>();
            for (int k = 0; k < p.ops().size(); k++)
            {
                final TestOp op = p.ops().get(k);
                entries.add(op.type() != TestOp.Type.SR && !op.byClient()
                    ? new long[] {buffers[k].rmrContext(), buffers[k].registeredAddress()} : null);
            }
            DapltestWire.putRmi(small.memory(), entries);
            one[0].set(small, 0, DapltestWire.RMI_SIZE);
            link.ep.postSend(1, one, RMI_COOKIE, CompletionFlags.DEFAULT_FLAG);
            link.expectRequest("Send of the remote memory table", RMI_COOKIE, DapltestWire.RMI_SIZE);
            link.expectRecv("Recv of the server's remote memory table", RMI_COOKIE, DapltestWire.RMI_SIZE);
            final MemorySegment got = small.memory().asSlice(DapltestWire.RMI_SIZE, DapltestWire.RMI_SIZE);
            for (int k = 0; k < p.ops().size(); k++)
            {
                final TestOp op = p.ops().get(k);
                if (op.type() != TestOp.Type.SR && op.byClient())
                {
                    final long[] e = DapltestWire.rmi(got, k);
                    if (e[1] == 0)
                    {
                        throw new CheckFailed("remote memory table on " + link.name + ": the server exposes no buffer "
                            + "for op " + k + " (" + op.type() + ")");
                    }
                    remote[k] = new RmrTriplet((int) e[0], e[1], op.length());
                }
            }
        }

        void awaitSync(final String which)
        {
            link.expectRecv("Recv of the server's " + which + " sync", SYNC_COOKIE, DapltestWire.SYNC_SIZE);
        }

        void sync(final String which)
        {
            one[0].set(small, 2L * DapltestWire.RMI_SIZE, DapltestWire.SYNC_SIZE);
            link.ep.postSend(1, one, SYNC_COOKIE, CompletionFlags.DEFAULT_FLAG);
            link.expectRequest("Send of the " + which + " sync", SYNC_COOKIE, DapltestWire.SYNC_SIZE);
        }

        void postRecv(final int k)
        {
            link.ep.postRecv(iov[k].length, iov[k], cookie(0, k), CompletionFlags.DEFAULT_FLAG);
        }

        void send(final int k, final int iter)
        {
            link.ep.postSend(iov[k].length, iov[k], cookie(iter, k), CompletionFlags.DEFAULT_FLAG);
        }

        void postRdma(final int k, final int iter)
        {
            final TestOp op = p.ops().get(k);
            if (op.type() == TestOp.Type.RR)
            {
                link.ep.postRdmaRead(iov[k].length, iov[k], cookie(iter, k), remote[k], CompletionFlags.DEFAULT_FLAG);
            }
            else
            {
                link.ep.postRdmaWrite(iov[k].length, iov[k], cookie(iter, k), remote[k], CompletionFlags.DEFAULT_FLAG);
            }
        }

        /** dapltest's fill: what this side sends, writes or exposes for reading carries the pattern. */
        void fill(final int iter)
        {
            if (iter >= p.iters())
            {
                return;
            }
            for (int k = 0; k < p.ops().size() - 3; k++)
            {
                final TestOp op = p.ops().get(k);
                final boolean ours = op.byClient();
                final boolean source = op.type() == TestOp.Type.RR ? !ours : ours;
                if (source)
                {
                    buffers[k].memory().asSlice(0, op.length()).fill((byte) (iter + 1));
                }
            }
        }

        /** dapltest's check: what this side received, read, or had written into it carries the pattern. */
        long check(final int iter)
        {
            long n = 0;
            for (int k = 0; k < p.ops().size() - 3; k++)
            {
                final TestOp op = p.ops().get(k);
                final boolean ours = op.byClient();
                final boolean sink = op.type() == TestOp.Type.RR ? ours : !ours;
                if (!sink)
                {
                    continue;
                }
                final MemorySegment b = buffers[k].memory();
                final byte want = (byte) (iter + 1);
                for (long j = 0; j < op.length(); j++)
                {
                    final byte got = b.get(ValueLayout.JAVA_BYTE, j);
                    if (got != want)
                    {
                        throw new CheckFailed("validation on " + link.name + ", iteration " + iter + ", op " + k + " ("
                            + (ours ? "client " : "server ") + op.type() + "): byte " + j + " of " + op.length()
                            + " is " + String.format("0x%02x, expected 0x%02x", got, want));
                    }
                }
                n++;
            }
            return n;
        }

        void free()
        {
            link.free();
            for (final Lmr l : buffers)
            {
                try
                {
                    l.free();
                }
                catch (final RuntimeException e)
                {
                    // left to dat_ia_close
                }
            }
            try
            {
                small.free();
            }
            catch (final RuntimeException e)
            {
                // left to dat_ia_close
            }
        }
    }
}

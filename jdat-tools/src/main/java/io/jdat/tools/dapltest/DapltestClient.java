package io.jdat.tools.dapltest;

import io.jdat.ConnectFlags;
import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Qos;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Node;
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
        final long named = DapltestControl.ask(node, address, port, DapltestWire.TestType.TRANSACTION,
            p.threads() * p.eps(), "Transaction_Cmd", // as dapltest counts
            m -> DapltestWire.transactionCmd(m, serverName, p, port, node.iaName), timeoutMicros);
        final long firstPort = testPorts != null ? testPorts : named;
        if (log != null)
        {
            log.accept("the server's test connections start at port " + named + (testPorts != null
                ? ", dialled at " + testPorts : ""));
        }
        final AtomicLong checks = new AtomicLong();
        final CyclicBarrier ready = new CyclicBarrier(p.threads());
        DapltestThread.inParallel(p.threads(), "jdat-dapltest-client-", thread ->
            new Worker(node, thread, address, firstPort + (long) thread * p.eps(), p, timeoutMicros, settleMillis,
                ready, checks, log).run(), ready::reset);
        return checks.get();
    }

    /** One client thread: its endpoints, connected one after the other, and the op list run over them. */
    private static final class Worker
    {
        private final int thread;
        private final TransactionParams p;
        private final CyclicBarrier ready;
        private final AtomicLong checks;
        private final long timeoutMicros;
        private final List<DapltestEndpoint> eps = new ArrayList<>();

        Worker(final Node node, final int thread, final IaAddress address, final long basePort,
            final TransactionParams p, final long timeoutMicros, final long settleMillis, final CyclicBarrier ready,
            final AtomicLong checks, final java.util.function.Consumer<String> log)
        {
            this.thread = thread;
            this.p = p;
            this.ready = ready;
            this.checks = checks;
            this.timeoutMicros = timeoutMicros;
            try
            {
                for (int e = 0; e < p.eps(); e++)
                {
                    final DapltestEndpoint ep = connect(node, address, basePort + e, e);
                    eps.add(ep);
                    settle(settleMillis);
                    ep.exchangeRmi();
                    if (ep.nudges() > 0 && log != null)
                    {
                        synchronized (log)
                        {
                            log.accept("client thread " + thread + " ep " + e + ": the server's remote memory table "
                                + "came after " + ep.nudges() + " zero-length RDMA Write(s)");
                        }
                    }
                }
            }
            catch (final RuntimeException x)
            {
                DapltestEndpoint.endAll(eps, false);
                throw x;
            }
        }

        /**
         * A pause between a test connection's ESTABLISHED and its first Send (see
         * docs/interop.md); 0 for none.
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
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new CheckFailed("interrupted");
            }
        }

        /**
         * A connected endpoint. A dapltest server creates its test PSPs while the client already
         * connects (and under emulation it is slow): a refused connection is tried again, on a
         * new endpoint, until the timeout.
         */
        private DapltestEndpoint connect(final Node node, final IaAddress address, final long port, final int e)
        {
            final long deadline = System.nanoTime() + timeoutMicros * 1000;
            final byte[] pd = DapltestWire.TEST_EP_PRIVATE_DATA.getBytes(StandardCharsets.US_ASCII);
            while (true)
            {
                final DapltestEndpoint ep = new DapltestEndpoint(node, false, "client thread " + thread + " ep " + e, p,
                    timeoutMicros);
                ep.link.ep.connect(address, port, timeoutMicros, pd, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
                final DatEvent ev = ep.link.nextConnectionEvent("connect to " + address + ":" + port);
                if (ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
                {
                    return ep;
                }
                final String what = ev.number().toString();
                ep.free();
                final boolean refused = ev.is(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED)
                    || ev.is(EventNumber.CONNECTION_EVENT_UNREACHABLE)
                    || ev.is(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
                if (!refused || System.nanoTime() - deadline > 0)
                {
                    throw new CheckFailed("connect to " + address + ":" + port + " on client thread " + thread
                        + " ep " + e + ": " + what);
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
            boolean passed = false;
            try
            {
                new DapltestThread(false, p, eps, checks).run(this::awaitAllThreads);
                passed = true;
            }
            finally
            {
                DapltestEndpoint.endAll(eps, passed);
            }
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
}

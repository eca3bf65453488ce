package io.jdat.tools.dapltest;

import io.jdat.CompletionFlags;
import io.jdat.tools.kit.Pattern;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One thread of a transaction test on one side: its endpoints run the op list together (each
 * operation is posted on every endpoint, then every completion is reaped and checked), for the
 * given number of iterations. Both sides run the same list, each doing its part.
 *
 * <p>Receives are posted one iteration ahead in the order the Sends arrive, which is safe
 * because the list holds Sends both ways (checked by the client). With validation every byte is
 * checked: a receive when it completes, an RDMA Read sink when the Read completes (the sink is
 * cleared before), and the RDMA Write targets at the barrier Sends that end each iteration.
 */
final class TransactionWorker
{
    private final List<TestEndpoint> eps;
    private final boolean client;
    private final int iters;
    private final boolean validate;
    private final AtomicLong checks;
    private final AtomicBoolean corrupt;

    TransactionWorker(final List<TestEndpoint> eps, final boolean client, final int iters, final boolean validate,
        final AtomicLong checks, final AtomicBoolean corrupt)
    {
        this.eps = eps;
        this.client = client;
        this.iters = iters;
        this.validate = validate;
        this.checks = checks;
        this.corrupt = corrupt;
    }

    /** The pattern seed of what operation {@code k} moves in iteration {@code iter} on endpoint {@code ep}. */
    static long seed(final int iter, final int k, final TestEndpoint ep)
    {
        return ((iter * 1_000_003L + k) * 1_009L + ep.thread) * 1_013L + ep.index;
    }

    /** Runs the test; a failed check throws {@link io.jdat.tools.kit.CheckFailed}. */
    void run()
    {
        final List<TestOp> ops = eps.getFirst().ops;
        for (final TestEndpoint ep : eps)
        {
            for (int k = 0; k < ops.size(); k++)
            {
                // what the peer will read stays the same for the whole test
                if (ops.get(k).type() == TestOp.Type.RR && !ops.get(k).initiatedBy(client))
                {
                    Pattern.fill(ep.memory(k), 0, ops.get(k).length(), seed(-1, k, ep));
                }
            }
            ep.exchangeInfo();
            checks.addAndGet(2);
        }
        for (int iter = 0; iter < iters; iter++)
        {
            for (int k = 0; k < ops.size(); k++)
            {
                final TestOp op = ops.get(k);
                final String what = "iteration " + iter + ", op " + k + " (" + op + ")";
                if (op.initiatedBy(client))
                {
                    initiate(iter, k, op, what);
                }
                else if (op.type() == TestOp.Type.SR)
                {
                    receive(iter, k, op, what);
                }
            }
        }
    }

    private void initiate(final int iter, final int k, final TestOp op, final String what)
    {
        for (final TestEndpoint ep : eps)
        {
            final long cookie = ep.cookie(iter, k);
            switch (op.type())
            {
                case SR ->
                {
                    if (validate)
                    {
                        Pattern.fill(ep.memory(k), 0, op.length(), seed(iter, k, ep));
                    }
                    ep.link.ep.postSend(op.segs(), ep.iov(k), cookie, CompletionFlags.DEFAULT_FLAG);
                }
                case RW ->
                {
                    if (validate)
                    {
                        Pattern.fill(ep.memory(k), 0, op.length(), seed(iter, k, ep));
                    }
                    ep.link.ep.postRdmaWrite(op.segs(), ep.iov(k), cookie, ep.remote(k), CompletionFlags.DEFAULT_FLAG);
                }
                case RR ->
                {
                    if (validate)
                    {
                        ep.memory(k).asSlice(0, op.length()).fill((byte) 0);
                    }
                    ep.link.ep.postRdmaRead(op.segs(), ep.iov(k), cookie, ep.remote(k), CompletionFlags.DEFAULT_FLAG);
                }
            }
        }
        final String name = switch (op.type())
        {
            case SR -> "Send";
            case RW -> "RDMA Write";
            case RR -> "RDMA Read";
        };
        for (final TestEndpoint ep : eps)
        {
            ep.link.expectRequest(what + ": " + name, ep.cookie(iter, k), op.length());
            checks.incrementAndGet();
            if (validate && op.type() == TestOp.Type.RR)
            {
                verify(ep.memory(k), op.length(), seed(-1, k, ep), what + ": RDMA Read sink on " + ep.link.name);
            }
        }
    }

    private void receive(final int iter, final int k, final TestOp op, final String what)
    {
        final List<TestOp> ops = eps.getFirst().ops;
        for (final TestEndpoint ep : eps)
        {
            ep.link.expectRecv(what + ": Recv", ep.cookie(iter, k), op.length());
            checks.incrementAndGet();
            if (validate)
            {
                verify(ep.memory(k), op.length(), seed(iter, k, ep), what + ": Recv buffer on " + ep.link.name);
            }
            if (op.checksPeerWrites())
            {
                for (int j = 0; j < ops.size(); j++)
                {
                    final TestOp w = ops.get(j);
                    if (w.type() == TestOp.Type.RW && !w.initiatedBy(client))
                    {
                        final MemorySegment target = ep.memory(j);
                        verify(target, w.length(), seed(iter, j, ep), "iteration " + iter + ", op " + j + " (" + w
                            + "): RDMA Write target on " + ep.link.name);
                        target.asSlice(0, w.length()).fill((byte) 0);
                    }
                }
            }
            if (iter + 1 < iters)
            {
                ep.postRecv(iter + 1, k);
            }
        }
    }

    private void verify(final MemorySegment m, final long length, final long seed, final String what)
    {
        if (corrupt.get() && length > 0 && corrupt.getAndSet(false))
        {
            Pattern.corrupt(m, 0, length);
        }
        Pattern.verify(m, 0, length, seed, what);
        checks.incrementAndGet();
    }
}

package io.jdat.tools.dapltest;

import io.jdat.tools.kit.CheckFailed;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The op list of one dapltest thread over its endpoints, on either side
 * ({@code DT_Transaction_Run}):
 * <ol>
 * <li>the receives of the peer's Sends are posted on every endpoint, in op order;</li>
 * <li>the server Sends a sync on each endpoint; the client waits for them (and, before answering,
 * for every other client thread to have them too), then Sends its own;</li>
 * <li>iteration after iteration the ops run in order, each on every endpoint of the thread: our
 * RDMA Reads, Writes and Sends are posted on all, then awaited; the peer's Sends are awaited and
 * their receives posted again, except in the last iteration;</li>
 * <li>with validation every byte of ops but the last three carries {@code (iteration + 1) & 0xff};
 * the three barriers dapltest appends ({@code server SR}, {@code client SR}, {@code server SR})
 * tell each side when to check: the client after the first, the server after the second;</li>
 * <li>after the last iteration a sync each way, the server's first.</li>
 * </ol>
 */
final class DapltestThread
{
    private final boolean server;
    private final TransactionParams p;
    private final List<DapltestEndpoint> eps;
    private final AtomicLong checks;

    DapltestThread(final boolean server, final TransactionParams p, final List<DapltestEndpoint> eps,
        final AtomicLong checks)
    {
        this.server = server;
        this.p = p;
        this.eps = eps;
        this.checks = checks;
    }

    /**
     * Runs {@code body} for each thread number {@code 0 .. n-1} on a thread of its own, named
     * {@code name} and the number, and waits for all of them; then throws the first failure.
     * {@code onFailure} runs on a failing thread, to release the others (a barrier they wait at).
     */
    static void inParallel(final int n, final String name, final IntConsumer body, final Runnable onFailure)
    {
        final List<RuntimeException> failures = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < n; t++)
        {
            final int thread = t;
            final Thread th = new Thread(() ->
            {
                try
                {
                    body.accept(thread);
                }
                catch (final RuntimeException e)
                {
                    synchronized (failures)
                    {
                        failures.add(e);
                    }
                    onFailure.run();
                }
            }, name + t);
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
        synchronized (failures)
        {
            if (!failures.isEmpty())
            {
                throw failures.getFirst();
            }
        }
    }

    static long cookie(final int iter, final int k)
    {
        return (long) iter * DapltestWire.MAX_OPS + k;
    }

    /**
     * Runs the op list; {@code othersReady} is called by the client between receiving the
     * server's first syncs and sending its own.
     */
    void run(final Runnable othersReady)
    {
        final int n = p.ops().size();
        for (final DapltestEndpoint ep : eps)
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
        syncs("initial", othersReady);
        final int checkAt = server ? n - 2 : n - 3;
        for (int iter = 0; iter < p.iters(); iter++)
        {
            final boolean last = iter == p.iters() - 1;
            if (last)
            {
                eps.forEach(DapltestEndpoint::postSyncRecv); // after every receive of this iteration
            }
            for (int k = 0; k < n; k++)
            {
                final TestOp op = p.ops().get(k);
                final boolean ours = op.byClient() != server;
                if (op.type() != TestOp.Type.SR)
                {
                    if (ours)
                    {
                        for (final DapltestEndpoint ep : eps)
                        {
                            ep.postRdma(k, iter);
                        }
                        for (final DapltestEndpoint ep : eps)
                        {
                            ep.link.expectRequest(op.type() + " op " + k + " iteration " + iter, cookie(iter, k),
                                op.length());
                        }
                    }
                }
                else if (ours)
                {
                    for (final DapltestEndpoint ep : eps)
                    {
                        ep.send(k, iter);
                    }
                    for (final DapltestEndpoint ep : eps)
                    {
                        ep.link.expectRequest("Send op " + k + " iteration " + iter, cookie(iter, k), op.length());
                    }
                }
                else
                {
                    for (final DapltestEndpoint ep : eps)
                    {
                        ep.link.expectRecv("Recv op " + k + " iteration " + iter, cookie(0, k), op.length());
                        if (!last)
                        {
                            ep.postRecv(k);
                        }
                    }
                }
                if (p.validate() && op.type() == TestOp.Type.SR && k == checkAt)
                {
                    for (final DapltestEndpoint ep : eps)
                    {
                        checks.addAndGet(ep.check(iter));
                        ep.fill(iter + 1);
                    }
                }
                checks.addAndGet(eps.size());
            }
        }
        syncs("final", () ->
        {
        });
    }

    private void syncs(final String which, final Runnable othersReady)
    {
        if (server)
        {
            eps.forEach(DapltestEndpoint::postSync);
            eps.forEach(ep -> ep.awaitSyncSent(which));
            eps.forEach(ep -> ep.awaitSync(which));
        }
        else
        {
            eps.forEach(ep -> ep.awaitSync(which));
            othersReady.run();
            eps.forEach(DapltestEndpoint::postSync);
            eps.forEach(ep -> ep.awaitSyncSent(which));
        }
    }

    private boolean isRecv(final int k)
    {
        final TestOp op = p.ops().get(k);
        return op.type() == TestOp.Type.SR && op.byClient() == server;
    }
}

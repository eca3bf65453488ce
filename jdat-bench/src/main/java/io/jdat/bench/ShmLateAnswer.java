package io.jdat.bench;

import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.util.Arrays;

/**
 * A 64-byte request and answer over {@code shm} (two IAs of this process) where the answer comes
 * late: the server thread works (spins) for a given time before it answers, and the client waits
 * in {@code dat_evd_wait} meanwhile, past its spin and its yields, into the part of its wait that
 * sleeps. Prints how much later than the work the answer reached the client (p50, p90, p99): the
 * cost of waking a sleeping waiter, which a peer that wakes it directly (a futex) keeps small and
 * a timed park does not. Not a JMH benchmark: run it as
 * <pre>
 *   java --enable-native-access=ALL-UNNAMED -cp jdat-bench/target/jdat-benchmarks.jar io.jdat.bench.ShmLateAnswer \
 *     [work in microseconds, default 500] [requests, default 2000]
 * </pre>
 */
public final class ShmLateAnswer
{
    private static final int SIZE = 64;

    private ShmLateAnswer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final long workNs = (args.length > 0 ? Long.parseLong(args[0]) : 500) * 1000;
        final int n = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        try (LoopbackRig rig = new LoopbackRig("shm", true, 1 << 16, 16))
        {
            final Endpoint client = rig.client;
            final Endpoint server = rig.server;
            final EventDispatcher clientRecv = rig.clientRecv;
            final EventDispatcher serverRecv = rig.serverRecv;
            final Lmr clientLmr = rig.clientLmr;
            final Lmr serverLmr = rig.serverLmr;
            final LmrTriplet[] req = {LmrTriplet.of(clientLmr, 0, SIZE)};
            final LmrTriplet[] reqRecv = {LmrTriplet.of(serverLmr, 4096, SIZE)};
            final LmrTriplet[] ans = {LmrTriplet.of(serverLmr, 0, SIZE)};
            final LmrTriplet[] ansRecv = {LmrTriplet.of(clientLmr, 4096, SIZE)};
            client.postRecv(1, ansRecv, 0, 0);
            server.postRecv(1, reqRecv, 0, 0);
            final int total = n + n / 10;
            final Thread worker = new Thread(() ->
            {
                final DatEvent ev = new DatEvent();
                for (int i = 0; i < total; i++)
                {
                    check(serverRecv.wait(Dat.TIMEOUT_INFINITE, 1, ev, new DatCount()), ev);
                    server.postRecv(1, reqRecv, 0, 0);
                    final long until = System.nanoTime() + workNs;
                    while (System.nanoTime() < until)
                    {
                        Thread.onSpinWait();
                    }
                    server.postSend(1, ans, 0, CompletionFlags.SUPPRESS_FLAG);
                }
            }, "bench-late-worker");
            worker.setDaemon(true);
            worker.start();
            final DatEvent ev = new DatEvent();
            final long[] late = new long[n];
            for (int i = 0; i < total; i++)
            {
                final long t0 = System.nanoTime();
                client.postSend(1, req, 0, CompletionFlags.SUPPRESS_FLAG);
                check(clientRecv.wait(Dat.TIMEOUT_INFINITE, 1, ev, new DatCount()), ev);
                final long t = System.nanoTime() - t0 - workNs;
                client.postRecv(1, ansRecv, 0, 0);
                if (i >= total - n)
                {
                    late[i - (total - n)] = t;
                }
            }
            worker.join(10_000);
            Arrays.sort(late);
            System.out.printf("work %d us, %d requests: answer later than the work by p50 %.1f us, p90 %.1f us,"
                + " p99 %.1f us%n", workNs / 1000, n, late[n / 2] / 1e3, late[n * 9 / 10] / 1e3,
                late[n * 99 / 100] / 1e3);
        }
    }

    private static void check(final DatStatus s, final DatEvent ev)
    {
        if (s != DatStatus.SUCCESS || ev.dto.status != DtoStatus.SUCCESS)
        {
            throw new IllegalStateException(s + ": " + ev);
        }
    }
}

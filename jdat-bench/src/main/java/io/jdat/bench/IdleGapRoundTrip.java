package io.jdat.bench;

import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.LmrTriplet;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * What a {@code dat_evd_wait} round trip costs after the connection was quiet for a while: a
 * 64-byte Send/Recv ping-pong between two threads of one process, both waiting in
 * {@code dat_evd_wait}, with a pause of {@code gap} before each round trip, so that the echoing
 * thread's wait has gone past its spin into its backoff (on shm: yields, then timed parks of 1 µs
 * doubling to {@code idle_park_max_ns}). Loopback beside it is the directly woken waiter: its
 * poster unparks the waiting thread, which is what a futex word would give shm across processes.
 * Not JMH: the figure is the round trip after each gap, not a rate.
 * <pre>
 * java -cp jdat-bench/target/jdat-benchmarks.jar io.jdat.bench.IdleGapRoundTrip [rounds per gap]
 * </pre>
 */
public final class IdleGapRoundTrip
{
    private static final int SIZE = 64;
    private static final long[] GAPS_NS = {0, 50_000, 500_000, 5_000_000};
    /** Round trips without a pause before the measured ones, for the JIT. */
    private static final int WARMUP = 50_000;

    private IdleGapRoundTrip()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        System.out.printf("64-byte Send/Recv round trip after a pause, both threads in dat_evd_wait; %d round trips"
            + " per pause; whole round trip in µs%n", rounds);
        for (final String provider : new String[] {"loopback", "shm"})
        {
            try (LoopbackRig rig = new LoopbackRig(provider, "shm".equals(provider), 1 << 16, 64))
            {
                run(provider, rig, rounds);
            }
        }
    }

    private static void run(final String provider, final LoopbackRig rig, final int rounds) throws InterruptedException
    {
        final LmrTriplet[] clientBuf = {LmrTriplet.of(rig.clientLmr, 0, SIZE)};
        final LmrTriplet[] serverBuf = {LmrTriplet.of(rig.serverLmr, 0, SIZE)};
        final int total = WARMUP + GAPS_NS.length * (rounds + rounds / 10);
        rig.server.postRecv(1, serverBuf, 0, CompletionFlags.DEFAULT_FLAG);
        final Thread echo = new Thread(() ->
        {
            final DatEvent ev = new DatEvent();
            final DatCount n = new DatCount();
            for (int i = 0; i < total; i++)
            {
                expectRecv(rig.serverRecv.wait(io.jdat.Dat.TIMEOUT_INFINITE, 1, ev, n), ev);
                if (i < total - 1)
                {
                    rig.server.postRecv(1, serverBuf, 0, CompletionFlags.DEFAULT_FLAG);
                }
                rig.server.postSend(1, serverBuf, 0, CompletionFlags.SUPPRESS_FLAG);
            }
        }, "bench-echo-" + provider);
        echo.setDaemon(true);
        echo.start();
        final DatEvent ev = new DatEvent();
        final DatCount n = new DatCount();
        for (int i = 0; i < WARMUP; i++)
        {
            rig.client.postRecv(1, clientBuf, 0, CompletionFlags.DEFAULT_FLAG);
            rig.client.postSend(1, clientBuf, 0, CompletionFlags.SUPPRESS_FLAG);
            expectRecv(rig.clientRecv.wait(io.jdat.Dat.TIMEOUT_INFINITE, 1, ev, n), ev);
        }
        for (final long gap : GAPS_NS)
        {
            final long[] rtt = new long[rounds];
            for (int i = -rounds / 10; i < rounds; i++)
            {
                if (gap > 0)
                {
                    LockSupport.parkNanos(gap);
                }
                rig.client.postRecv(1, clientBuf, 0, CompletionFlags.DEFAULT_FLAG);
                final long t0 = System.nanoTime();
                rig.client.postSend(1, clientBuf, 0, CompletionFlags.SUPPRESS_FLAG);
                expectRecv(rig.clientRecv.wait(io.jdat.Dat.TIMEOUT_INFINITE, 1, ev, n), ev);
                if (i >= 0)
                {
                    rtt[i] = System.nanoTime() - t0;
                }
            }
            Arrays.sort(rtt);
            System.out.printf("%-9s pause %7.0f µs   p50 %8.2f  p90 %8.2f  p99 %8.2f  max %8.2f%n", provider, gap / 1e3,
                rtt[rounds / 2] / 1e3, rtt[(int) (rounds * 0.9)] / 1e3, rtt[(int) (rounds * 0.99)] / 1e3,
                rtt[rounds - 1] / 1e3);
        }
        echo.join(10_000);
    }

    private static void expectRecv(final DatStatus s, final DatEvent ev)
    {
        if (s != DatStatus.SUCCESS || ev.dto.status != DtoStatus.SUCCESS)
        {
            throw new IllegalStateException("receive: " + s + " " + ev);
        }
    }
}

package io.jdat.tools.perf.baseline;

import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.perf.Op;
import io.jdat.tools.perf.RowSpec;
import java.lang.foreign.MemorySegment;
import org.HdrHistogram.Histogram;

/**
 * Runs a baseline the way jdat's tests run: ping-pong for send and write latency, request and
 * response for read latency (8 bytes out, the row's size back), and one-way streams for
 * bandwidth (client to server for send and write, server to client for read), timed by the side
 * that receives from its first measured message to its last. Every wait is a spin.
 */
public final class Harness
{
    private static final long REQUEST = 8;

    private Harness()
    {
    }

    /** The client's latency part: the measured round trips go into {@code rtt} (nanoseconds). */
    public static void clientLatency(final Baseline.End end, final RowSpec row, final Histogram rtt,
        final long timeoutNanos)
    {
        final long request = row.op() == Op.read ? REQUEST : row.size();
        for (int round = 0; round < row.total(); round++)
        {
            final long t0 = System.nanoTime();
            send(end, end.src(), request, timeoutNanos);
            receive(end, end.dst(), row.size(), timeoutNanos);
            final long t1 = System.nanoTime();
            if (round >= row.warmup())
            {
                rtt.recordValue(t1 - t0);
            }
        }
    }

    /** The server's latency part: answers every round trip. */
    public static void serverLatency(final Baseline.End end, final RowSpec row, final long timeoutNanos)
    {
        final long request = row.op() == Op.read ? REQUEST : row.size();
        for (int round = 0; round < row.total(); round++)
        {
            receive(end, end.dst(), request, timeoutNanos);
            send(end, end.src(), row.size(), timeoutNanos);
        }
    }

    /**
     * One side's bandwidth part: streams out and/or in as the row asks; returns the nanoseconds
     * this side received for (0 when it only sent).
     */
    public static long bandwidth(final Baseline.End end, final RowSpec row, final boolean client,
        final long timeoutNanos)
    {
        final boolean clientSends = row.op() != Op.read;
        final boolean sends = client == clientSends || row.bidirectional();
        final boolean receives = client != clientSends || row.bidirectional();
        final int total = row.total();
        int sent = sends ? 0 : total;
        int received = receives ? 0 : total;
        long start = 0;
        long end0 = 0;
        long idleSince = 0;
        int idle = 0;
        while (sent < total || received < total)
        {
            boolean progress = false;
            if (sent < total && end.out().trySend(end.src(), row.size()))
            {
                sent++;
                progress = true;
            }
            if (received < total && end.in().tryReceive(end.dst(), row.size()))
            {
                if (received == row.warmup())
                {
                    start = System.nanoTime();
                }
                received++;
                if (received == total)
                {
                    end0 = System.nanoTime();
                }
                progress = true;
            }
            if (progress)
            {
                idle = 0;
                continue;
            }
            if (idle++ == 0)
            {
                idleSince = System.nanoTime();
            }
            else if ((idle & 0x3FF) == 0)
            {
                stall(idleSince, timeoutNanos, "baseline stream");
            }
            Thread.onSpinWait();
        }
        return receives ? Math.max(1, end0 - start) : 0;
    }

    private static void send(final Baseline.End end, final MemorySegment src, final long size, final long timeout)
    {
        if (end.out().trySend(src, size))
        {
            return;
        }
        final long since = System.nanoTime();
        while (!end.out().trySend(src, size))
        {
            stall(since, timeout, "baseline send");
            Thread.onSpinWait();
        }
    }

    private static void receive(final Baseline.End end, final MemorySegment dst, final long size, final long timeout)
    {
        if (end.in().tryReceive(dst, size))
        {
            return;
        }
        final long since = System.nanoTime();
        while (!end.in().tryReceive(dst, size))
        {
            stall(since, timeout, "baseline receive");
            Thread.onSpinWait();
        }
    }

    private static void stall(final long since, final long timeoutNanos, final String what)
    {
        if (System.nanoTime() - since > timeoutNanos)
        {
            throw new CheckFailed(what + ": nothing moved for " + timeoutNanos / 1e9 + " s");
        }
    }
}

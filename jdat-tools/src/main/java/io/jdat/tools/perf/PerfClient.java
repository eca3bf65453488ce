package io.jdat.tools.perf;

import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.Message;
import io.jdat.tools.kit.Pattern;
import io.jdat.tools.perf.baseline.Baseline;
import io.jdat.tools.perf.baseline.Harness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The client side of a {@code jdat perf} session: drives each measurement (RUN, READY, the
 * test, CHECK, DONE), jdat's part and then the baseline's, never both at once, and checks the
 * data that reached its own buffer.
 */
final class PerfClient
{
    private final PerfSide side;
    /**
     * Sized up front for every value a test can record (a wait longer than the timeout fails
     * it): an auto-resizing histogram would allocate new counts in the middle of a measured
     * loop whenever a round took longer than any before.
     */
    private final Histogram rtt;
    private final boolean corrupt;
    private Allocated allocated;
    /** The server JVM's compilation time in milliseconds at its last DONE, -1 before or where not reported. */
    private long serverCompileMillis = -1;

    /**
     * The heap bytes the client's and the server's measuring threads allocated in one jdat
     * measurement, each -1 where the JVM does not count them.
     *
     * @param client bytes the client's thread allocated while it ran the test
     * @param server bytes the server's thread allocated while it ran the test
     * @param ops    operations of the test (warm-up rounds included)
     */
    record Allocated(long client, long server, long ops)
    {
        /** Client bytes per operation, NaN where not counted. */
        double clientPerOp()
        {
            return client < 0 || ops <= 0 ? Double.NaN : (double) client / ops;
        }

        /** Server bytes per operation, NaN where not counted. */
        double serverPerOp()
        {
            return server < 0 || ops <= 0 ? Double.NaN : (double) server / ops;
        }

        /** Both counts together, as one run of their operations; a side not counted in either is not counted. */
        Allocated plus(final Allocated other)
        {
            return new Allocated(client < 0 || other.client < 0 ? -1 : client + other.client,
                server < 0 || other.server < 0 ? -1 : server + other.server, ops + other.ops);
        }
    }

    PerfClient(final PerfSide side, final boolean corrupt)
    {
        this.side = side;
        this.corrupt = corrupt;
        this.rtt = new Histogram(Math.max(TimeUnit.HOURS.toNanos(1), 2 * side.settings.timeoutMicros() * 1000), 3);
    }

    /** jdat's latency for {@code row}. */
    Figures.Latency jdatLatency(final RowSpec row)
    {
        return Figures.Latency.of(jdatRounds(row), divisor(row));
    }

    /** What a latency row's round trips are divided by: 2 where a figure is half a round trip. */
    static double divisor(final RowSpec row)
    {
        return row.op().halfRoundTrip() ? 2 : 1;
    }

    /**
     * jdat's round trips (or reads) of {@code row} in nanoseconds, the measured ones: a
     * histogram of this client's that the next measurement resets.
     */
    Histogram jdatRounds(final RowSpec row)
    {
        prepare(row);
        final JdatLatency lat = new JdatLatency(side, row);
        lat.prepareClient();
        side.ctrl.call(row.toMessage("jdat").build()).expect("READY");
        rtt.reset();
        final long before = Allocations.ofThisThread();
        lat.client(rtt);
        final long after = Allocations.ofThisThread();
        finish(row, before, after);
        return rtt;
    }

    /** jdat's bandwidth for {@code row} (both directions added up when bidirectional). */
    Figures.Bandwidth jdatBandwidth(final RowSpec row)
    {
        prepare(row);
        final int depth = side.settings.depth();
        final LmrTriplet src = LmrTriplet.of(side.data, side.src(), row.size());
        final LmrTriplet dst = LmrTriplet.of(side.data, side.dst(), row.size());
        final List<JdatBandwidth.Stream> streams = new ArrayList<>();
        switch (row.op())
        {
            case send ->
            {
                streams.add(new JdatBandwidth.SendStream(side, side.fwd, src, row, depth));
                if (row.bidirectional())
                {
                    streams.add(new JdatBandwidth.RecvStream(side, side.rev, dst, row, depth));
                }
            }
            case write -> streams.add(new JdatBandwidth.RdmaStream(side.fwd, true, src,
                new RmrTriplet(side.remoteContext, side.remoteAddress + side.dst(), row.size()), row, depth));
            case read -> streams.add(new JdatBandwidth.RdmaStream(side.fwd, false, dst,
                new RmrTriplet(side.remoteContext, side.remoteAddress + side.src(), row.size()), row,
                Math.min(depth, side.readDepth)));
        }
        side.ctrl.call(row.toMessage("jdat").build()).expect("READY");
        final long before = Allocations.ofThisThread();
        JdatBandwidth.run(streams, side.settings.timeoutMicros());
        final long after = Allocations.ofThisThread();
        final long serverNanos = finish(row, before, after);
        final Figures.Bandwidth mine = Figures.Bandwidth.of(row.iters(), row.size(), streams.getFirst().nanos());
        return row.bidirectional() ? mine.plus(Figures.Bandwidth.of(row.iters(), row.size(), serverNanos)) : mine;
    }

    private void prepare(final RowSpec row)
    {
        Pattern.fill(side.memory, side.src(), row.size(), row.clientSeed());
        side.memory.asSlice(side.dst(), row.size()).fill((byte) 0);
    }

    /**
     * CHECK and DONE, then the client's own check; returns the nanoseconds the server timed.
     * {@code before} and {@code after}: the client thread's allocation counter around the test.
     */
    private long finish(final RowSpec row, final long before, final long after)
    {
        final Message done = side.ctrl.call(Message.of("CHECK").flag("corrupt", corrupt).build()).expect("DONE");
        noteServerCompileMillis(done);
        allocated = new Allocated(before < 0 || after < 0 ? -1 : after - before, done.getLong("alloc"), row.total());
        if (PerfServer.receivesData(row, true))
        {
            final long checked = row.kind() == RowSpec.Kind.lat && row.op() == Op.write ? row.size() - 1 : row.size();
            if (corrupt)
            {
                Pattern.corrupt(side.memory, side.dst(), checked);
            }
            Pattern.verify(side.memory, side.dst(), checked, row.serverSeed(),
                row + ": the client's destination buffer");
        }
        return done.getLong("nanos");
    }

    private void noteServerCompileMillis(final Message done)
    {
        // absent from a server that does not report it; a field that is not a number is refused
        serverCompileMillis = done.get("jit", null) == null ? -1 : done.getLong("jit");
    }

    /**
     * The server JVM's total compilation time in milliseconds as its last DONE reported it; -1
     * before the first or where the server does not report it.
     */
    long serverCompileMillis()
    {
        return serverCompileMillis;
    }

    /** What the last jdat measurement allocated on both sides (null before the first). */
    Allocated allocated()
    {
        return allocated;
    }

    /**
     * The baseline's round trips of {@code row} in nanoseconds, between the same two threads, as
     * {@link #jdatRounds} gives jdat's.
     */
    Histogram baselineRounds(final Baseline baseline, final RowSpec row)
    {
        rtt.reset();
        runBaseline(baseline, row);
        return rtt;
    }

    /** The baseline's bandwidth for {@code row}. */
    Figures.Bandwidth baselineBandwidth(final Baseline baseline, final RowSpec row)
    {
        final long[] nanos = runBaseline(baseline, row);
        Figures.Bandwidth total = null;
        for (final long n : nanos)
        {
            if (n > 0)
            {
                final Figures.Bandwidth one = Figures.Bandwidth.of(row.iters(), row.size(), n);
                total = total == null ? one : total.plus(one);
            }
        }
        return total;
    }

    /** Runs the baseline's client part; returns the nanoseconds the client and the server timed. */
    private long[] runBaseline(final Baseline baseline, final RowSpec row)
    {
        // whether jdat's client and server poll in this row, so that a baseline can wait the same way
        final Message.Builder run = row.toMessage("baseline").with("name", baseline.name())
            .flag("poll", row.kind() == RowSpec.Kind.bw || side.settings.poll())
            .flag("server_poll", PerfServer.polls(row, side.settings.poll()));
        try (Baseline.End end = baseline.client(row, side.settings.depth(), side.peerAddress, run))
        {
            end.ready(side.ctrl.call(run.build()).expect("READY"));
            final long timeout = side.settings.timeoutMicros() * 1000;
            long mine = 0;
            if (row.kind() == RowSpec.Kind.lat)
            {
                Harness.clientLatency(end, row, rtt, timeout);
            }
            else
            {
                mine = Harness.bandwidth(end, row, true, timeout);
            }
            final Message done = side.ctrl.receive().expect("DONE");
            noteServerCompileMillis(done);
            return new long[] {mine, done.getLong("nanos")};
        }
    }

    /** Ends the session. */
    void bye()
    {
        side.ctrl.call(Message.of("BYE").build()).expect("BYE");
        side.disconnect();
    }
}

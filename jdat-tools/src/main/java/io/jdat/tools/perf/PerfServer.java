package io.jdat.tools.perf;

import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.Jdat;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Message;
import io.jdat.tools.kit.Pattern;
import io.jdat.tools.perf.baseline.Baseline;
import io.jdat.tools.perf.baseline.Baselines;
import io.jdat.tools.perf.baseline.Harness;
import java.util.ArrayList;
import java.util.List;

/**
 * The server side of a {@code jdat perf} session: runs whatever the client's RUN messages ask,
 * jdat's part or a baseline's, one at a time on this one thread, until BYE.
 */
final class PerfServer
{
    private final PerfSide side;

    PerfServer(final PerfSide side)
    {
        this.side = side;
    }

    /** Serves until the client says BYE; a failure is reported to the client, then thrown. */
    void serve()
    {
        while (true)
        {
            final Message m = side.ctrl.receive();
            switch (m.verb())
            {
                case "BYE" ->
                {
                    side.ctrl.send("BYE");
                    for (final var link : new io.jdat.tools.kit.Link[] {side.fwd, side.rev, side.ctrl.link})
                    {
                        link.awaitDisconnected();
                    }
                    return;
                }
                case "RUN" ->
                {
                    try
                    {
                        run(m);
                    }
                    catch (final RuntimeException e)
                    {
                        reportFailure(e);
                        throw e;
                    }
                }
                default -> throw new CheckFailed("perf server: unexpected message " + m);
            }
        }
    }

    private void reportFailure(final RuntimeException e)
    {
        try
        {
            side.ctrl.send(Message.fail("server: " + Jdat.describe(e)));
        }
        catch (final RuntimeException ignored)
        {
            // the control connection is gone too: the client will see that
        }
    }

    private void run(final Message m)
    {
        final RowSpec row = RowSpec.from(m);
        if ("baseline".equals(m.get("what")))
        {
            baseline(row, m);
            return;
        }
        final long size = row.size();
        Pattern.fill(side.memory, side.src(), size, row.serverSeed());
        side.memory.asSlice(side.dst(), size).fill((byte) 0);
        long nanos = 0;
        final long allocated;
        if (row.kind() == RowSpec.Kind.lat)
        {
            final JdatLatency lat = new JdatLatency(side, row);
            lat.prepareServer();
            side.ctrl.send("READY");
            final long before = Allocations.ofThisThread();
            lat.server();
            allocated = allocatedSince(before);
        }
        else
        {
            final List<JdatBandwidth.Stream> streams = streams(row);
            side.ctrl.send("READY");
            final long before = Allocations.ofThisThread();
            if (!streams.isEmpty())
            {
                JdatBandwidth.run(streams, side.settings.timeoutMicros());
                nanos = streams.getLast().nanos();
            }
            allocated = allocatedSince(before);
        }
        // the target of one-way RDMA under --inline-poll spins for CHECK, and so reads the stream as it spins
        final boolean spin = row.kind() == RowSpec.Kind.bw && polls(row, side.settings.poll());
        final Message check = (spin ? side.ctrl.receive(Completion.POLL) : side.ctrl.receive()).expect("CHECK");
        if (receivesData(row, false))
        {
            final long checked = row.kind() == RowSpec.Kind.lat && row.op() == Op.write ? size - 1 : size;
            if (check.getFlag("corrupt"))
            {
                Pattern.corrupt(side.memory, side.dst(), checked);
            }
            Pattern.verify(side.memory, side.dst(), checked, row.clientSeed(),
                row + ": the server's destination buffer");
        }
        side.ctrl.send(Message.of("DONE").with("nanos", nanos).with("alloc", allocated)
            .with("jit", WarmUp.thisJvmCompileMillis()).build());
    }

    /** The bytes this thread allocated since the reading {@code before}; -1 where they are not counted. */
    private static long allocatedSince(final long before)
    {
        final long now = Allocations.ofThisThread();
        return before < 0 || now < 0 ? -1 : now - before;
    }

    /**
     * The server's streams of a bandwidth test: it receives the client's Sends; in a
     * bidirectional test it also streams its own Sends (on {@code rev}), Writes or Reads; the
     * last stream in the list is the one the server times.
     */
    private List<JdatBandwidth.Stream> streams(final RowSpec row)
    {
        final List<JdatBandwidth.Stream> streams = new ArrayList<>();
        final int depth = side.settings.depth();
        final LmrTriplet src = LmrTriplet.of(side.data, side.src(), row.size());
        final LmrTriplet dst = LmrTriplet.of(side.data, side.dst(), row.size());
        switch (row.op())
        {
            case send ->
            {
                streams.add(new JdatBandwidth.RecvStream(side, side.fwd, dst, row, depth));
                if (row.bidirectional())
                {
                    streams.add(new JdatBandwidth.SendStream(side, side.rev, src, row, depth));
                }
            }
            case write ->
            {
                if (row.bidirectional())
                {
                    streams.add(new JdatBandwidth.RdmaStream(side.fwd, true, src,
                        new RmrTriplet(side.remoteContext, side.remoteAddress + side.dst(), row.size()), row, depth));
                }
            }
            case read ->
            {
                if (row.bidirectional())
                {
                    streams.add(new JdatBandwidth.RdmaStream(side.fwd, false, dst,
                        new RmrTriplet(side.remoteContext, side.remoteAddress + side.src(), row.size()), row,
                        Math.min(depth, side.readDepth)));
                }
            }
        }
        return streams;
    }

    /**
     * Whether the server's thread polls while jdat runs {@code row}: in a latency row when the
     * client asked for {@code --inline-poll}; in a bandwidth row when it runs a stream of its own
     * (it receives Sends, or the row is bidirectional), or when the client asked for
     * {@code --inline-poll} (both sides spin). Otherwise, as the target of one-way RDMA Writes or
     * Reads, it waits in {@code dat_evd_wait} for the client's CHECK while the transport moves the
     * data.
     */
    static boolean polls(final RowSpec row, final boolean inlinePoll)
    {
        if (row.kind() == RowSpec.Kind.lat)
        {
            return inlinePoll;
        }
        return row.op() == Op.send || row.bidirectional() || inlinePoll;
    }

    /** Whether data lands in this side's destination buffer in {@code row}. */
    static boolean receivesData(final RowSpec row, final boolean client)
    {
        if (row.kind() == RowSpec.Kind.lat)
        {
            return client || row.op() != Op.read;
        }
        final boolean clientInitiates = row.op() != Op.read;
        // send and write move data to the server, read to the client
        return row.bidirectional() || client != clientInitiates;
    }

    private void baseline(final RowSpec row, final Message m)
    {
        final Baseline b = Baselines.byName(m.get("name"));
        final Message.Builder ready = Message.of("READY");
        try (Baseline.End end = b.server(row, side.settings.depth(), m, ready))
        {
            side.ctrl.send(ready.build());
            end.ready(null);
            final long timeout = side.settings.timeoutMicros() * 1000;
            long nanos = 0;
            if (row.kind() == RowSpec.Kind.lat)
            {
                Harness.serverLatency(end, row, timeout);
            }
            else
            {
                nanos = Harness.bandwidth(end, row, false, timeout);
            }
            side.ctrl.send(Message.of("DONE").with("nanos", nanos).with("jit", WarmUp.thisJvmCompileMillis()).build());
        }
    }
}

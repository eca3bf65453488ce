package io.jdat.tools.perf;

import io.jdat.CompletionFlags;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.HdrHistogram.Histogram;

/**
 * jdat's latency tests, both sides. Send: a Send/Recv ping-pong (the reply Send goes out as
 * soon as the request's receive completes). Write: an RDMA Write ping-pong where each side
 * spins on the last byte of its buffer, as ib_write_lat does. Read: one RDMA Read at a time,
 * post to completion. Sends and Writes are unsignalled except the last one.
 */
final class JdatLatency
{
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private final PerfSide side;
    private final RowSpec row;
    private final LmrTriplet[] src = {new LmrTriplet()};
    private final LmrTriplet[] dst = {new LmrTriplet()};
    private final RmrTriplet remoteDst = new RmrTriplet();
    private final RmrTriplet remoteSrc = new RmrTriplet();
    /** The round in progress, for failure messages. */
    private int round;

    JdatLatency(final PerfSide side, final RowSpec row)
    {
        this.side = side;
        this.row = row;
        src[0].set(side.data, side.src(), row.size());
        dst[0].set(side.data, side.dst(), row.size());
        remoteDst.set(side.remoteContext, side.remoteAddress + side.dst(), row.size());
        remoteSrc.set(side.remoteContext, side.remoteAddress + side.src(), row.size());
    }

    /**
     * The server's part before it answers READY: the first two receives (one to spare, so that it
     * replies before it reposts), a clean tag byte.
     */
    void prepareServer()
    {
        if (row.op() == Op.send)
        {
            side.fwd.ep.postRecv(1, dst, 0, CompletionFlags.DEFAULT_FLAG);
            if (row.total() > 1)
            {
                side.fwd.ep.postRecv(1, dst, 1, CompletionFlags.DEFAULT_FLAG);
            }
        }
        clearTag();
    }

    /** The client's part before it sends RUN. */
    void prepareClient()
    {
        clearTag();
    }

    private void clearTag()
    {
        side.memory.set(ValueLayout.JAVA_BYTE, side.dst() + row.size() - 1, (byte) 0);
    }

    /** The client: {@code total} round trips (or reads), the measured ones recorded in nanoseconds. */
    void client(final Histogram rtt)
    {
        try
        {
            switch (row.op())
            {
                case send -> clientSend(rtt);
                case write -> clientWrite(rtt);
                case read -> clientRead(rtt);
            }
        }
        catch (final CheckFailed e)
        {
            throw inRound(e);
        }
    }

    /** The server: answers the client's round trips (nothing to do for reads). */
    void server()
    {
        try
        {
            switch (row.op())
            {
                case send -> serverSend();
                case write -> serverWrite();
                case read ->
                {
                    // one-sided: the server's CPU takes no part
                }
            }
        }
        catch (final CheckFailed e)
        {
            throw inRound(e);
        }
    }

    /** A failure with its round: the loops build no message per round, so that they allocate nothing. */
    private CheckFailed inRound(final CheckFailed e)
    {
        return new CheckFailed("round " + round + " of " + row.total() + ": " + e.getMessage(), e);
    }

    private int flags(final int r)
    {
        return r == row.total() - 1 ? CompletionFlags.DEFAULT_FLAG : CompletionFlags.SUPPRESS_FLAG;
    }

    private void clientSend(final Histogram rtt)
    {
        final int total = row.total();
        for (round = 0; round < total; round++)
        {
            side.fwd.ep.postRecv(1, dst, round, CompletionFlags.DEFAULT_FLAG);
            final long t0 = System.nanoTime();
            side.fwd.ep.postSend(1, src, round, flags(round));
            side.fwd.expectRecv("send latency: reply", round, row.size());
            final long t1 = System.nanoTime();
            if (round >= row.warmup())
            {
                rtt.recordValue(t1 - t0);
            }
        }
        side.fwd.expectRequest("send latency: last Send", total - 1, row.size());
    }

    private void serverSend()
    {
        final int total = row.total();
        for (round = 0; round < total; round++)
        {
            side.fwd.expectRecv("send latency: request", round, row.size());
            // the reply first: the receive of the next round is posted already, and this repost
            // is for the one after it, as the client's repost comes before its clock starts
            side.fwd.ep.postSend(1, src, round, flags(round));
            if (round < total - 2)
            {
                side.fwd.ep.postRecv(1, dst, round + 2, CompletionFlags.DEFAULT_FLAG);
            }
        }
        side.fwd.expectRequest("send latency: last reply", total - 1, row.size());
    }

    private static byte tag(final int r)
    {
        return (byte) (r % 255 + 1);
    }

    private void clientWrite(final Histogram rtt)
    {
        final int total = row.total();
        final long last = row.size() - 1;
        for (round = 0; round < total; round++)
        {
            final byte tag = tag(round);
            side.memory.set(ValueLayout.JAVA_BYTE, side.src() + last, tag);
            final long t0 = System.nanoTime();
            side.fwd.ep.postRdmaWrite(1, src, round, remoteDst, flags(round));
            awaitTag(side.dst() + last, tag, "write latency: reply");
            final long t1 = System.nanoTime();
            if (round >= row.warmup())
            {
                rtt.recordValue(t1 - t0);
            }
        }
        side.fwd.expectRequest("write latency: last RDMA Write", total - 1, row.size());
    }

    private void serverWrite()
    {
        final int total = row.total();
        final long last = row.size() - 1;
        for (round = 0; round < total; round++)
        {
            final byte tag = tag(round);
            awaitTag(side.dst() + last, tag, "write latency: request");
            side.memory.set(ValueLayout.JAVA_BYTE, side.src() + last, tag);
            side.fwd.ep.postRdmaWrite(1, src, round, remoteDst, flags(round));
        }
        side.fwd.expectRequest("write latency: last reply", total - 1, row.size());
    }

    /** Spins until the byte at {@code offset} of the data LMR holds {@code tag}. */
    private void awaitTag(final long offset, final byte tag, final String what)
    {
        final MemorySegment m = side.memory;
        final long deadline = System.nanoTime() + side.settings.timeoutMicros() * 1000;
        int spins = 0;
        while ((byte) BYTE.getAcquire(m, offset) != tag)
        {
            if ((++spins & 0xFFF) == 0 && System.nanoTime() - deadline > 0)
            {
                throw new CheckFailed(what + " on " + side.fwd.name + ": the RDMA Write did not arrive within "
                    + side.settings.timeoutMicros() / 1e6 + " s");
            }
            Thread.onSpinWait();
        }
    }

    private void clientRead(final Histogram rtt)
    {
        final int total = row.total();
        for (round = 0; round < total; round++)
        {
            final long t0 = System.nanoTime();
            side.fwd.ep.postRdmaRead(1, dst, round, remoteSrc, CompletionFlags.DEFAULT_FLAG);
            side.fwd.expectRequest("read latency: RDMA Read", round, row.size());
            final long t1 = System.nanoTime();
            if (round >= row.warmup())
            {
                rtt.recordValue(t1 - t0);
            }
        }
    }
}

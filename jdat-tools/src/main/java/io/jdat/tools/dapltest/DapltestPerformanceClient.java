package io.jdat.tools.dapltest;

import io.jdat.CompletionFlags;
import io.jdat.EpAttr;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.HdrHistogram.Histogram;

/**
 * The client of a performance test on dapltest's wire ({@code dapltest -T P},
 * {@code dapl_performance_client.c}): {@code Client_Info} and {@code Performance_Cmd} on the
 * control connection, then one connection without private data to the first port the server
 * names. The server Sends first, the 12-byte entry of its buffer (while it is late the client
 * nudges, as {@link DapltestEndpoint} does); phase 1 keeps
 * {@code pipeline} RDMA Reads or Writes outstanding for {@code iterations} operations (the rate),
 * phase 2 runs {@code iterations} more one at a time (the latency); a 12-byte Send tells the
 * server that the client is done.
 */
final class DapltestPerformanceClient
{
    private static final long SYNC_COOKIE = 0xe0;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Phase 1's time for its operations, and phase 2's latencies in nanoseconds. */
    record Result(long pipelinedNanos, Histogram latency)
    {
    }

    private DapltestPerformanceClient()
    {
    }

    static Result run(final Node node, final IaAddress address, final long port, final Long testPort,
        final DapltestWire.PerformanceCmd cmd, final Completion mode, final long timeoutMicros)
    {
        final long first = DapltestControl.ask(node, address, port, DapltestWire.TestType.PERFORMANCE, 1,
            "Performance_Cmd", m -> DapltestWire.performanceCmd(m, address.toString(), node.iaName, cmd),
            timeoutMicros);
        final int pipeline = (int) Math.max(1, Math.min(cmd.pipeline(), cmd.iterations()));
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = 2;
        attr.maxRequestDtos = Math.max(2, pipeline);
        attr.maxRequestIov = Math.max(attr.maxRequestIov, cmd.segs());
        attr.maxRdmaReadIov = Math.max(attr.maxRdmaReadIov, cmd.segs());
        attr.maxRdmaWriteIov = Math.max(attr.maxRdmaWriteIov, cmd.segs());
        final Link link = node.link("performance client", attr, mode, timeoutMicros);
        final Lmr data = node.register(cmd.length(), MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        final Lmr sync = node.register(2L * DapltestWire.PERF_SYNC_SIZE, MemPriv.LOCAL_READ_FLAG
            | MemPriv.LOCAL_WRITE_FLAG);
        try
        {
            final LmrTriplet[] one = {LmrTriplet.of(sync, DapltestWire.PERF_SYNC_SIZE, DapltestWire.PERF_SYNC_SIZE)};
            link.ep.postRecv(1, one, SYNC_COOKIE, CompletionFlags.DEFAULT_FLAG);
            link.connect(address, testPort != null ? testPort : first, null);
            // siw may have left our first bytes unread, as with a transaction's table: nudge
            link.expectRecv("Recv of the server's remote memory entry", SYNC_COOKIE, DapltestWire.PERF_SYNC_SIZE,
                Link.NUDGE_AFTER_MICROS, link::nudge);
            final MemorySegment entry = sync.memory().asSlice(DapltestWire.PERF_SYNC_SIZE);
            final RmrTriplet target = new RmrTriplet(entry.get(U32, 0), entry.get(U64, 4), cmd.length());
            if (target.targetAddress == 0)
            {
                throw new CheckFailed("the server's remote memory entry names no buffer");
            }
            final LmrTriplet[] iov = new LmrTriplet[cmd.segs()];
            for (int s = 0; s < cmd.segs(); s++)
            {
                iov[s] = LmrTriplet.of(data, s * cmd.segSize(), cmd.segSize());
            }
            final boolean read = cmd.type() == TestOp.Type.RR;
            // phase 1: the pipe kept full
            final long t0 = System.nanoTime();
            long posted = 0;
            long reaped = 0;
            while (posted < pipeline)
            {
                post(link, read, iov, target, posted++);
            }
            while (reaped < cmd.iterations())
            {
                link.expectRequest("RDMA op " + reaped, reaped, cmd.length());
                reaped++;
                if (posted < cmd.iterations())
                {
                    post(link, read, iov, target, posted++);
                }
            }
            final long pipelined = System.nanoTime() - t0;
            // phase 2: one at a time
            final Histogram latency = new Histogram(3);
            for (long i = 0; i < cmd.iterations(); i++)
            {
                final long start = System.nanoTime();
                post(link, read, iov, target, posted);
                link.expectRequest("RDMA op " + posted, posted, cmd.length());
                posted++;
                latency.recordValue(Math.max(1, System.nanoTime() - start));
            }
            one[0] = LmrTriplet.of(sync, 0, DapltestWire.PERF_SYNC_SIZE);
            link.ep.postSend(1, one, SYNC_COOKIE + 1, CompletionFlags.DEFAULT_FLAG);
            link.expectRequest("Send of the sync", SYNC_COOKIE + 1, DapltestWire.PERF_SYNC_SIZE);
            link.awaitDisconnected();
            return new Result(pipelined, latency);
        }
        catch (final RuntimeException e)
        {
            link.abort();
            throw e;
        }
        finally
        {
            link.free();
            data.free();
            sync.free();
        }
    }

    private static void post(final Link link, final boolean read, final LmrTriplet[] iov, final RmrTriplet target,
        final long cookie)
    {
        if (read)
        {
            link.ep.postRdmaRead(iov.length, iov, cookie, target, CompletionFlags.DEFAULT_FLAG);
        }
        else
        {
            link.ep.postRdmaWrite(iov.length, iov, cookie, target, CompletionFlags.DEFAULT_FLAG);
        }
    }
}

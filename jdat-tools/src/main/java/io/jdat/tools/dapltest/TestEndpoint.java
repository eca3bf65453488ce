package io.jdat.tools.dapltest;

import io.jdat.CompletionFlags;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Message;
import io.jdat.tools.kit.Node;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One endpoint of a transaction test on one side, with a buffer per operation: what it sends
 * or receives, the source or sink of the RDMA it initiates, or the target or source it exposes
 * to the peer, with the privileges each needs. Before any RDMA the two sides swap the
 * {@code rmr_context}, address and length of what they expose in a Send, as dapltest does
 * (iWARP allows RDMA only after a Send/Recv exchange).
 */
final class TestEndpoint
{
    private static final long INFO_COOKIE = Long.MAX_VALUE;
    private static final int INFO = 2048;

    final Link link;
    final boolean client;
    final int thread;
    final int index;
    final List<TestOp> ops;
    private final Lmr[] buffers;
    private final LmrTriplet[][] iov;
    private final RmrTriplet[] remote;
    private final Lmr info;

    TestEndpoint(final Node node, final boolean client, final int thread, final int index, final List<TestOp> ops,
        final Completion mode, final long timeoutMicros)
    {
        this.client = client;
        this.thread = thread;
        this.index = index;
        this.ops = ops;
        final EpAttr attr = TestOp.endpointAttr(ops, 2);
        this.link = node.link((client ? "client" : "server") + " thread " + thread + " ep " + index, attr, mode,
            timeoutMicros);
        this.buffers = new Lmr[ops.size()];
        this.iov = new LmrTriplet[ops.size()][];
        this.remote = new RmrTriplet[ops.size()];
        for (int k = 0; k < ops.size(); k++)
        {
            final TestOp op = ops.get(k);
            buffers[k] = node.register(Math.max(1, op.length()), privileges(op));
            iov[k] = new LmrTriplet[op.segs()];
            for (int s = 0; s < op.segs(); s++)
            {
                iov[k][s] = LmrTriplet.of(buffers[k], s * op.segSize(), op.segSize());
            }
        }
        this.info = node.register(2 * INFO, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
    }

    /** The privileges of this side's buffer for {@code op}. */
    private int privileges(final TestOp op)
    {
        final boolean mine = op.initiatedBy(client);
        return switch (op.type())
        {
            case SR -> mine ? MemPriv.LOCAL_READ_FLAG : MemPriv.LOCAL_WRITE_FLAG;
            case RW -> mine ? MemPriv.LOCAL_READ_FLAG
                : MemPriv.REMOTE_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG;
            // an RDMA Read sink is written by a tagged Read Response: iWARP wants remote write on it
            case RR -> mine ? MemPriv.LOCAL_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG
                : MemPriv.REMOTE_READ_FLAG | MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG;
        };
    }

    /** The buffer of operation {@code k}. */
    MemorySegment memory(final int k)
    {
        return buffers[k].memory();
    }

    /** The local segments of operation {@code k}. */
    LmrTriplet[] iov(final int k)
    {
        return iov[k];
    }

    /** The peer's buffer for operation {@code k}, learned from its info message. */
    RmrTriplet remote(final int k)
    {
        return remote[k];
    }

    /** The cookie of operation {@code k} in iteration {@code iter}. */
    long cookie(final int iter, final int k)
    {
        return (long) iter * ops.size() + k;
    }

    /**
     * Posts, before the connection exists, the receive for the peer's info message and this
     * side's receives of the first iteration, in the order the Sends will arrive.
     */
    void prepare()
    {
        link.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(info, 0, INFO)}, INFO_COOKIE, CompletionFlags.DEFAULT_FLAG);
        for (int k = 0; k < ops.size(); k++)
        {
            if (ops.get(k).type() == TestOp.Type.SR && !ops.get(k).initiatedBy(client))
            {
                postRecv(0, k);
            }
        }
    }

    /** Posts the receive of operation {@code k} for iteration {@code iter}. */
    void postRecv(final int iter, final int k)
    {
        link.ep.postRecv(iov[k].length, iov[k], cookie(iter, k), CompletionFlags.DEFAULT_FLAG);
    }

    /** Sends what this side exposes for the peer's RDMA and learns what the peer exposes. */
    void exchangeInfo()
    {
        final Message.Builder m = Message.of("INFO");
        for (int k = 0; k < ops.size(); k++)
        {
            final TestOp op = ops.get(k);
            if (op.type() != TestOp.Type.SR && !op.initiatedBy(client))
            {
                m.with("op" + k, buffers[k].rmrContext() + ":" + buffers[k].registeredAddress() + ":" + op.length());
            }
        }
        final byte[] bytes = m.toString().getBytes(StandardCharsets.UTF_8);
        info.memory().asSlice(INFO, bytes.length).copyFrom(MemorySegment.ofArray(bytes));
        link.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(info, INFO, bytes.length)}, INFO_COOKIE,
            CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("Send of the RMR info", INFO_COOKIE, bytes.length);
        final long length = link.expectRecv("Recv of the peer's RMR info", INFO_COOKIE, -1).dto.transferredLength;
        final byte[] got = info.memory().asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        final Message peer = Message.parse(new String(got, StandardCharsets.UTF_8)).expect("INFO");
        for (int k = 0; k < ops.size(); k++)
        {
            final TestOp op = ops.get(k);
            if (op.type() != TestOp.Type.SR && op.initiatedBy(client))
            {
                final String[] f = peer.get("op" + k).split(":");
                if (Long.parseLong(f[2]) != op.length())
                {
                    throw new CheckFailed("RMR info on " + link.name + ": op " + k + " exposes " + f[2]
                        + " bytes, expected "
                        + op.length());
                }
                remote[k] = new RmrTriplet((int) Long.parseLong(f[0]), Long.parseLong(f[1]), op.length());
            }
        }
    }

    /** Frees the endpoint's objects; failures are ignored (the IA close frees what is left). */
    void free()
    {
        link.free();
        try
        {
            for (final Lmr l : buffers)
            {
                l.free();
            }
            info.free();
        }
        catch (final RuntimeException e)
        {
            // left to dat_ia_close
        }
    }
}

package io.jdat.tools.dapltest;

import io.jdat.CompletionFlags;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * One test endpoint of a transaction test on dapltest's wire, on either side: a buffer per op,
 * the remote memory table and sync buffers, and dapltest's fill and check of the data. An op is
 * "ours" when this side initiates it.
 */
final class DapltestEndpoint
{
    static final long RMI_COOKIE = 0xd0;
    static final long SYNC_COOKIE = 0xe0;

    final Link link;
    private final boolean server;
    private final TransactionParams p;
    private final Lmr[] buffers;
    private final LmrTriplet[][] iov;
    private final RmrTriplet[] remote;
    private final Lmr small;
    private final LmrTriplet[] one = {new LmrTriplet()};
    private int nudges;
    private boolean corrupted;

    /** The endpoint and its buffers, with the receives of the peer's table and first sync posted. */
    DapltestEndpoint(final Node node, final boolean server, final String name, final TransactionParams p,
        final long timeoutMicros)
    {
        this.server = server;
        this.p = p;
        final List<TestOp> ops = p.ops();
        final EpAttr attr = TestOp.endpointAttr(ops, 3);
        this.link = node.link(name, attr, p.mode(), timeoutMicros);
        this.buffers = new Lmr[ops.size()];
        this.iov = new LmrTriplet[ops.size()][];
        this.remote = new RmrTriplet[ops.size()];
        for (int k = 0; k < ops.size(); k++)
        {
            final TestOp op = ops.get(k);
            buffers[k] = node.register(Math.max(1, op.length()), MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG
                | MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG);
            iov[k] = new LmrTriplet[op.segs()];
            for (int s = 0; s < op.segs(); s++)
            {
                iov[k][s] = LmrTriplet.of(buffers[k], s * op.segSize(), op.segSize());
            }
        }
        // RMI send, RMI recv, sync send, sync recv
        this.small = node.register(2L * DapltestWire.RMI_SIZE + 2L * DapltestWire.SYNC_SIZE,
            MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        one[0].set(small, DapltestWire.RMI_SIZE, DapltestWire.RMI_SIZE);
        link.ep.postRecv(1, one, RMI_COOKIE, CompletionFlags.DEFAULT_FLAG);
        postSyncRecv();
    }

    /** Whether this side initiates {@code op}. */
    boolean ours(final TestOp op)
    {
        return op.byClient() != server;
    }

    void postSyncRecv()
    {
        one[0].set(small, 2L * DapltestWire.RMI_SIZE + DapltestWire.SYNC_SIZE, DapltestWire.SYNC_SIZE);
        link.ep.postRecv(1, one, SYNC_COOKIE, CompletionFlags.DEFAULT_FLAG);
    }

    /**
     * The remote memory tables: what the peer may read or write here, and what it exposes to
     * us. The client Sends first (MPA's startup rule), the server answers.
     */
    void exchangeRmi()
    {
        final List<long[]> entries = new ArrayList<>();
        for (int k = 0; k < p.ops().size(); k++)
        {
            final TestOp op = p.ops().get(k);
            entries.add(op.type() != TestOp.Type.SR && !ours(op)
                ? new long[] {buffers[k].rmrContext(), buffers[k].registeredAddress()} : null);
        }
        DapltestWire.putRmi(small.memory(), entries);
        if (!server)
        {
            sendRmi();
        }
        final String peer = server ? "client" : "server";
        final String what = "Recv of the " + peer + "'s remote memory table";
        if (server)
        {
            link.expectRecv(what, RMI_COOKIE, DapltestWire.RMI_SIZE);
        }
        else
        {
            link.expectRecv(what, RMI_COOKIE, DapltestWire.RMI_SIZE, Link.NUDGE_AFTER_MICROS, this::nudge);
        }
        if (server)
        {
            sendRmi();
        }
        final MemorySegment got = small.memory().asSlice(DapltestWire.RMI_SIZE, DapltestWire.RMI_SIZE);
        for (int k = 0; k < p.ops().size(); k++)
        {
            final TestOp op = p.ops().get(k);
            if (op.type() != TestOp.Type.SR && ours(op))
            {
                final long[] e = DapltestWire.rmi(got, k);
                if (e[1] == 0)
                {
                    throw new CheckFailed("remote memory table on " + link.name + ": the " + peer + " exposes no "
                        + "buffer for op " + k + " (" + op.type() + ")");
                }
                remote[k] = new RmrTriplet((int) e[0], e[1], op.length());
            }
        }
    }

    /** A zero-length RDMA Write ({@link Link#nudge()}), counted. */
    private void nudge()
    {
        link.nudge();
        nudges++;
    }

    /** How many times the client nudged the server ({@link #nudge()}). */
    int nudges()
    {
        return nudges;
    }

    private void sendRmi()
    {
        one[0].set(small, 0, DapltestWire.RMI_SIZE);
        link.ep.postSend(1, one, RMI_COOKIE, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("Send of the remote memory table", RMI_COOKIE, DapltestWire.RMI_SIZE);
    }

    void awaitSync(final String which)
    {
        link.expectRecv("Recv of the " + (server ? "client" : "server") + "'s " + which + " sync", SYNC_COOKIE,
            DapltestWire.SYNC_SIZE);
    }

    void postSync()
    {
        one[0].set(small, 2L * DapltestWire.RMI_SIZE, DapltestWire.SYNC_SIZE);
        link.ep.postSend(1, one, SYNC_COOKIE, CompletionFlags.DEFAULT_FLAG);
    }

    void awaitSyncSent(final String which)
    {
        link.expectRequest("Send of the " + which + " sync", SYNC_COOKIE, DapltestWire.SYNC_SIZE);
    }

    void postRecv(final int k)
    {
        link.ep.postRecv(iov[k].length, iov[k], DapltestThread.cookie(0, k), CompletionFlags.DEFAULT_FLAG);
    }

    void send(final int k, final int iter)
    {
        link.ep.postSend(iov[k].length, iov[k], DapltestThread.cookie(iter, k), CompletionFlags.DEFAULT_FLAG);
    }

    void postRdma(final int k, final int iter)
    {
        final TestOp op = p.ops().get(k);
        if (op.type() == TestOp.Type.RR)
        {
            link.ep.postRdmaRead(iov[k].length, iov[k], DapltestThread.cookie(iter, k), remote[k],
                CompletionFlags.DEFAULT_FLAG);
        }
        else
        {
            link.ep.postRdmaWrite(iov[k].length, iov[k], DapltestThread.cookie(iter, k), remote[k],
                CompletionFlags.DEFAULT_FLAG);
        }
    }

    /** dapltest's fill: what this side sends, writes or exposes for reading carries the pattern. */
    void fill(final int iter)
    {
        if (iter >= p.iters())
        {
            return;
        }
        for (int k = 0; k < p.ops().size() - 3; k++)
        {
            final TestOp op = p.ops().get(k);
            final boolean source = op.type() == TestOp.Type.RR ? !ours(op) : ours(op);
            if (source)
            {
                buffers[k].memory().asSlice(0, op.length()).fill((byte) (iter + 1));
            }
        }
    }

    /** dapltest's check: what this side received, read, or had written into it carries the pattern. */
    long check(final int iter)
    {
        long n = 0;
        for (int k = 0; k < p.ops().size() - 3; k++)
        {
            final TestOp op = p.ops().get(k);
            final boolean sink = op.type() == TestOp.Type.RR ? ours(op) : !ours(op);
            if (!sink)
            {
                continue;
            }
            final MemorySegment b = buffers[k].memory();
            final byte want = (byte) (iter + 1);
            if (p.corrupt() && !corrupted && op.length() > 0)
            {
                // test only (--inject-corruption): one damaged byte, which this check must catch
                b.set(ValueLayout.JAVA_BYTE, op.length() / 2, (byte) ~want);
                corrupted = true;
            }
            for (long j = 0; j < op.length(); j++)
            {
                final byte got = b.get(ValueLayout.JAVA_BYTE, j);
                if (got != want)
                {
                    throw new CheckFailed("validation on " + link.name + ", iteration " + iter + ", op " + k + " ("
                        + (op.byClient() ? "client " : "server ") + op.type() + "): byte " + j + " of " + op.length()
                        + " is " + String.format("0x%02x, expected 0x%02x", got, want));
                }
            }
            n++;
        }
        return n;
    }

    /**
     * Ends the test on {@code eps}: an abrupt disconnect of each, as dapltest does (after a test
     * that passed, each awaits its DISCONNECTED), then frees every one, whatever happened.
     */
    static void endAll(final List<DapltestEndpoint> eps, final boolean passed)
    {
        try
        {
            for (final DapltestEndpoint ep : eps)
            {
                ep.link.abort();
            }
            if (passed)
            {
                for (final DapltestEndpoint ep : eps)
                {
                    ep.link.awaitDisconnected();
                }
            }
        }
        finally
        {
            eps.forEach(DapltestEndpoint::free);
        }
    }

    void free()
    {
        link.free();
        for (final Lmr l : buffers)
        {
            try
            {
                l.free();
            }
            catch (final RuntimeException e)
            {
                // left to dat_ia_close
            }
        }
        try
        {
            small.free();
        }
        catch (final RuntimeException e)
        {
            // left to dat_ia_close
        }
    }
}

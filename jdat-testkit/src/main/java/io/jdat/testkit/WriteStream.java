package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The survivor's side of the peer death tests: an endpoint connected to a sink peer
 * ({@link Transaction#sink}), a stream of RDMA Writes into the sink's exposed LMR and the count
 * of their completions. Completions must come in posting order and no success may follow a
 * flush. When and how the peer dies is the test's own.
 */
public final class WriteStream
{
    /** The cookie of the Recv that the blocked waiter waits for. */
    public static final long WAITER_COOKIE = 900;

    private final ProviderNode.Ep ep;
    private final LmrTriplet[] iov;
    private final int size;
    private final int rmr;
    private final long base;
    private final DatEvent ev = new DatEvent();
    private final DatCount count = new DatCount();
    private CompletableFuture<DatEvent> waiter;
    private long posted;
    private long done;
    private long ok;
    private long flushed;

    private WriteStream(final ProviderNode.Ep ep, final Lmr mem, final int size, final DatEvent up)
    {
        this.ep = ep;
        this.size = size;
        iov = new LmrTriplet[] {LmrTriplet.of(mem, 0, size)};
        final ByteBuffer pd = ByteBuffer.wrap(up.connection.privateData, 0, 12);
        rmr = pd.getInt();
        base = pd.getLong();
    }

    /**
     * Connects {@code ep} to the sink {@code peer} listening at {@code address}/{@code qual},
     * reads the sink's LMR from the accept's private data, waits for the peer's
     * {@code ACCEPTED} line and leaves a consumer blocked in {@code dat_evd_wait} with no timeout
     * on the receive EVD (a Recv of {@code mem} posted for it), which must come back when the
     * connection ends. Writes are {@code size} bytes of {@code mem}.
     */
    public static WriteStream connect(final ProviderNode.Ep ep, final Lmr mem, final int size,
        final PeerProcess peer, final IaAddress address, final long qual) throws InterruptedException
    {
        ep.ep().connect(address, qual, 10 * ProviderNode.SECOND, null, Qos.BEST_EFFORT, 0);
        final DatEvent up = ProviderNode.next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        final WriteStream stream = new WriteStream(ep, mem, size, up);
        peer.awaitExactly("ACCEPTED", 10);

        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, WAITER_COOKIE, 0);
        stream.waiter = CompletableFuture.supplyAsync(() ->
        {
            final DatEvent ev = new DatEvent();
            ep.recv().wait(Dat.TIMEOUT_INFINITE, 1, ev, new DatCount());
            return ev;
        }, task -> Thread.ofPlatform().daemon().name("test-waiter").start(task));
        return stream;
    }

    /** Posts one RDMA Write, into one of eight slots of the sink's LMR in turn. */
    public void post()
    {
        final long at = posted % 8 * size;
        ep.ep().postRdmaWrite(1, iov, posted, new RmrTriplet(rmr, base + at, size), 0);
        posted++;
    }

    /** Posts Writes until {@code outstanding} are not yet completed. */
    public void fill(final int outstanding)
    {
        while (posted - done < outstanding)
        {
            post();
        }
    }

    /**
     * Waits up to {@code micros} for the next completion and counts it; returns its status
     * (SUCCESS or ERR_FLUSHED, anything else fails).
     */
    public DtoStatus complete(final long micros)
    {
        final DatStatus s = ep.req().wait(micros, 1, ev, count);
        assertEquals(DatStatus.SUCCESS, s, "a posted RDMA Write never completed");
        assertEquals(done, ev.dto.userCookie, "completions in posting order");
        done++;
        if (ev.dto.status == DtoStatus.SUCCESS)
        {
            assertEquals(0, flushed, "no success after a flush");
            ok++;
        }
        else
        {
            assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status, ev.toString());
            flushed++;
        }
        return ev.dto.status;
    }

    /** Whether every posted Write has completed. */
    public boolean drained()
    {
        return done == posted;
    }

    public long posted()
    {
        return posted;
    }

    public long ok()
    {
        return ok;
    }

    public long flushed()
    {
        return flushed;
    }

    /** The counts, for a failure message. */
    public String counts()
    {
        return ok + " written, " + flushed + " flushed, " + posted + " posted";
    }

    /** Checks that the blocked waiter came back within 5 s with its Recv flushed. */
    public void waiterFlushed() throws Exception
    {
        final DatEvent recv = waiter.get(5, TimeUnit.SECONDS);
        assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
        assertEquals(WAITER_COOKIE, recv.dto.userCookie);
    }
}

package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;
import io.jdat.testkit.WriteStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A peer process that dies (SIGKILL) or freezes (SIGSTOP, its kernel still acknowledging) in the
 * middle of a stream of RDMA Writes: the survivor's endpoint leaves CONNECTED within the IA's
 * liveness bound, every posted DTO completes in order (the unfinished ones flushed), a blocked
 * waiter returns, and after a kill the survivor runs a transaction with a new peer.
 */
class TcpPeerDeathTest
{
    private static final IaAddress LOCAL = IaAddress.parse("127.0.0.1");
    private static final int WRITE = 256 << 10;
    /** More than the kernels' socket buffers hold, so that some Writes are still queued at the end. */
    private static final int OUTSTANDING = 64;

    @Test
    void peerKilledMidTransferEndsTheConnectionAndTheSurvivorRunsOnWithAnother() throws Exception
    {
        try (TcpNode client = TcpNode.open())
        {
            final TcpNode.Ep ep = client.ep(withRequests(OUTSTANDING));
            final Lmr mem = client.lmr(WRITE);
            try (PeerProcess victim = TcpPeer.start("sink", ""))
            {
                final long ms = stream(ep, mem, victim, Long.parseLong(victim.await("READY ", 30)), false);
                assertTrue(ms < 5000, "the end came " + ms + " ms after the kill");
            }

            ep.ep().free();
            try (PeerProcess server = TcpPeer.start("validate", ""))
            {
                final long port = Long.parseLong(server.await("READY ", 30));
                TcpNode.TRANSACTION.run(client.lmr(Transaction.LMR_SIZE), client.ep(null).side(), LOCAL, port);
                server.await("OK", 10);
                assertEquals(0, server.exit(10), server.output());
            }
        }
    }

    @Test
    void aFrozenPeerIsBrokenOffWithinTheLivenessBound() throws Exception
    {
        try (TcpNode client = TcpNode.open("liveness_ms=2000"))
        {
            assertEquals("2000", client.query().transportAttr("jdat.tcp.liveness_ms"));
            final TcpNode.Ep ep = client.ep(withRequests(OUTSTANDING));
            final Lmr mem = client.lmr(WRITE);
            try (PeerProcess victim = TcpPeer.start("sink", ""))
            {
                final long port = Long.parseLong(victim.await("READY ", 30));
                final long ms = stream(ep, mem, victim, port, true);
                // the bound counts from the last progress, which on a loaded machine can come some
                // hundreds of milliseconds before the freeze (a slow sink already stalled the stream):
                // not broken at once, and not long after the bound
                assertTrue(ms >= 1000 && ms < 2000 + 3000, "broken after " + ms + " ms");
                victim.signal("CONT");
            }
        }
    }

    @Test
    void aFrozenPeerThatOwesAnRdmaReadResponseIsBrokenOffWithinTheLivenessBound() throws Exception
    {
        try (TcpNode client = TcpNode.open("liveness_ms=2000"))
        {
            final TcpNode.Ep ep = client.ep(null);
            final Lmr mem = client.lmr(WRITE);
            try (PeerProcess victim = TcpPeer.start("sink", ""))
            {
                final long port = Long.parseLong(victim.await("READY ", 30));
                ep.ep().connect(LOCAL, port, 10 * SECOND, null, Qos.BEST_EFFORT, 0);
                final DatEvent up = TcpNode.next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                final ByteBuffer pd = ByteBuffer.wrap(up.connection.privateData, 0, 12);
                final int rmr = pd.getInt();
                final long base = pd.getLong();
                victim.await("ACCEPTED", 10);
                // one Read answered while the peer runs
                final LmrTriplet[] iov = {LmrTriplet.of(mem, 0, 4096)};
                ep.ep().postRdmaRead(1, iov, 1, new RmrTriplet(rmr, base, 4096), 0);
                assertEquals(DtoStatus.SUCCESS, TcpNode.next(ep.req(), EventNumber.DTO_COMPLETION_EVENT).dto.status);

                // frozen, its kernel still acknowledges the Request and answers keepalive probes
                victim.signal("STOP");
                final long stoppedAt = System.nanoTime();
                ep.ep().postRdmaRead(1, iov, 2, new RmrTriplet(rmr, base, 4096), 0);
                final DatEvent end = TcpNode.next(ep.conn());
                final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
                assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN), end.toString());
                assertTrue(ms >= 1900 && ms < 2000 + 2000, "broken after " + ms + " ms");
                final DatEvent read = TcpNode.next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(2, read.dto.userCookie);
                assertEquals(DtoStatus.ERR_FLUSHED, read.dto.status, read.toString());
                victim.signal("CONT");
            }
        }
    }

    private static io.jdat.EpAttr withRequests(final int n)
    {
        final io.jdat.EpAttr a = new io.jdat.EpAttr();
        a.maxRequestDtos = n;
        return a;
    }

    /**
     * Connects to the sink, streams RDMA Writes, stops (SIGSTOP) or kills the peer after 40 of
     * them completed, and checks how the endpoint ends. Returns the milliseconds from the signal
     * to the end event.
     */
    private static long stream(final TcpNode.Ep ep, final Lmr mem, final PeerProcess victim, final long port,
        final boolean freeze) throws Exception
    {
        final WriteStream stream = WriteStream.connect(ep, mem, WRITE, victim, LOCAL, port);
        boolean hit = false;
        long hitAt = 0;
        final long start = System.nanoTime();
        while (true)
        {
            // keep posting after the peer stops: Writes its kernel already took complete, and
            // only a send that makes no progress shows the liveness bound
            if (stream.flushed() == 0)
            {
                stream.fill(OUTSTANDING);
            }
            stream.complete(8 * SECOND);
            if (!hit && stream.ok() == 40)
            {
                if (freeze)
                {
                    victim.signal("STOP");
                }
                else
                {
                    victim.kill();
                }
                hit = true;
                hitAt = System.nanoTime();
            }
            if (hit && (stream.flushed() > 0 || stream.drained()))
            {
                break;
            }
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "the stream took too long");
        }
        final DatEvent end = TcpNode.next(ep.conn());
        final long endAt = System.nanoTime();
        assertTrue(stream.flushed() > 0, "the end came in the middle of the transfer: " + stream.counts());
        assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN) || end.is(EventNumber.CONNECTION_EVENT_DISCONNECTED),
            end.toString());
        final EpParam p = new EpParam();
        ep.ep().query(EpParam.FIELD_ALL, p);
        assertEquals(EpState.DISCONNECTED, p.epState);
        // the rest of the posted Writes are flushed, in order
        while (!stream.drained())
        {
            assertEquals(DtoStatus.ERR_FLUSHED, stream.complete(5 * SECOND));
        }
        stream.waiterFlushed();
        return TimeUnit.NANOSECONDS.toMillis(endAt - hitAt);
    }
}

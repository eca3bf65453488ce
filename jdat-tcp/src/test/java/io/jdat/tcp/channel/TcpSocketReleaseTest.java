package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tcp.Mpa;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A connection that ended gives its socket back while the IA stays open, however the consumer
 * waits for events: one connection after another from a peer must not cost one file descriptor
 * each until the IA closes (a closed channel's descriptor is released only once every selector
 * it was registered with has selected again). Regression of what {@code TcpReceiveFuzzTest} ran
 * into: "Too many open files" after some 40,000 connections of one IA.
 */
class TcpSocketReleaseTest
{
    private static final int CONNECTIONS = 60;

    @Test
    void endedConnectionsReleaseTheirSocketsWhetherTheConsumerWaitsOrPolls() throws Exception
    {
        try (TcpNode n = TcpNode.open())
        {
            final EventDispatcher crEvd = n.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = n.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            // one round first, so that what the IA keeps for good (selectors, buffers) is counted
            connectAndEnd(n, crEvd, psp, false);
            final long before = openFds();
            for (int i = 0; i < CONNECTIONS; i++)
            {
                // the consumer blocks in evd_wait for half of them and polls evd_dequeue for the rest
                connectAndEnd(n, crEvd, psp, i % 2 == 1);
            }
            final long deadline = System.nanoTime() + 2_000_000_000L;
            long after = openFds();
            while (after > before + 4 && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
                after = openFds();
            }
            assertTrue(after <= before + 4, "open file descriptors: " + before + " before " + CONNECTIONS
                + " connections, " + after + " after");
        }
    }

    /** A raw peer connects, the consumer accepts, the peer closes, the consumer sees the end and frees. */
    private static void connectAndEnd(final TcpNode n, final EventDispatcher crEvd, final PublicServicePoint psp,
        final boolean poll) throws Exception
    {
        final TcpNode.Ep ep = n.ep(null);
        try (RawPeer raw = RawPeer.connect(psp.connQual()))
        {
            raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), null));
            event(crEvd, poll).crArrival.crHandle.accept(ep.ep(), null);
            raw.readFrame(false);
            assertTrue(event(ep.conn(), poll).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        }
        final DatEvent end = event(ep.conn(), poll);
        assertTrue(end.is(EventNumber.CONNECTION_EVENT_DISCONNECTED) || end.is(EventNumber.CONNECTION_EVENT_BROKEN),
            end.toString());
        ep.ep().free();
        ep.recv().free();
        ep.req().free();
        ep.conn().free();
    }

    /** The next event, by evd_wait or by polling evd_dequeue, within 5 s. */
    private static DatEvent event(final EventDispatcher evd, final boolean poll) throws InterruptedException
    {
        return poll ? TcpNode.polled(evd) : next(evd);
    }

    private static long openFds() throws Exception
    {
        try (var s = Files.list(Path.of("/proc/self/fd")))
        {
            return s.count();
        }
    }
}

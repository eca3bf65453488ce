package io.jdat.tools.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rping client's first wait: a server that answers its first message late (as a siw server
 * that left it unread until more bytes came) is nudged with zero-length RDMA Writes, which place
 * nothing, and the ping still passes with its data checked.
 */
class RpingClientNudgeTest
{
    private static final long TIMEOUT = 10_000_000;
    private static final int SIZE = 100;

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void aLateGoAheadIsWaitedForWithZeroLengthWrites(final String provider) throws Exception
    {
        final PrintWriter out = new PrintWriter(new StringWriter());
        try (Node server = Node.open(provider); Node client = Node.open(provider))
        {
            final EventDispatcher crEvd = server.evd(4, null, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final Lmr sink = server.register(SIZE, MemPriv.ALL_FLAG);
            final RpingEnd slow = new RpingEnd(server, out, false, TIMEOUT);
            slow.postRecv();
            final CompletableFuture<Void> served = CompletableFuture.runAsync(() ->
            {
                final DatEvent cr = new DatEvent();
                assertEquals(DatStatus.SUCCESS, crEvd.wait(TIMEOUT, 1, cr, new DatCount()));
                slow.link.accept(cr.crArrival.crHandle, null);
                try
                {
                    // longer than two of the client's waits: it nudges twice at least
                    Thread.sleep(3 * Link.NUDGE_AFTER_MICROS / 1000);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                // one ping as rping's server serves it; the nudges completed no receive here
                final RpingInfo start = slow.recv("the client's start buffer");
                assertEquals(SIZE, start.size());
                slow.read(sink, start, start.size(), "RDMA Read of the start buffer");
                slow.send(new RpingInfo(0, 0, 0), "Send of go-ahead");
                final RpingInfo to = slow.recv("the client's RDMA buffer");
                slow.write(sink, to, start.size(), "RDMA Write of the echo");
                slow.send(new RpingInfo(0, 0, 0), "Send of write-done");
                slow.link.awaitDisconnected();
            });
            final RpingClient c = new RpingClient(client, out, false, TIMEOUT, SIZE);
            // run() compares the echo with what it sent, byte for byte
            assertEquals(1, c.run(server.address, psp.connQual(), 1));
            assertTrue(c.nudges() >= 2, "nudges " + c.nudges());
            served.get(TIMEOUT, TimeUnit.MICROSECONDS);
        }
    }
}

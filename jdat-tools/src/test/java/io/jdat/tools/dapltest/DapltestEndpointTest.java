package io.jdat.tools.dapltest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.ConnectionRequest;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Node;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The remote memory table exchange of a dapltest test connection when the server's table is late. */
class DapltestEndpointTest
{
    private static final long TIMEOUT = 10_000_000;

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp"})
    void aLateServerTableIsWaitedForWithZeroLengthWritesThatPlaceNothing(final String provider) throws Exception
    {
        final List<TestOp> ops = TestOp.parse(List.of("client", "SR", "64", "server", "SR", "64", "client", "RW", "64",
            "server", "RR", "64"));
        final TransactionParams p = new TransactionParams(1, 1, 1, false, Completion.WAIT, false, ops, false);
        try (Node server = Node.open(provider); Node client = Node.open(provider))
        {
            final EventDispatcher crEvd = server.evd(4, null, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final CompletableFuture<Void> slow = CompletableFuture.runAsync(() ->
            {
                final ConnectionRequest cr = Protocol.nextRequest(crEvd, TIMEOUT, "test connection");
                final DapltestEndpoint ep = new DapltestEndpoint(server, true, "slow server", p, TIMEOUT);
                ep.link.accept(cr, null);
                try
                {
                    // longer than two of the client's waits: it nudges twice at least
                    Thread.sleep(3 * io.jdat.tools.kit.Link.NUDGE_AFTER_MICROS / 1000);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                ep.exchangeRmi();
                // the zero-length Writes completed nothing here: the first sync still waits its turn
                ep.postSync();
                ep.awaitSyncSent("first");
                ep.awaitSync("first");
            });
            final DapltestEndpoint ep = new DapltestEndpoint(client, false, "client", p, TIMEOUT);
            ep.link.connect(server.address, psp.connQual(), DapltestWire.TEST_EP_PRIVATE_DATA.getBytes(
                StandardCharsets.US_ASCII));
            ep.exchangeRmi();
            assertTrue(ep.nudges() >= 2, "nudges " + ep.nudges());
            ep.awaitSync("first");
            ep.postSync();
            ep.awaitSyncSent("first");
            slow.get(TIMEOUT, TimeUnit.MICROSECONDS);
            assertEquals(0, ep.link.recvEvd.dequeue(new io.jdat.DatEvent()) == io.jdat.DatStatus.SUCCESS ? 1 : 0);
        }
    }
}

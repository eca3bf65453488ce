package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;
import io.jdat.testkit.WriteStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A peer process killed with SIGKILL in the middle of a stream of RDMA Writes (stopped with
 * SIGSTOP just before, so that Writes are still queued behind a full ring): the survivor's
 * endpoint breaks, every posted DTO completes (the unfinished ones flushed), a blocked waiter
 * returns, and the survivor then connects to a new peer on the same qualifier and runs a
 * transaction with validation. A flight recording of it holds the peer's death and the broken
 * connection.
 */
class ShmPeerDeathTest
{
    private static final int WRITE = 256 << 10;
    private static final int OUTSTANDING = 16;

    private Path dir;
    private final Recording recording = new Recording();

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
        recording.enable("io.jdat.PeerDeath");
        recording.enable("io.jdat.ConnectionBroken");
        recording.start();
    }

    @AfterEach
    void clean()
    {
        recording.close();
        TestFiles.delete(dir);
    }

    /** Stops the recording and reads what it holds. */
    private List<RecordedEvent> recorded() throws java.io.IOException
    {
        recording.stop();
        final Path file = dir.resolve("peer-death.jfr");
        recording.dump(file);
        return RecordingFile.readAllEvents(file);
    }

    @Test
    void peerKilledMidTransferBreaksTheEndpointAndTheSurvivorReconnects() throws Exception
    {
        try (ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final io.jdat.EpAttr attr = new io.jdat.EpAttr();
            attr.maxRequestDtos = 2 * OUTSTANDING;
            final ShmNode.Ep ep = client.ep(attr);
            final Lmr mem = client.lmr(WRITE);
            try (PeerProcess victim = ShmPeer.start(dir, "srv", 6000, "sink"))
            {
                victim.awaitExactly("READY", 30);
                final WriteStream stream = WriteStream.connect(ep, mem, WRITE, victim, IaAddress.named("srv"), 6000);
                boolean killed = false;
                long brokenAt = 0;
                final long start = System.nanoTime();
                while (true)
                {
                    if (!killed)
                    {
                        stream.fill(OUTSTANDING);
                    }
                    stream.complete(5 * SECOND);
                    if (!killed && stream.ok() == 40)
                    {
                        // frozen first, so that the ring fills and Writes are still in flight when it dies
                        victim.signal("STOP");
                        for (int i = 0; i < OUTSTANDING; i++)
                        {
                            stream.post();
                        }
                        Thread.sleep(20);
                        victim.kill();
                        killed = true;
                        brokenAt = System.nanoTime();
                    }
                    if (killed && stream.drained())
                    {
                        break;
                    }
                    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "the stream took too long");
                }
                final DatEvent broken = ShmNode.next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
                assertTrue(System.nanoTime() - brokenAt < TimeUnit.SECONDS.toNanos(5), "broken late: " + broken);
                assertTrue(stream.flushed() >= OUTSTANDING, "the Writes posted to the frozen peer were flushed: "
                    + stream.counts());
                stream.waiterFlushed();

                // what an operator reads afterwards: the peer's death, then the broken connection
                final List<RecordedEvent> events = recorded();
                final String all = events.stream().map(RecordedEvent::toString).collect(Collectors.joining());
                assertEquals(1, events.stream().filter(e -> e.getEventType().getName().equals("io.jdat.PeerDeath")
                    && "shm".equals(e.getString("transport"))
                    && "its process ended".equals(e.getString("how"))).count(), all);
                assertEquals(1, events.stream()
                    .filter(e -> e.getEventType().getName().equals("io.jdat.ConnectionBroken")
                    && "transport".equals(e.getString("reason")) && e.getInt("terminateLayer") == -1).count(), all);
            }

            // a new peer on the same qualifier: the dead one's listening file must not stand in the way
            ep.ep().free();
            try (PeerProcess server = ShmPeer.start(dir, "srv", 6000, "validate"))
            {
                server.awaitExactly("READY", 30);
                ShmNode.TRANSACTION.run(client.lmr(Transaction.LMR_SIZE), client.ep(null).side(),
                    IaAddress.named("srv"), 6000);
                server.awaitExactly("OK", 10);
                assertEquals(0, server.exit(10), server.output());
            }
            assertTrue(TestFiles.files(dir.resolve("srv")).stream().noneMatch(n -> n.startsWith("c-")),
                "no connection file is left: " + TestFiles.files(dir.resolve("srv")));
        }
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
                ep.ep().connect(IaAddress.named("srv"), 6000, 10 * SECOND, null, Qos.BEST_EFFORT, 0);
                final DatEvent up = ShmNode.next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                final ByteBuffer pd = ByteBuffer.wrap(up.connection.privateData, 0, 12);
                final int rmr = pd.getInt();
                final long base = pd.getLong();
                victim.awaitExactly("ACCEPTED", 10);

                // a consumer blocked in dat_evd_wait with no timeout must come back
                ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, 900, 0);
                final CompletableFuture<DatEvent> waiter = CompletableFuture.supplyAsync(() ->
                {
                    final DatEvent ev = new DatEvent();
                    ep.recv().wait(io.jdat.Dat.TIMEOUT_INFINITE, 1, ev, new DatCount());
                    return ev;
                }, task -> Thread.ofPlatform().daemon().name("test-waiter").start(task));

                final LmrTriplet[] iov = {LmrTriplet.of(mem, 0, WRITE)};
                final DatEvent ev = new DatEvent();
                long posted = 0;
                long done = 0;
                long ok = 0;
                long flushed = 0;
                boolean killed = false;
                long brokenAt = 0;
                final long start = System.nanoTime();
                while (true)
                {
                    while (!killed && posted - done < OUTSTANDING)
                    {
                        final long at = posted % 8 * WRITE;
                        ep.ep().postRdmaWrite(1, iov, posted, new RmrTriplet(rmr, base + at, WRITE), 0);
                        posted++;
                    }
                    final DatStatus s = ep.req().wait(5 * SECOND, 1, ev, new DatCount());
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
                    if (!killed && ok == 40)
                    {
                        // frozen first, so that the ring fills and Writes are still in flight when it dies
                        victim.signal("STOP");
                        for (int i = 0; i < OUTSTANDING; i++)
                        {
                            ep.ep().postRdmaWrite(1, iov, posted, new RmrTriplet(rmr, base + posted % 8 * WRITE, WRITE),
                                0);
                            posted++;
                        }
                        Thread.sleep(20);
                        victim.kill();
                        killed = true;
                        brokenAt = System.nanoTime();
                    }
                    if (killed && done == posted)
                    {
                        break;
                    }
                    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "the stream took too long");
                }
                final DatEvent broken = ShmNode.next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
                assertTrue(System.nanoTime() - brokenAt < TimeUnit.SECONDS.toNanos(5), "broken late: " + broken);
                assertTrue(flushed >= OUTSTANDING, "the Writes posted to the frozen peer were flushed: " + ok
                    + " written, " + flushed + " flushed");
                final DatEvent recv = waiter.get(5, TimeUnit.SECONDS);
                assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
                assertEquals(900, recv.dto.userCookie);

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

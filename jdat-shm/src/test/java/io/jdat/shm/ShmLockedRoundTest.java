package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.testkit.PeerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another process that holds an address directory's lock (a {@code FileChannel.lock} in a second
 * JVM: {@link ShmDirectoryLockTest#main}) while something of the port must remove a file there.
 * An RSP's listener closes inside the progress round that took its one request: that round must
 * not wait for the lock, or every connection of the port waits with it, up to
 * {@link ShmDirectory#LOCK_WAIT_NANOS}. Its file is removed once the lock is free. A connect that
 * finds a stale listening file is a non-peer rejection at once, whoever holds the lock.
 */
class ShmLockedRoundTest
{
    private static final long RSP_QUAL = 7100;
    /** Far below the 5 s a round waited for the lock. */
    private static final long BOUND_NANOS = 1_000_000_000L;

    @TempDir(factory = TestFiles.InShm.class)
    Path root;

    @Test
    void anRspClosingInARoundStallsNoOtherEndpointAndItsFileGoesOnceTheLockIsFree() throws Exception
    {
        try (ShmNode server = ShmNode.open(root, "server", ""); ShmNode client = ShmNode.open(root, "client", ""))
        {
            final Path srv = root.resolve("server");
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 7000);
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.rspCreate(RSP_QUAL, server.ep(null).ep(), crEvd);
            final Path listening = ShmDirectory.listenerPath(srv, RSP_QUAL);
            final Traffic traffic = new Traffic(client.lmr(64), server.lmr(64), pair[0], pair[1]);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, srv.toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                traffic.start();
                // the request, made by hand: a connect would wait for the lock to make its file
                final long id = Liveness.SELF_PID << 32 | 0xE000_0001L;
                final ConnectionFile request = ConnectionFile.create(srv, id, 65536);
                request.writeRequest(RSP_QUAL, "client", new byte[0], 4, 4);
                final ListenerFile lf = ListenerFile.open(listening);
                assertTrue(lf.post(id) >= 0, "posted");
                lf.unmap();
                final long asked = System.nanoTime();
                final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
                traffic.mark();
                Thread.sleep(1500);
                traffic.stop();
                assertNull(traffic.failure.get(), () -> "the traffic failed: " + traffic.failure.get());
                System.out.printf("Send/Recv round trips while the RSP closed under another process's lock: %d,"
                    + " the longest %.1f ms%n", traffic.count.get(), traffic.longest.get() / 1e6);
                assertTrue(traffic.longest.get() < BOUND_NANOS, String.format("a Send/Recv took %.1f ms",
                    traffic.longest.get() / 1e6));
                assertTrue(traffic.count.get() >= 10, traffic.count.get() + " round trips in 1.5 s");
                assertTrue(System.nanoTime() - asked < 5 * BOUND_NANOS, "the test itself ran in time");
                // closed, the file says so; it stays while the lock is held
                assertTrue(Files.exists(listening) && ListenerFile.stale(listening), "the file, marked closed");
                cr.crArrival.crHandle.reject();
                request.unlink();
                request.unmap();
            }
            // the holder is gone and the kernel dropped its lock: the port removes the file
            final long deadline = System.nanoTime() + 5 * BOUND_NANOS;
            while (Files.exists(listening) && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertTrue(Files.notExists(listening), "the closed RSP's file after the lock came free");
        }
    }

    /**
     * {@code dat_ia_close} of an IA whose RSP's file waits for the lock (it closed in the round)
     * while another process keeps it: the close waits for nothing (it once waited
     * {@link ShmDirectory#LOCK_WAIT_NANOS} holding the port's progress lock and the JVM's lock of
     * the directory), and the traffic and the abrupt disconnect of other IAs' endpoints of the
     * same JVM go on meanwhile. The file stays, marked closed, until the lock is free; then an I/O
     * thread of the JVM's other IAs removes it.
     */
    @Test
    void anIaCloseWaitsForNoLockAndStallsNoOtherEndpoint() throws Exception
    {
        // closed by the test (a second close does nothing)
        final ShmNode server = ShmNode.open(root, "server", "");
        try (server; ShmNode client = ShmNode.open(root, "client", ""); ShmNode other = ShmNode.open(root, "other", ""))
        {
            final Path srv = root.resolve("server");
            final ShmNode.Ep[] pair = ShmNode.connect(client, other, 7000);
            final ShmNode.Ep[] spare = ShmNode.connect(client, other, 7001);
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.rspCreate(RSP_QUAL, server.ep(null).ep(), crEvd);
            final Path listening = ShmDirectory.listenerPath(srv, RSP_QUAL);
            final Traffic traffic = new Traffic(client.lmr(64), other.lmr(64), pair[0], pair[1]);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, srv.toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                final long id = Liveness.SELF_PID << 32 | 0xE000_0003L;
                final ConnectionFile request = ConnectionFile.create(srv, id, 65536);
                request.writeRequest(RSP_QUAL, "client", new byte[0], 4, 4);
                final ListenerFile lf = ListenerFile.open(listening);
                assertTrue(lf.post(id) >= 0, "posted");
                lf.unmap();
                next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
                // the listener closes in the round that reported the request, a moment after it
                assertTrue(latePending(listening), "the RSP's file waits for the lock");
                traffic.start();
                traffic.mark();
                Thread.sleep(200);
                final AtomicLong disconnected = new AtomicLong();
                final Thread disconnect = Thread.ofPlatform().name("disconnect").start(() ->
                {
                    final long t = System.nanoTime();
                    spare[0].ep().disconnect(io.jdat.CloseFlags.ABRUPT_FLAG);
                    next(spare[0].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
                    disconnected.set(System.nanoTime() - t);
                });
                final long t = System.nanoTime();
                closeIa(server);
                final long closed = System.nanoTime() - t;
                disconnect.join(30_000);
                Thread.sleep(300);
                traffic.stop();
                request.unlink();
                request.unmap();
                assertNull(traffic.failure.get(), () -> "the traffic failed: " + traffic.failure.get());
                System.out.printf("dat_ia_close under another process's lock: %.1f ms; another IA's abrupt"
                    + " disconnect meanwhile: %.1f ms; Send/Recv round trips: %d, the longest %.1f ms%n", closed / 1e6,
                    disconnected.get() / 1e6, traffic.count.get(), traffic.longest.get() / 1e6);
                assertTrue(closed < BOUND_NANOS, String.format("dat_ia_close took %.1f ms", closed / 1e6));
                assertTrue(disconnected.get() > 0 && disconnected.get() < BOUND_NANOS,
                    String.format("the other disconnect took %.1f ms", disconnected.get() / 1e6));
                assertTrue(traffic.longest.get() < BOUND_NANOS, String.format("a Send/Recv took %.1f ms",
                    traffic.longest.get() / 1e6));
                assertTrue(Files.exists(listening) && ListenerFile.stale(listening), "the file, marked closed");
            }
            // the holder is gone: the other IAs' I/O threads remove the closed IA's file
            final long deadline = System.nanoTime() + 5 * BOUND_NANOS;
            while (Files.exists(listening) && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertTrue(Files.notExists(listening), "the closed IA's RSP file after the lock came free");
        }
    }

    @Test
    void aConnectToAStaleListenerIsANonPeerRejectionWhileAnotherProcessHoldsTheLock() throws Exception
    {
        try (ShmNode server = ShmNode.open(root, "server", ""); ShmNode client = ShmNode.open(root, "client", ""))
        {
            final Path srv = root.resolve("server");
            // a listener of an earlier process with this pid, started a day before
            Planted.listener(ShmDirectory.listenerPath(srv, 7200), Liveness.SELF_PID,
                Liveness.SELF_START - 86_400_000L, 7200);
            final ShmNode.Ep ep = client.ep(null);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, srv.toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                final long t = System.nanoTime();
                ep.ep().connect(server.address, 7200, 30 * SECOND, null, Qos.BEST_EFFORT, 0);
                next(ep.conn(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                final long took = System.nanoTime() - t;
                assertTrue(took < BOUND_NANOS, String.format("rejected after %.1f ms", took / 1e6));
            }
        }
    }

    /**
     * A closed listener's file waits for the lock, and another listen may replace it meanwhile (a
     * stale file is anybody's to replace): the late removal leaves a live listener's file alone.
     */
    @Test
    void aLateRemovalLeavesTheFileOfALiveListenerThatReplacedIt() throws Exception
    {
        final Path dir = ShmDirectory.addressDir(root, "srv");
        final Path replaced = ShmDirectory.listenerPath(dir, 7300);
        final Path stale = ShmDirectory.listenerPath(dir, 7301);
        Planted.liveListener(dir, 7300);
        Planted.listener(stale, Liveness.SELF_PID, Liveness.SELF_START - 86_400_000L, 7301);
        LateRemovals.add(replaced);
        LateRemovals.add(stale);
        LateRemovals.tryRemove();
        assertTrue(Files.exists(replaced), "the live listener's file");
        assertTrue(Files.notExists(stale), "the stale file");
        assertFalse(LateRemovals.pending(replaced) || LateRemovals.pending(stale), "nothing left to do");
    }

    /** Whether the file comes to wait for its directory's lock within 5 s. */
    static boolean latePending(final Path listening) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5 * BOUND_NANOS;
        while (!LateRemovals.pending(listening) && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        return LateRemovals.pending(listening);
    }

    private static void closeIa(final ShmNode node)
    {
        node.close();
    }

    /**
     * 64-byte Sends from the client's endpoint to the server's, one at a time, each waited for (its
     * Send and its receive completed) on a thread of its own: the longest, and how many completed
     * after {@link #mark}.
     */
    private static final class Traffic
    {
        final AtomicLong count = new AtomicLong();
        final AtomicLong longest = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicBoolean marked = new AtomicBoolean();
        private final Thread thread;

        Traffic(final Lmr src, final Lmr dst, final ShmNode.Ep sender, final ShmNode.Ep receiver)
        {
            thread = Thread.ofPlatform().name("traffic").unstarted(() ->
            {
                final DatEvent ev = new DatEvent();
                try
                {
                    for (long i = 1; !stop.get(); i++)
                    {
                        final long start = System.nanoTime();
                        receiver.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(dst, 0, 64)}, i, 0);
                        sender.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, 0, 64)}, i, 0);
                        completed(sender.req(), ev, i);
                        completed(receiver.recv(), ev, i);
                        longest.accumulateAndGet(System.nanoTime() - start, Math::max);
                        if (marked.get())
                        {
                            count.incrementAndGet();
                        }
                    }
                }
                catch (final Throwable e)
                {
                    failure.set(e);
                }
            });
        }

        private static void completed(final EventDispatcher evd, final DatEvent ev, final long cookie)
        {
            final DatStatus s = evd.wait(30 * SECOND, 1, ev, new DatCount());
            assertEquals(DatStatus.SUCCESS, s, "no completion within 30 s");
            assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
            assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
            assertEquals(cookie, ev.dto.userCookie, ev.toString());
        }

        void start()
        {
            thread.start();
        }

        /** From now on round trips are counted. */
        void mark()
        {
            marked.set(true);
        }

        void stop() throws InterruptedException
        {
            stop.set(true);
            thread.join(60_000);
        }
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.Qos;
import io.jdat.testkit.PeerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dat_ep_connect} to a live listener while another process keeps the listener's address
 * directory's lock (a second JVM's {@code FileChannel.lock}: {@link ShmDirectoryLockTest#main}).
 * The connect is asynchronous: it returns at once, with the endpoint in
 * ACTIVE_CONNECTION_PENDING, and the attempt waits for the lock in the port's rounds. Once the
 * lock is free the request goes out and the connection is established; if the consumer's timeout
 * ends first, the endpoint gets CONNECTION_EVENT_TIMED_OUT and nothing reaches the listener.
 * (A lock kept {@link ShmDirectory#LOCK_WAIT_NANOS} is a non-peer rejection:
 * {@link ShmDirectoryLockTest}.)
 */
class ShmLockedConnectTest
{
    /** Far below the 5 s a connect waited for the lock. */
    private static final long BOUND_NANOS = 1_000_000_000L;

    @TempDir(factory = TestFiles.InShm.class)
    Path root;

    @Test
    void aConnectReturnsAtOnceAndIsEstablishedOnceTheLockIsFree() throws Exception
    {
        try (ShmNode server = ShmNode.open(root, "server", ""); ShmNode client = ShmNode.open(root, "client", ""))
        {
            final Path srv = root.resolve("server");
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(7500, crEvd, PspFlags.CONSUMER_FLAG);
            final ShmNode.Ep ep = client.ep(null);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, srv.toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                final long t = System.nanoTime();
                ep.ep().connect(server.address, 7500, 30 * SECOND, null, Qos.BEST_EFFORT, 0);
                final long took = System.nanoTime() - t;
                System.out.printf("dat_ep_connect while another process keeps the lock: %.2f ms%n", took / 1e6);
                assertTrue(took < BOUND_NANOS, String.format("the connect took %.1f ms", took / 1e6));
                Thread.sleep(300);
                assertEquals(EpState.ACTIVE_CONNECTION_PENDING, state(ep), "the endpoint while the lock is kept");
                assertEquals(DatStatus.QUEUE_EMPTY, ep.conn().dequeue(new DatEvent()), "no connection event yet");
                assertEquals(0, connectionFiles(srv), "connection files made under another's lock");
            }
            // the kernel dropped the holder's lock: the request goes out
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(server.ep(null).ep(), null);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void aConnectWhoseTimeoutEndsWhileTheLockIsKeptTimesOutAndReachesNobody() throws Exception
    {
        try (ShmNode server = ShmNode.open(root, "server", ""); ShmNode client = ShmNode.open(root, "client", ""))
        {
            final Path srv = root.resolve("server");
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(7501, crEvd, PspFlags.CONSUMER_FLAG);
            final ShmNode.Ep ep = client.ep(null);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, srv.toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                final long t = System.nanoTime();
                ep.ep().connect(server.address, 7501, 300_000, null, Qos.BEST_EFFORT, 0);
                assertTrue(System.nanoTime() - t < BOUND_NANOS, "the connect returned at once");
                next(ep.conn(), EventNumber.CONNECTION_EVENT_TIMED_OUT);
                final long took = System.nanoTime() - t;
                System.out.printf("timed out after %.1f ms (timeout 300 ms)%n", took / 1e6);
                assertTrue(took < 300_000_000L + BOUND_NANOS, String.format("timed out after %.1f ms", took / 1e6));
                assertEquals(EpState.DISCONNECTED, state(ep), "the endpoint after the timeout");
            }
            // the lock is free, and the attempt is over: nothing reaches the listener
            Thread.sleep(300);
            assertEquals(DatStatus.QUEUE_EMPTY, crEvd.dequeue(new DatEvent()), "a request of the timed-out connect");
            assertEquals(0, connectionFiles(srv), "connection files of the timed-out connect");
            // and the endpoint connects again
            ep.ep().reset();
            ep.ep().connect(server.address, 7501, 30 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(server.ep(null).ep(), null);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    private static EpState state(final ShmNode.Ep ep)
    {
        final EpParam p = new EpParam();
        ep.ep().query(EpParam.FIELD_ALL, p);
        return p.epState;
    }

    private static long connectionFiles(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.list(dir))
        {
            return s.filter(p -> p.getFileName().toString().startsWith("c-")).count();
        }
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatCount;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.testkit.PeerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An address directory's lock is a file lock that any process which may enter the directory can
 * take, and keep: a hostile one, or one stopped while it held the lock. Waiting for it is
 * bounded ({@link ShmDirectory#LOCK_WAIT_NANOS}): a connect to that address returns at once and
 * ends, after that bound, as a non-peer rejection (the attempt waits for the lock in the port's
 * rounds: {@link ShmLockedConnectTest}), and freeing a service point there returns after
 * {@link ShmListener#CLOSE_WAIT_NANOS}, instead of blocking the consumer's thread for as long as
 * the other process likes, or for the whole bound.
 */
class ShmDirectoryLockTest
{
    private Path dir;

    /** The holder: takes the lock of the directory {@code args[0]}, prints LOCKED, keeps it 60 s. */
    public static void main(final String[] args)
    {
        PeerProcess.runMain(() -> ShmDirectory.locked(Path.of(args[0]), () ->
        {
            System.out.println("LOCKED");
            System.out.flush();
            try
            {
                Thread.sleep(60_000);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
    }

    @BeforeEach
    void fresh()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        TestFiles.delete(dir);
    }

    @Test
    void aProcessThatKeepsTheDirectorysLockHangsNoConnectAndNoFree() throws Exception
    {
        try (ShmNode server = ShmNode.open(dir, "server", ""); ShmNode client = ShmNode.open(dir, "client", ""))
        {
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(7000, crEvd, PspFlags.CONSUMER_FLAG);
            final PublicServicePoint other = server.ia.pspCreate(7001, crEvd, PspFlags.CONSUMER_FLAG);
            final ShmNode.Ep ep = client.ep(null);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, dir.resolve("server").toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                final long t = System.nanoTime();
                ep.ep().connect(server.address, 7000, 60 * SECOND, null, Qos.BEST_EFFORT, 0);
                assertTrue(System.nanoTime() - t < ShmDirectory.LOCK_WAIT_NANOS / 5, "the connect returned at once");
                // the rejection comes once the lock wait runs out: wait longer than that wait
                final DatEvent rejected = new DatEvent();
                assertEquals(DatStatus.SUCCESS,
                    ep.conn().wait(3 * ShmDirectory.LOCK_WAIT_NANOS / 1000, 1, rejected, new DatCount()),
                    "no event within three lock waits");
                assertTrue(rejected.is(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED), "got " + rejected);
                final long took = System.nanoTime() - t;
                assertTrue(took >= ShmDirectory.LOCK_WAIT_NANOS && took < 3 * ShmDirectory.LOCK_WAIT_NANOS,
                    String.format("rejected after %.0f ms", took / 1e6));
                final EpParam p = new EpParam();
                ep.ep().query(EpParam.FIELD_ALL, p);
                assertEquals(EpState.DISCONNECTED, p.epState, "the endpoint after the rejection");
                final long f = System.nanoTime();
                assertTimeoutPreemptively(Duration.ofSeconds(30), other::free);
                final long freeTook = System.nanoTime() - f;
                assertTrue(freeTook >= ShmListener.CLOSE_WAIT_NANOS && freeTook < ShmDirectory.LOCK_WAIT_NANOS / 5,
                    String.format("dat_psp_free took %.0f ms", freeTook / 1e6));
                assertTrue(Files.exists(ShmDirectory.listenerPath(dir.resolve("server"), 7001)),
                    "the freed listener's file waits for the lock");
            }
            // the holder is gone, and the kernel dropped its lock: the qualifier is free again
            // and the same endpoint connects
            server.ia.pspCreate(7001, crEvd, PspFlags.CONSUMER_FLAG).free();
            ep.ep().reset();
            ep.ep().connect(server.address, 7000, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(server.ep(null).ep(), null);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    /**
     * A thread of this JVM that keeps the lock (its body runs long, or it waits for another
     * process) holds the JVM's other threads that want it no longer than the bound: they fail as
     * a process holding the file lock would make them fail.
     */
    @Test
    void aThreadThatKeepsTheLockHoldsTheJvmsOtherThreadsNoLongerThanTheBound() throws Exception
    {
        final Path d = dir.resolve("server");
        Files.createDirectories(d);
        final CountDownLatch locked = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean released = new AtomicBoolean();
        final Thread keeper = new Thread(() -> ShmDirectory.locked(d, () ->
        {
            locked.countDown();
            try
            {
                release.await(3 * ShmDirectory.LOCK_WAIT_NANOS, TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            released.set(true);
            return null;
        }), "keeper");
        keeper.start();
        try
        {
            assertTrue(locked.await(30, TimeUnit.SECONDS), "the keeper took the lock");
            final long t = System.nanoTime();
            final DatException e = assertThrows(DatException.class, () -> ShmDirectory.locked(d, () -> null));
            final long took = System.nanoTime() - t;
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type(), e.getMessage());
            assertFalse(released.get(), "the waiter failed while the keeper still held the lock");
            assertTrue(took >= ShmDirectory.LOCK_WAIT_NANOS && took < 2 * ShmDirectory.LOCK_WAIT_NANOS,
                String.format("failed after %.0f ms", took / 1e6));
        }
        finally
        {
            release.countDown();
            keeper.join(30_000);
        }
        // the keeper is done: the lock is free again
        assertEquals("had", ShmDirectory.locked(d, () -> "had"));
    }
}

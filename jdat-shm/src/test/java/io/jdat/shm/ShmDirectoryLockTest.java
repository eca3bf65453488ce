package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatCount;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An address directory's lock is a file lock that any process which may enter the directory can
 * take, and keep: a hostile one, or one stopped while it held the lock. Waiting for it is
 * bounded ({@link ShmDirectory#LOCK_WAIT_NANOS}): a connect to that address returns at once and
 * ends, after that bound, as a non-peer rejection (the attempt waits for the lock in the port's
 * rounds: {@link ShmLockedConnectTest}), and freeing a service point there returns, instead of
 * blocking the consumer's thread for as long as the other process likes.
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
                assertTimeoutPreemptively(Duration.ofSeconds(30), other::free);
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
}

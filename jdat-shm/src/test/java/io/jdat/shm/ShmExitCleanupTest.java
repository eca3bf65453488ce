package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.testkit.PeerProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that exits ({@code System.exit}) while another process keeps its address directory's
 * lock: the listening files it leaves are an RSP's whose removal waited for that lock (its listener
 * closed inside the progress round that took its one request, {@link LateRemovals}) and two PSPs'
 * still open. The exit waits for the lock {@link ListenerCleanup#EXIT_WAIT_NANOS} at most: if the
 * lock comes free meanwhile all three files are gone when the JVM has exited; if not, the JVM
 * exits at the bound and leaves them marked closed, and the next sweep of the directory (an IA
 * opening on the address) removes them.
 */
class ShmExitCleanupTest
{
    private static final long RSP_QUAL = 7400;
    private static final List<Long> PSP_QUALS = List.of(7401L, 7402L);
    /** The exit's bound and room for the JVM's own exit on a loaded machine; the old exit took 10 s. */
    private static final long EXIT_BOUND_NANOS = ListenerCleanup.EXIT_WAIT_NANOS + 2_500_000_000L;

    @TempDir(factory = TestFiles.InShm.class)
    Path root;

    /**
     * The child: an IA on {@code args[1]} under the root {@code args[0]} with an RSP and two PSPs;
     * prints READY. On REQUEST a request made by hand arrives at the RSP, whose listener closes in
     * the round (the lock is another process's by then): prints DEFERRED once its file waits for
     * the lock. On EXIT it exits without closing anything.
     */
    public static void main(final String[] args)
    {
        PeerProcess.runMain(() ->
        {
            final Path dir = Path.of(args[0]).resolve(args[1]);
            final ShmNode node = ShmNode.open(Path.of(args[0]), args[1], "");
            final EventDispatcher crEvd = node.evd(8, EvdFlags.CR_FLAG);
            node.ia.rspCreate(RSP_QUAL, node.ep(null).ep(), crEvd);
            for (final long q : PSP_QUALS)
            {
                node.ia.pspCreate(q, crEvd, PspFlags.CONSUMER_FLAG);
            }
            System.out.println("READY");
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine())
            {
                if (line.equals("REQUEST"))
                {
                    final long id = Liveness.SELF_PID << 32 | 0xE000_0002L;
                    final ConnectionFile request = ConnectionFile.create(dir, id, 65536);
                    request.writeRequest(RSP_QUAL, args[1], new byte[0], 4, 4);
                    final Path listening = ShmDirectory.listenerPath(dir, RSP_QUAL);
                    final ListenerFile lf = ListenerFile.open(listening);
                    if (lf.post(id) < 0)
                    {
                        throw new AssertionError("the RSP's backlog is full");
                    }
                    lf.unmap();
                    next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
                    if (!ShmLockedRoundTest.latePending(listening))
                    {
                        throw new AssertionError("the RSP's file does not wait for the lock");
                    }
                    System.out.println("DEFERRED");
                    System.out.flush();
                }
                else if (line.equals("EXIT"))
                {
                    System.exit(0);
                }
            }
        });
    }

    @Test
    void aLockFreedWhileTheJvmExitsLetsTheExitRemoveEveryListeningFile() throws Exception
    {
        final Path dir = root.resolve("server");
        try (PeerProcess child = new PeerProcess(ShmExitCleanupTest.class, root.toString(), "server"))
        {
            child.awaitExactly("READY", 60);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, dir.toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                child.tell("REQUEST");
                child.awaitExactly("DEFERRED", 30);
                assertFiles(dir, true);
                child.tell("EXIT");
                // the exit waits for the lock: let it go while it does
                Thread.sleep(200);
                holder.kill();
                assertEquals(0, child.exit(30), "the exit code");
            }
            for (final Path p : files(dir))
            {
                assertTrue(Files.notExists(p), p + " after the exit");
            }
        }
    }

    @Test
    void aLockKeptPastTheBoundLetsTheJvmExitAndTheNextSweepRemovesTheFiles() throws Exception
    {
        final Path dir = root.resolve("server");
        try (PeerProcess child = new PeerProcess(ShmExitCleanupTest.class, root.toString(), "server"))
        {
            child.awaitExactly("READY", 60);
            try (PeerProcess holder = new PeerProcess(ShmDirectoryLockTest.class, dir.toString()))
            {
                holder.awaitExactly("LOCKED", 30);
                child.tell("REQUEST");
                child.awaitExactly("DEFERRED", 30);
                final long t = System.nanoTime();
                child.tell("EXIT");
                assertEquals(0, child.exit(30), "the exit code");
                final long took = System.nanoTime() - t;
                System.out.printf("exit with the directory's lock kept: %.0f ms%n", took / 1e6);
                assertTrue(took < EXIT_BOUND_NANOS, String.format("the exit took %.0f ms", took / 1e6));
                // left, but closed: nobody connects to them, and they are anybody's to remove
                assertFiles(dir, true);
                for (final Path p : files(dir))
                {
                    assertTrue(ListenerFile.stale(p), p + " is marked closed");
                }
                holder.kill();
            }
            // an IA opening on the address sweeps it
            try (ShmNode again = ShmNode.open(root, "server", ""))
            {
                assertEquals("server", again.address.name());
                for (final Path p : files(dir))
                {
                    assertTrue(Files.notExists(p), p + " after the sweep");
                }
            }
        }
    }

    private static List<Path> files(final Path dir)
    {
        return List.of(ShmDirectory.listenerPath(dir, RSP_QUAL), ShmDirectory.listenerPath(dir, PSP_QUALS.get(0)),
            ShmDirectory.listenerPath(dir, PSP_QUALS.get(1)));
    }

    private static void assertFiles(final Path dir, final boolean there)
    {
        for (final Path p : files(dir))
        {
            assertEquals(there, Files.exists(p), p.toString());
        }
    }
}

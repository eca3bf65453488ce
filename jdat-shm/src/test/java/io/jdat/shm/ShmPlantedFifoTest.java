package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A FIFO where the provider opens a file. Every file is looked at ({@code lstat}) before it is
 * opened, but whoever may write the directory can put a FIFO in the file's place in between, and an
 * open of a FIFO for reading alone waits for a writer (for writing alone, for a reader) for ever:
 * the thread that opened it (a sweep under the directory's lock, a progress round mapping a peer's
 * shared memory) would never come back. Each call here returns at once instead, with the answer it
 * gives for any file it cannot use.
 */
class ShmPlantedFifoTest
{
    private static final Duration PROMPTLY = Duration.ofSeconds(20);
    /** How long each race between the check and the open runs. */
    private static final long RACE_NANOS = 4_000_000_000L;

    private Path dir;
    /** FIFOs made by a test: opened once more at the end, which releases a thread that waits in an open. */
    private final List<Path> fifos = new ArrayList<>();

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void clean() throws IOException
    {
        for (final Path f : fifos)
        {
            if (Files.exists(f, LinkOption.NOFOLLOW_LINKS))
            {
                // for reading and writing: never waits, and lets a waiting opener of either kind go
                FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            }
        }
        TestFiles.delete(dir);
    }

    /** Makes a FIFO (mode 0600) at {@code path}. */
    private Path fifo(final Path path) throws IOException, InterruptedException
    {
        // coreutils' mkfifo: a machine without it fails here rather than skipping the test
        final Process p = new ProcessBuilder("mkfifo", "-m", "600", path.toString()).redirectErrorStream(true).start();
        assertEquals(0, p.waitFor(), new String(p.getInputStream().readAllBytes()));
        fifos.add(path);
        return path;
    }

    /** A regular file of this user alone, {@code size} bytes. */
    private static Path regular(final Path path, final int size) throws IOException
    {
        Files.write(path, new byte[size]);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        return path;
    }

    /**
     * What a sweep does with a file it found to be a regular file: reads its header to see whether
     * its owner is gone. A FIFO there now is not waited on: it is not a live listener's, connection's
     * or shared memory's file.
     */
    @Test
    void aFifoInPlaceOfAFileWhoseHeaderIsReadIsStaleAtOnce() throws Exception
    {
        final Path l = fifo(dir.resolve("l-7"));
        final Path c = fifo(dir.resolve("c-1-1"));
        final Path m = fifo(dir.resolve("m-1-1"));
        assertTimeoutPreemptively(PROMPTLY, () ->
        {
            assertTrue(ListenerFile.stale(l));
            assertTrue(ConnectionFile.stale(c));
            assertTrue(ShmMemory.stale(m));
        });
    }

    /**
     * Puts a FIFO and a regular file in turn at {@code target} (links of {@code fifo} and {@code file},
     * renamed over it) until {@code stop}; counts the swaps.
     */
    private static Thread swapper(final Path target, final Path fifo, final Path file, final AtomicBoolean stop,
        final AtomicInteger swaps)
    {
        final Thread t = new Thread(() ->
        {
            final Path next = target.resolveSibling(target.getFileName() + ".next");
            boolean useFifo = true;
            while (!stop.get())
            {
                try
                {
                    Files.deleteIfExists(next);
                    Files.createLink(next, useFifo ? fifo : file);
                    Files.move(next, target, StandardCopyOption.ATOMIC_MOVE);
                    useFifo = !useFifo;
                    swaps.incrementAndGet();
                }
                catch (final IOException e)
                {
                    // tried again
                }
            }
        }, "swapper");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Runs {@code call} over and over for {@link #RACE_NANOS} while {@code target} is swapped; counts its outcomes. */
    private void race(final Path target, final Path fifo, final Path file, final Call call) throws Exception
    {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger swaps = new AtomicInteger();
        final Thread t = swapper(target, fifo, file, stop, swaps);
        try
        {
            final int[] calls = new int[1];
            assertTimeoutPreemptively(PROMPTLY, () ->
            {
                final long end = System.nanoTime() + RACE_NANOS;
                while (System.nanoTime() - end < 0)
                {
                    call.run();
                    calls[0]++;
                }
            }, () -> "a call waited on the FIFO (" + swaps.get() + " swaps)");
            assertTrue(calls[0] > 100 && swaps.get() > 100, calls[0] + " calls, " + swaps.get() + " swaps");
        }
        finally
        {
            stop.set(true);
            t.join();
        }
    }

    /**
     * The directory's lock file swapped with a FIFO after the check: taking the lock does not wait
     * for a reader of the FIFO; it is refused, as a FIFO found by the check is.
     */
    @Test
    void aFifoSwappedInForTheLockFileIsRefusedNotWaitedOn() throws Exception
    {
        final Path address = ShmDirectory.addressDir(dir.resolve("root"), "srv");
        final Path lock = address.resolve(".lock");
        final Path fifo = fifo(dir.resolve("fifo"));
        final Path file = regular(dir.resolve("file"), 0);
        final AtomicInteger refused = new AtomicInteger();
        race(lock, fifo, file, () ->
        {
            try
            {
                ShmDirectory.locked(address, () -> null);
            }
            catch (final DatException e)
            {
                assertEquals(DatReturnType.PRIVILEGES_VIOLATION, e.status().type(), e.toString());
                assertTrue(e.getMessage().contains(lock.toString()), e.getMessage());
                refused.incrementAndGet();
            }
        });
        assertTrue(refused.get() > 0, "some were refused");
    }

    /**
     * A peer's shared memory file swapped with a FIFO after the check: a direct record's mapping
     * (in a progress round) finds no shared memory there, as for any file it cannot use.
     */
    @Test
    void aFifoSwappedInForAPeersSharedMemoryIsNotMapped() throws Exception
    {
        final Path root = dir.resolve("root");
        final Path mem = ShmDirectory.memoryDir(root);
        final Path target = mem.resolve(ShmMemory.fileName(1, 1));
        final Path fifo = fifo(dir.resolve("fifo"));
        final Path file = regular(dir.resolve("file"), 8192);
        race(target, fifo, file, () ->
        {
            try (Arena a = Arena.ofConfined())
            {
                assertEquals(null, ShmMemory.mapPeer(root, 1, 1, a));
            }
        });
    }

    /** A call of the race. */
    @FunctionalInterface
    interface Call
    {
        void run() throws Exception;
    }
}

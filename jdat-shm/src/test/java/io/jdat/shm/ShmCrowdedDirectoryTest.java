package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A directory others may write, filled with more names than an honest one ever holds. A sweep of
 * stale files holds the directory's lock (other processes wait for it {@link ShmDirectory#LOCK_WAIT_NANOS}
 * at most, then fail) and reads names for as long as the directory yields them: a million of them,
 * or new ones made as fast as they are read, would keep it there. Each sweep looks at no more than
 * {@link ShmDirectory#SWEEP_MAX} names; the next sweep goes on with what is left.
 */
class ShmCrowdedDirectoryTest
{
    /** More stale files than one sweep looks at. */
    private static final int CROWD = ShmDirectory.SWEEP_MAX + 1000;

    private Path root;

    @BeforeEach
    void dir()
    {
        root = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        TestFiles.delete(root);
    }

    /** {@code n} empty files of this user alone named {@code prefix}0, 1, ...: stale, as their header is missing. */
    private static void crowd(final Path dir, final String prefix, final int n) throws IOException
    {
        for (int i = 0; i < n; i++)
        {
            Files.createFile(dir.resolve(prefix + i),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
    }

    private static int count(final Path dir, final String glob) throws IOException
    {
        int n = 0;
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, glob))
        {
            for (final Path ignored : s)
            {
                n++;
            }
        }
        return n;
    }

    @Test
    void aSweepOfAnAddressLooksAtABoundedNumberOfNames() throws IOException
    {
        final Path address = ShmDirectory.addressDir(root, "srv");
        crowd(address, "l-", CROWD);
        final int removed = ShmDirectory.sweep(address);
        // the names it looked at: these files, and perhaps the lock file
        assertTrue(removed <= ShmDirectory.SWEEP_MAX && removed >= ShmDirectory.SWEEP_MAX - 1,
            removed + " of " + CROWD + " stale files removed by one sweep");
        assertEquals(CROWD - removed, count(address, "l-*"));
        // the next sweeps go on with the rest
        ShmDirectory.sweep(address);
        ShmDirectory.sweep(address);
        assertEquals(List.of(), TestFiles.files(address));
    }

    @Test
    void aSweepOfSharedMemoryLooksAtABoundedNumberOfNames() throws IOException
    {
        final Path mem = ShmDirectory.memoryDir(root);
        crowd(mem, "m-", CROWD);
        // each allocation sweeps first
        ShmMemory.allocate(root, 4096).close();
        final int left = count(mem, "m-*");
        assertTrue(left >= CROWD - ShmDirectory.SWEEP_MAX && left <= CROWD - ShmDirectory.SWEEP_MAX + 1,
            left + " of " + CROWD + " stale files left after one sweep");
        ShmMemory.allocate(root, 4096).close();
        assertEquals(0, count(mem, "m-*"));
    }
}

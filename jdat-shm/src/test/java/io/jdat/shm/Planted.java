package io.jdat.shm;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Files that another process of the same user (or of a shared root's group) puts into the
 * provider's directories: crowds of names, and headers that look like a live process's files.
 */
final class Planted
{
    /** The mode of the provider's own files, which its checks accept. */
    static final String OWNER_ONLY = "rw-------";
    /** A mode the provider's checks refuse (others may read): a sweep leaves such a file. */
    static final String REFUSED = "rw-r--r--";

    private Planted()
    {
    }

    /**
     * {@code n} empty files named {@code prefix}0, 1, ... with {@code mode}: stale at
     * {@link #OWNER_ONLY}, as their header is missing; left by every sweep at {@link #REFUSED}.
     */
    static void names(final Path dir, final String prefix, final int n, final String mode) throws IOException
    {
        for (int i = 0; i < n; i++)
        {
            Files.createFile(dir.resolve(prefix + i), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString(mode)));
        }
    }

    /** A file at {@code path} that looks like shared memory or a connection of this live process. */
    static void liveMemory(final Path path) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
        b.putLong(0, ShmMemory.MAGIC).putInt(8, ShmMemory.VERSION).putLong(16, Liveness.SELF_PID)
            .putLong(24, Liveness.SELF_START).putLong(32, Liveness.SELF_PID).putLong(40, Liveness.SELF_START);
        write(path, b);
    }

    /** A listening file of {@code qual} that this live process seems to own. */
    static void liveListener(final Path dir, final long qual) throws IOException
    {
        listener(ShmDirectory.listenerPath(dir, qual), Liveness.SELF_PID, Liveness.SELF_START, qual);
    }

    /**
     * A listening file of {@code qual} as process {@code pid} started at {@code start} would have
     * made it: its header, in a file of the listening file's size (sparse: no memory for the rest).
     */
    static void listener(final Path path, final long pid, final long start, final long qual) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
        b.putLong(0, ListenerFile.MAGIC).putInt(8, ListenerFile.VERSION).putInt(12, ListenerFile.LISTENING)
            .putLong(16, pid).putLong(24, start).putLong(32, qual);
        write(path, b);
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw"))
        {
            f.setLength(ListenerFile.SIZE);
        }
    }

    private static void write(final Path path, final ByteBuffer b) throws IOException
    {
        Files.write(path, b.array());
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(OWNER_ONLY));
    }

    /** How many names in {@code dir} match {@code glob}. */
    static int count(final Path dir, final String glob) throws IOException
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

    /** Where {@code name} comes in a listing of {@code dir} (the order a sweep reads), or -1. */
    static int position(final Path dir, final String name) throws IOException
    {
        int i = 0;
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir))
        {
            for (final Path p : s)
            {
                if (p.getFileName().toString().equals(name))
                {
                    return i;
                }
                i++;
            }
        }
        return -1;
    }
}

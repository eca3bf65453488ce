package io.jdat.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The files of the {@code shm} provider. Everything lives under one directory that only its user
 * may enter (default {@code /dev/shm/jdat-UID}, else {@code java.io.tmpdir/jdat-UID}; system
 * property {@code jdat.shm.dir} or instance data {@code dir=} change it):
 * <pre>
 *   ROOT/                        mode 0700
 *     ADDRESS/                   one per IA address (a host-local name); many processes share it,
 *                                as the processes of a host share its IP address
 *       .lock                    serialises creating and removing files of this address
 *       l-QUAL                   a listening connection qualifier (ListenerFile)
 *       c-PID-SEQ                a connection being set up by process PID (ConnectionFile); its
 *                                creator removes the name once the attempt ends (both sides keep
 *                                their mappings, so the kernel frees the memory when both unmap)
 *     .mem/                      shared memory (ShmMemory); not an address, which never starts with '.'
 *       .lock                    serialises removing stale files
 *       m-PID-SEQ                shared memory allocated by process PID
 * </pre>
 * Files whose owner died are stale: they are removed, under the address's lock, by whoever finds
 * them (an IA opening on the address, a listen on the same qualifier, a connect to it), and never
 * trusted.
 */
final class ShmDirectory
{
    /** The directory of shared memory files under the root. */
    static final String MEMORY_DIR = ".mem";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
    private static final FileAttribute<Set<PosixFilePermission>> DIR_MODE =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    private static final FileAttribute<Set<PosixFilePermission>> FILE_MODE =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    /** One JVM-wide lock per address directory: a JVM cannot hold two file locks on one file. */
    private static final ConcurrentHashMap<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

    private ShmDirectory()
    {
    }

    /** The default root: {@code jdat.shm.dir}, else {@code /dev/shm/jdat-UID}, else under {@code java.io.tmpdir}. */
    static Path defaultRoot()
    {
        final String property = System.getProperty("jdat.shm.dir");
        if (property != null && !property.isBlank())
        {
            return Path.of(property);
        }
        final Path shm = Path.of("/dev/shm");
        final Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
        return base.resolve("jdat-" + userId());
    }

    private static String userId()
    {
        try
        {
            return String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        }
        catch (final IOException | RuntimeException e)
        {
            return System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        }
    }

    /** Whether an IA address name can be a directory name here. */
    static boolean validName(final String name)
    {
        return name != null && NAME.matcher(name).matches();
    }

    /** Creates the address directory (and the root) if missing, mode 0700. */
    static Path addressDir(final Path root, final String address)
    {
        final Path dir = root.resolve(address);
        try
        {
            if (!Files.isDirectory(root))
            {
                Files.createDirectories(root, DIR_MODE);
            }
            if (!Files.isDirectory(dir))
            {
                Files.createDirectories(dir, DIR_MODE);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        return dir;
    }

    /** Creates the shared memory directory (and the root) if missing, mode 0700. */
    static Path memoryDir(final Path root)
    {
        return addressDir(root, MEMORY_DIR);
    }

    static Path listenerPath(final Path dir, final long qual)
    {
        return dir.resolve("l-" + Long.toUnsignedString(qual));
    }

    static Path connectionPath(final Path dir, final long id)
    {
        return dir.resolve("c-" + (id >>> 32) + "-" + (id & 0xFFFF_FFFFL));
    }

    /**
     * Runs {@code body} holding the address directory's lock: a JVM-wide lock, then an exclusive
     * file lock on {@code .lock} (which the kernel drops if this process dies).
     */
    static <T> T locked(final Path dir, final Supplier<T> body)
    {
        final ReentrantLock jvm = JVM_LOCKS.computeIfAbsent(dir.toAbsolutePath().normalize(), k -> new ReentrantLock());
        jvm.lock();
        try
        {
            return uninterruptibly(() ->
            {
                try (FileChannel fc = FileChannel.open(dir.resolve(".lock"), Set.of(StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE), FILE_MODE); FileLock ignored = fc.lock())
                {
                    return body.get();
                }
            });
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot lock " + dir, e);
        }
        finally
        {
            jvm.unlock();
        }
    }

    /** Creates a new file of {@code size} bytes (mode 0600) and maps it; null if the name exists. */
    static MemorySegment create(final Path path, final long size, final Arena arena)
    {
        try
        {
            return uninterruptibly(() ->
            {
                try (FileChannel fc = FileChannel.open(path, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE), FILE_MODE))
                {
                    fc.write(ByteBuffer.allocate(1), size - 1);
                    return fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                }
                catch (final ClosedByInterruptException e)
                {
                    // made, but not mapped: made again
                    delete(path);
                    throw e;
                }
            });
        }
        catch (final java.nio.file.FileAlreadyExistsException e)
        {
            return null;
        }
        catch (final IOException e)
        {
            delete(path);
            throw new UncheckedIOException("cannot create " + path, e);
        }
    }

    /**
     * Maps an existing file whose size lies in {@code [min, max]}; null if it is missing or its
     * size is out of bounds (someone else's file is never mapped beyond what was checked).
     */
    static MemorySegment open(final Path path, final long min, final long max, final Arena arena)
    {
        try
        {
            return uninterruptibly(() ->
            {
                try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
                {
                    final long size = fc.size();
                    if (size < min || size > max)
                    {
                        return null;
                    }
                    return fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                }
            });
        }
        catch (final NoSuchFileException e)
        {
            return null;
        }
        catch (final IOException e)
        {
            return null;
        }
    }

    /** Reads the first {@code n} bytes of a file in native order (empty buffer if unreadable). */
    static ByteBuffer head(final Path path, final int n)
    {
        final ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.nativeOrder());
        try
        {
            uninterruptibly(() ->
            {
                b.clear();
                try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ))
                {
                    while (b.hasRemaining() && fc.read(b) > 0)
                    {
                        // keep reading
                    }
                }
                return null;
            });
        }
        catch (final IOException e)
        {
            b.position(0);
        }
        return b.flip();
    }

    /** A file operation that {@link #uninterruptibly} may repeat. */
    @FunctionalInterface
    interface FileOperation<T>
    {
        T run() throws IOException;
    }

    /**
     * Runs {@code op} as if the calling thread were not interrupted, and leaves its interrupt
     * status as it was (set if it was set before or became set meanwhile). File channels are
     * interruptible: an interrupt closes the channel and fails the operation. DAT calls other than
     * the waits are not interruption points, and a consumer's thread moves the rings and takes
     * connection requests when it polls: without this a consumer's pending interrupt would fail a
     * dat_psp_create with a raw exception, or make a peer's valid request or direct record look
     * like a missing file.
     */
    static <T> T uninterruptibly(final FileOperation<T> op) throws IOException
    {
        boolean interrupted = Thread.interrupted();
        try
        {
            while (true)
            {
                try
                {
                    return op.run();
                }
                catch (final ClosedByInterruptException | FileLockInterruptionException e)
                {
                    // interrupted while it ran: the status is cleared and the operation repeated
                    Thread.interrupted();
                    interrupted = true;
                }
            }
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void delete(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException e)
        {
            // another process removed it, or the directory went away: nothing to reclaim
        }
    }

    /**
     * Removes the stale files of an address directory: listening files and connection files whose
     * owner is dead. Takes the directory's lock.
     */
    static int sweep(final Path dir)
    {
        return locked(dir, () ->
        {
            int removed = 0;
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
            {
                for (final Path p : files)
                {
                    final String n = p.getFileName().toString();
                    final boolean stale = n.startsWith("l-") ? ListenerFile.stale(p)
                        : n.startsWith("c-") && ConnectionFile.stale(p);
                    if (stale)
                    {
                        delete(p);
                        removed++;
                    }
                }
            }
            catch (final IOException e)
            {
                // an unreadable directory is left as it is
            }
            return removed;
        });
    }
}

package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
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
 *
 * <p><b>Other users.</b> Whoever can enter the root can connect, read rings and map shared memory,
 * so nothing is used as it is found: a directory is made with {@code mkdir} at mode 0700 and a file
 * with {@code O_CREAT|O_EXCL} at 0600 (both atomic: an existing name is never taken over), and
 * before use every directory and file is looked at without following links ({@code lstat}): it
 * must be a directory or a regular file, not a symbolic link, owned by this process's user, with no
 * access for group or others. Files are opened with {@code O_NOFOLLOW}, for reading and writing,
 * and refused unless they can seek ({@link #openFile}): a FIFO put in a file's place after the
 * look neither holds the opening thread nor is used. The directory that holds
 * the root must be owned by this user or by root, and writable by others only if sticky (as
 * {@code /dev/shm} and {@code /tmp} are), so nobody else can rename the root away and put
 * another in its place. A path that fails is refused with {@code DAT_PRIVILEGES_VIOLATION} naming
 * it: a directory of another user or with a loose mode left in {@code /dev/shm}, or a link planted
 * there, stops {@code dat_ia_open} instead of handing the rendezvous to whoever planted it.
 *
 * <p><b>A group.</b> Sharing with other users is a choice in {@code dat.conf} ({@code group=NAME}):
 * then directories are made 0770 and files 0660, both given to the group, and every path must
 * have that group and no access for others, whoever of its members made it (only a member can
 * give a file to the group, or enter its directories). Both sides write into a connection's file
 * and the listener's backlog, so the group needs write access: 0750 and 0640 would let members
 * read the rings but never connect.
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
    /** File type bits of {@code st_mode}. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFLNK = 0120000;
    private static final int S_ISVTX = 01000;
    /** This process's user id, which every directory and file of the provider must have. */
    static final int SELF_UID = selfUid();
    /**
     * Roots shared with a group (instance data {@code group=NAME}): the root and its gid. Everything
     * under such a root is made for that group (directories 0770, files 0660, group NAME) and must
     * have that group and no access for others; its owner may be any member.
     */
    private static final ConcurrentHashMap<Path, Integer> SHARED = new ConcurrentHashMap<>();
    /** One JVM-wide lock per address directory: a JVM cannot hold two file locks on one file. */
    private static final ConcurrentHashMap<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();
    /**
     * The longest a thread waits for another process to let go of an address directory's lock:
     * an honest holder keeps it for a few file operations, but a process that is hostile, or was
     * stopped while it held it, keeps it for ever.
     */
    static final long LOCK_WAIT_NANOS = 5_000_000_000L;
    private static final long LOCK_RETRY_MAX_NANOS = 10_000_000L;
    /** {@link #hold}: wait {@link #LOCK_WAIT_NANOS} for the JVM's and the file lock together, then fail. */
    private static final int WAIT = 0;
    /** {@link #hold}: do not wait. */
    private static final int TRY = 1;
    /** {@link #hold}: wait until a deadline, then give up. */
    private static final int UNTIL = 2;
    /**
     * The most names one sweep of stale files looks at. Others may write the directory: it can
     * hold any number of names, or gain new ones as fast as they are read, and the sweep holds the
     * directory's lock, which other processes wait {@link #LOCK_WAIT_NANOS} for at most. An honest
     * directory holds one name per listener and per connection being set up, and the next sweep
     * goes on with what one left.
     */
    static final int SWEEP_MAX = 4096;
    /**
     * The most names one sweep reads: it passes over those the sweeps before it looked at (names
     * they left: files the check refuses, live files) and looks at the next {@link #SWEEP_MAX}, so
     * that such names ahead in the directory's order never keep the sweeps from stale files behind
     * them. Reading a name costs a fraction of looking at it (no {@code lstat}, no open). Names
     * beyond this many are reached once names before them go.
     */
    static final int SWEEP_READ_MAX = 16 * SWEEP_MAX;
    /**
     * Where the next sweep of a directory starts, in names of its listing, for the directories
     * whose last sweep in this process stopped before their end; read and written under the
     * directory's lock.
     */
    private static final ConcurrentHashMap<Path, Integer> SWEEP_FROM = new ConcurrentHashMap<>();
    /**
     * The most names a process tries for a file of its own ({@code c-PID-SEQ}, {@code m-PID-SEQ}:
     * the next SEQ while one is taken). A name with this process's pid is taken only by a file an
     * earlier process with the same pid left (the sweeps remove those), or by one another process
     * put there to keep this one trying, for the connection files under the directory's lock.
     */
    static final int NAME_TRIES = 4096;

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

    /**
     * Shares {@code root} with {@code group} (a group name or a number; null: with nobody) for
     * this JVM. A root is shared one way in a JVM: an IA that wants another is refused.
     *
     * @throws IllegalArgumentException if the group is unknown or the root is shared otherwise
     */
    static void share(final Path root, final String group)
    {
        final Path key = root.toAbsolutePath().normalize();
        if (group == null)
        {
            final Integer shared = SHARED.get(key);
            if (shared != null)
            {
                throw new IllegalArgumentException("shm root " + key + " is shared with gid " + shared
                    + " in this process; this IA asks for no group");
            }
            return;
        }
        final int gid = gid(group);
        final Integer before = SHARED.putIfAbsent(key, gid);
        if (before != null && before != gid)
        {
            throw new IllegalArgumentException("shm root " + key + " is already shared with gid " + before
                + " in this process; this IA asks for gid " + gid);
        }
    }

    /** The gid of a group name (from /etc/group) or number. */
    private static int gid(final String group)
    {
        if (group.matches("[0-9]{1,9}"))
        {
            return Integer.parseInt(group);
        }
        try
        {
            for (final String line : Files.readAllLines(Path.of("/etc/group")))
            {
                final String[] f = line.split(":");
                if (f.length > 2 && f[0].equals(group))
                {
                    return Integer.parseInt(f[2]);
                }
            }
        }
        catch (final IOException | NumberFormatException e)
        {
            throw new IllegalArgumentException("instance data: group=" + group + ": cannot read /etc/group (" + e
                + ")", e);
        }
        throw new IllegalArgumentException("instance data: group=" + group + " is not a group of this host");
    }

    /** The gid {@code path}'s root is shared with, or -1. */
    private static int sharedGid(final Path path)
    {
        if (SHARED.isEmpty())
        {
            return -1;
        }
        final Path p = path.toAbsolutePath().normalize();
        for (final Map.Entry<Path, Integer> e : SHARED.entrySet())
        {
            if (p.startsWith(e.getKey()))
            {
                return e.getValue();
            }
        }
        return -1;
    }

    /**
     * Gives what this process just made under a shared root to the group: the gid, then the mode
     * (0770 or 0660; made 0700 or 0600 first, so nobody else could open it before).
     */
    private static void giveToGroup(final Path path, final boolean dir) throws IOException
    {
        final int gid = sharedGid(path);
        if (gid >= 0)
        {
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:mode", dir ? 0770 : 0660, LinkOption.NOFOLLOW_LINKS);
        }
    }

    private static String userId()
    {
        return SELF_UID >= 0 ? Integer.toString(SELF_UID)
            : System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static int selfUid()
    {
        try
        {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        }
        catch (final IOException | RuntimeException e)
        {
            return -1;
        }
    }

    /**
     * A file operation that failed for want of something the system lacks (descriptors, memory,
     * space): DAT_INSUFFICIENT_RESOURCES with the cause.
     */
    static DatException resources(final String what, final IOException e)
    {
        final DatException d = new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.NO_SUBTYPE,
            "shm: " + what + ": " + e);
        d.initCause(e);
        return d;
    }

    /** No free name for a file of this process in {@code dir} after {@link #NAME_TRIES}: DAT_INSUFFICIENT_RESOURCES. */
    static DatException namesTaken(final Path dir)
    {
        return new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.NO_SUBTYPE,
            "shm: the next " + NAME_TRIES + " names for a file of this process in " + dir + " were taken");
    }

    /** A path the provider does not use, and why: {@code DAT_PRIVILEGES_VIOLATION} naming it. */
    static DatException refused(final Path path, final String why)
    {
        return new DatException(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.NO_SUBTYPE,
            "shm: refusing " + path + ": " + why);
    }

    /**
     * Checks what is at {@code path} without following a link: a directory ({@code dir}) or a
     * regular file, owned by this user, no access for group or others. False if nothing is there.
     *
     * @throws DatException DAT_PRIVILEGES_VIOLATION naming the path if it is anything else
     */
    static boolean check(final Path path, final boolean dir)
    {
        final Map<String, Object> a;
        try
        {
            a = Files.readAttributes(path, "unix:uid,gid,mode", LinkOption.NOFOLLOW_LINKS);
        }
        catch (final NoSuchFileException e)
        {
            return false;
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            throw refused(path, "cannot look at it (" + e + ")");
        }
        final int mode = (Integer) a.get("mode");
        final int uid = (Integer) a.get("uid");
        final int type = mode & S_IFMT;
        if (type == S_IFLNK)
        {
            throw refused(path, "it is a symbolic link");
        }
        if (type != (dir ? S_IFDIR : S_IFREG))
        {
            throw refused(path, "it is not a " + (dir ? "directory" : "regular file"));
        }
        final int shared = sharedGid(path);
        if (shared >= 0)
        {
            // shared with a group: made by any member, for the group alone
            final int gid = (Integer) a.get("gid");
            if (gid != shared)
            {
                throw refused(path, "its group is gid " + gid + ", not gid " + shared + " this IA shares with");
            }
            if ((mode & 07) != 0)
            {
                throw refused(path, String.format("its mode %04o gives others access (%s, group %d, expected)",
                    mode & 07777, dir ? "0770" : "0660", shared));
            }
            return true;
        }
        if (SELF_UID >= 0 && uid != SELF_UID)
        {
            throw refused(path, "it belongs to uid " + uid + ", not to this process's uid " + SELF_UID);
        }
        if ((mode & 077) != 0)
        {
            throw refused(path, String.format("its mode %04o gives group or others access (%s)", mode & 07777,
                dir ? "0700 expected" : "0600 expected"));
        }
        return true;
    }

    /** Whether {@code path} is a regular file of this user that others cannot reach ({@link #check}). */
    static boolean safe(final Path path)
    {
        try
        {
            return check(path, false);
        }
        catch (final DatException e)
        {
            return false;
        }
    }

    /** Makes the directory {@code dir} (mode 0700) unless something is there, then checks it. */
    private static void makeDir(final Path dir)
    {
        try
        {
            Files.createDirectory(dir, DIR_MODE);
            giveToGroup(dir, true);
        }
        catch (final FileAlreadyExistsException e)
        {
            // checked below, whatever it is
        }
        catch (final java.nio.file.AccessDeniedException e)
        {
            throw refused(dir, "no permission to make it" + (sharedGid(dir) >= 0 ? " (is this user in group "
                + sharedGid(dir) + "?)" : ""));
        }
        catch (final IOException e)
        {
            throw resources("cannot create " + dir, e);
        }
        if (!check(dir, true))
        {
            throw refused(dir, "it went away while it was made");
        }
    }

    /**
     * Makes and checks the root: its parent must be owned by this user or root and, if others may
     * write it, sticky (else another user could rename the root and put their own in its place).
     */
    private static void makeRoot(final Path root)
    {
        final Path parent = root.toAbsolutePath().getParent();
        if (parent != null)
        {
            final Map<String, Object> a;
            try
            {
                Files.createDirectories(parent);
                a = Files.readAttributes(parent, "unix:uid,mode");
            }
            catch (final IOException e)
            {
                throw resources("cannot create " + parent, e);
            }
            final int mode = (Integer) a.get("mode");
            final int uid = (Integer) a.get("uid");
            if (SELF_UID >= 0 && uid != SELF_UID && uid != 0)
            {
                throw refused(root, "its parent directory belongs to uid " + uid + ", who could replace it");
            }
            if ((mode & 022) != 0 && (mode & S_ISVTX) == 0)
            {
                throw refused(root, String.format("its parent directory has mode %04o: others could replace it "
                    + "(writable by group or others and not sticky)", mode & 07777));
            }
        }
        makeDir(root);
    }

    /** Whether an IA address name can be a directory name here. */
    static boolean validName(final String name)
    {
        return name != null && NAME.matcher(name).matches();
    }

    /**
     * Creates the address directory (and the root) if missing, mode 0700, and checks both.
     *
     * @throws DatException DAT_PRIVILEGES_VIOLATION naming a path that is not safe to use,
     *     DAT_INSUFFICIENT_RESOURCES if a directory cannot be made
     */
    static Path addressDir(final Path root, final String address)
    {
        makeRoot(root);
        final Path dir = root.resolve(address);
        makeDir(dir);
        return dir;
    }

    /**
     * Checks the address directory of a peer under {@code root}; false if there is none.
     *
     * @throws DatException DAT_PRIVILEGES_VIOLATION naming a path that is not safe to use
     */
    static boolean peerDir(final Path root, final String address)
    {
        return check(root, true) && check(root.resolve(address), true);
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
     *
     * @throws DatException DAT_INSUFFICIENT_RESOURCES if another process, or another thread of
     *     this JVM, kept the lock for {@link #LOCK_WAIT_NANOS}
     */
    static <T> T locked(final Path dir, final Supplier<T> body)
    {
        return hold(dir, body, WAIT, 0);
    }

    /**
     * Runs {@code body} holding the address directory's lock if it is free now, without waiting
     * for another thread or process that holds it: for a progress round, whose wait would stall
     * every connection of the port. False when the lock was taken.
     *
     * @throws DatException as {@link #locked}, but never for a lock another process holds
     */
    static boolean tryLocked(final Path dir, final Runnable body)
    {
        return hold(dir, () ->
        {
            body.run();
            return Boolean.TRUE;
        }, TRY, 0) != null;
    }

    /**
     * Runs {@code body} holding the address directory's lock if it comes free before
     * {@code deadline} ({@link System#nanoTime()}); false, without running it, when the deadline
     * passed first (a thread of this JVM or another process kept it). For an exiting JVM, and
     * for a consumer's close of a listener.
     *
     * @throws DatException as {@link #locked}, but never for a lock kept past the deadline
     */
    static boolean lockedUntil(final Path dir, final long deadline, final Runnable body)
    {
        return hold(dir, () ->
        {
            body.run();
            return Boolean.TRUE;
        }, UNTIL, deadline) != null;
    }

    /**
     * {@link #locked} ({@link #WAIT}), or null when another thread or process holds the lock now
     * ({@link #TRY}) or still holds it at {@code until}, a {@link System#nanoTime()} ({@link #UNTIL}).
     */
    private static <T> T hold(final Path dir, final Supplier<T> body, final int mode, final long until)
    {
        final ReentrantLock jvm = JVM_LOCKS.computeIfAbsent(dir.toAbsolutePath().normalize(), k -> new ReentrantLock());
        // WAIT: one deadline for both locks, so that threads of this JVM queued behind one that
        // waits for another process wait no longer than it does
        final long deadline = mode == WAIT ? System.nanoTime() + LOCK_WAIT_NANOS : until;
        if (!(mode == TRY ? jvm.tryLock() : tryLock(jvm, deadline)))
        {
            if (mode == WAIT)
            {
                throw keptTooLong(dir);
            }
            return null;
        }
        try
        {
            final Path lock = dir.resolve(".lock");
            final boolean made = !check(lock, false);
            return uninterruptibly(() ->
            {
                try (FileChannel fc = openFile(lock, true);
                    FileLock l = mode == TRY ? fc.tryLock() : lockUntil(fc, deadline))
                {
                    if (l == null)
                    {
                        if (mode == WAIT)
                        {
                            throw keptTooLong(dir);
                        }
                        return null;
                    }
                    if (made && (Integer) Files.getAttribute(lock, "unix:uid", LinkOption.NOFOLLOW_LINKS) == SELF_UID)
                    {
                        giveToGroup(lock, false);
                    }
                    return body.get();
                }
            });
        }
        catch (final NotAFile e)
        {
            throw refused(e.path, "it is not a regular file");
        }
        catch (final IOException e)
        {
            throw resources("cannot lock " + dir, e);
        }
        finally
        {
            jvm.unlock();
        }
    }

    /** The JVM's lock of a directory, waited for until {@code until}; false when it was not had. */
    private static boolean tryLock(final ReentrantLock jvm, final long until)
    {
        boolean interrupted = false;
        try
        {
            while (true)
            {
                try
                {
                    return jvm.tryLock(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                catch (final InterruptedException e)
                {
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

    /** The file lock of a directory's {@code .lock}, waited for until {@code until}; null if not had. */
    private static FileLock lockUntil(final FileChannel fc, final long until) throws IOException
    {
        long park = 1000;
        while (true)
        {
            final FileLock l = fc.tryLock();
            if (l != null || System.nanoTime() - until >= 0)
            {
                return l;
            }
            LockSupport.parkNanos(Math.min(park, Math.max(1, until - System.nanoTime())));
            park = Math.min(park << 1, LOCK_RETRY_MAX_NANOS);
        }
    }

    /** The error of a {@link #locked} call whose directory lock another thread or process kept. */
    private static DatException keptTooLong(final Path dir)
    {
        return new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.NO_SUBTYPE,
            "shm: another thread or process kept the lock of " + dir + " for " + LOCK_WAIT_NANOS / 1_000_000 + " ms");
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
                    giveToGroup(path, false);
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
            throw resources("cannot create " + path, e);
        }
    }

    /**
     * Maps an existing file whose size lies in {@code [min, max]}; null if it is missing, its size
     * is out of bounds (someone else's file is never mapped beyond what was checked), or it is not
     * a regular file of this user without access for others ({@link #check}).
     */
    static MemorySegment open(final Path path, final long min, final long max, final Arena arena)
    {
        try
        {
            if (!check(path, false))
            {
                return null;
            }
            return uninterruptibly(() ->
            {
                try (FileChannel fc = openFile(path, false))
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
        catch (final DatException e)
        {
            return null;
        }
        catch (final IOException e)
        {
            if (outOfDescriptors(e))
            {
                throw resources("cannot open " + path, e);
            }
            return null;
        }
    }

    /**
     * Opens a file that {@link #check} found to be a regular file, so that the open itself can
     * neither follow nor wait: whoever may write the directory can put a link or a FIFO in the
     * file's place between the check and the open. No link is followed ({@code O_NOFOLLOW}); the
     * file is opened for reading and writing, which opens a FIFO at once (open for one of the two,
     * it waits for a process to open the other end, for ever); and a file that cannot seek (a FIFO)
     * is refused with {@link NotAFile} before anything reads it (a read of an empty FIFO waits too).
     * {@code create}: made (mode 0600) if missing, as the lock file is.
     */
    static FileChannel openFile(final Path path, final boolean create) throws IOException
    {
        final FileChannel fc = create ? FileChannel.open(path, Set.of(StandardOpenOption.CREATE,
            StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), FILE_MODE)
            : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        try
        {
            fc.position();
        }
        catch (final IOException e)
        {
            fc.close();
            throw new NotAFile(path);
        }
        return fc;
    }

    /** What {@link #openFile} opened at a path is not a regular file (it cannot seek). */
    static final class NotAFile extends FileSystemException
    {
        private static final long serialVersionUID = 1L;

        final transient Path path;

        NotAFile(final Path path)
        {
            super(path.toString(), null, "not a regular file");
            this.path = path;
        }
    }

    /**
     * Whether a file operation failed because this process or the system has no descriptor left
     * (EMFILE, ENFILE): the file may well be there and valid, so it must not count as missing.
     */
    static boolean outOfDescriptors(final IOException e)
    {
        return e instanceof FileSystemException f && f.getReason() != null
            && f.getReason().startsWith("Too many open files");
    }

    /**
     * Reads the first {@code n} bytes of a file in native order (empty buffer if unreadable).
     *
     * @throws DatException DAT_INSUFFICIENT_RESOURCES if no descriptor is left to open it with (a
     *     live listener's file must not look stale for want of one)
     */
    static ByteBuffer head(final Path path, final int n)
    {
        final ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.nativeOrder());
        try
        {
            uninterruptibly(() ->
            {
                b.clear();
                try (FileChannel fc = openFile(path, false))
                {
                    while (b.hasRemaining() && fc.read(b, b.position()) > 0)
                    {
                        // keep reading
                    }
                }
                return null;
            });
        }
        catch (final IOException e)
        {
            if (outOfDescriptors(e))
            {
                throw resources("cannot open " + path, e);
            }
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
     * owner is dead ({@link #sweepNames}). Takes the directory's lock.
     */
    static int sweep(final Path dir)
    {
        return locked(dir, () ->
        {
            try
            {
                return sweepNames(dir, p ->
                {
                    final String n = p.getFileName().toString();
                    return n.startsWith("l-") ? ListenerFile.stale(p) : n.startsWith("c-") && ConnectionFile.stale(p);
                });
            }
            catch (final IOException e)
            {
                // an unreadable directory is left as it is
                return 0;
            }
        });
    }

    /**
     * Removes the files of {@code dir} that are this user's alone ({@link #safe}) and {@code stale}
     * says are stale, among {@link #SWEEP_MAX} names of its listing: from where the last sweep of the
     * directory in this process stopped, to the end, then from the start again. The caller holds
     * the directory's lock. The number of files removed.
     */
    static int sweepNames(final Path dir, final Predicate<Path> stale) throws IOException
    {
        final Path key = dir.toAbsolutePath().normalize();
        final Integer last = SWEEP_FROM.remove(key);
        final int from = last == null ? 0 : last;
        int read = 0;
        int looked = 0;
        int removed = 0;
        boolean end = true;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
        {
            for (final Path p : files)
            {
                if (read++ < from)
                {
                    // looked at by the sweeps before
                    continue;
                }
                if (looked == SWEEP_MAX)
                {
                    end = false;
                    break;
                }
                looked++;
                // a file that is not safe is left for whoever uses the name to refuse, naming it
                if (safe(p) && stale.test(p))
                {
                    delete(p);
                    removed++;
                }
            }
        }
        if (!end)
        {
            // the names it removed are gone from the listing
            final int next = from + looked - removed;
            if (next + SWEEP_MAX <= SWEEP_READ_MAX)
            {
                SWEEP_FROM.put(key, next);
            }
        }
        else if (looked == 0 && from > 0)
        {
            // the directory has fewer names than the last sweep passed: from the start
            return sweepNames(dir, stale);
        }
        return removed;
    }
}

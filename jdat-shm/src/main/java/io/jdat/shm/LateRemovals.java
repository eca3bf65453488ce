package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Listening files of this process that closed while another thread or process held their address
 * directory's lock: they say so (closed, hence stale: a connect finds nobody listening, a listen
 * may replace them, any sweep removes them), and are removed once the lock comes free. A listener
 * that closes inside a progress round (an RSP, when its one request arrives) must not wait for the
 * lock there: the round holds the port's progress lock, and every connection of the port would
 * wait with it, for as long as the other process likes ({@link ShmDirectory#LOCK_WAIT_NANOS} at
 * most).
 *
 * <p>The files are the process's, not a port's: a port may close, and its JVM exit, before the
 * lock is free. Every port's I/O thread tries them all again without waiting, outside the round,
 * every {@code liveness_ms} ({@link #tryRemove()}); the JVM's exit waits for the locks a short,
 * fixed time ({@link #removeBy(long)}, from {@link ListenerCleanup}); what is left after that is
 * the sweeps' (each IA opening on the address sweeps it).
 */
final class LateRemovals
{
    /** Each listening file waiting for its directory's lock, with that directory. */
    private static final Map<Path, Path> PENDING = new ConcurrentHashMap<>();

    private LateRemovals()
    {
    }

    /** The listening file at {@code path}, marked closed, is to be removed once the lock is free. */
    static void add(final Path path)
    {
        PENDING.put(path, path.getParent());
    }

    /** Whether the file at {@code path} still waits for its directory's lock. */
    static boolean pending(final Path path)
    {
        return PENDING.containsKey(path);
    }

    /** Removes those whose directory's lock is free now; never waits. An I/O thread, no progress lock. */
    static void tryRemove()
    {
        for (final Path dir : directories())
        {
            try
            {
                ShmDirectory.tryLocked(dir, () -> removeStale(dir));
            }
            catch (final DatException e)
            {
                giveUpIfRefused(dir, e);
            }
        }
    }

    /**
     * Removes them, waiting for each directory's lock until {@code deadline} ({@link System#nanoTime()})
     * at most, all directories together: the JVM exits. What is left stays, marked closed, for the
     * sweeps.
     */
    static void removeBy(final long deadline)
    {
        for (final Path dir : directories())
        {
            try
            {
                ShmDirectory.lockedUntil(dir, deadline, () -> removeStale(dir));
            }
            catch (final DatException e)
            {
                giveUpIfRefused(dir, e);
            }
        }
    }

    /** The directories with files waiting; those that went away meanwhile are forgotten. */
    private static Set<Path> directories()
    {
        if (PENDING.isEmpty())
        {
            return Set.of();
        }
        final Set<Path> dirs = new java.util.HashSet<>(PENDING.values());
        dirs.removeIf(d ->
        {
            if (Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS))
            {
                return false;
            }
            // the directory went away, and the file with it
            PENDING.values().removeIf(d::equals);
            return true;
        });
        return dirs;
    }

    /**
     * Removes each file of {@code dir} that is still stale: another listen on its qualifier may have
     * replaced it meanwhile (a stale file is anybody's to replace), and a live listener's file
     * stays. The directory's lock held.
     */
    private static void removeStale(final Path dir)
    {
        for (final Map.Entry<Path, Path> e : PENDING.entrySet())
        {
            if (!e.getValue().equals(dir))
            {
                continue;
            }
            final Path p = e.getKey();
            try
            {
                if (ShmDirectory.check(p, false) && ListenerFile.stale(p))
                {
                    ShmDirectory.delete(p);
                }
            }
            catch (final DatException x)
            {
                // something the provider refuses took its place: not this process's to remove
            }
            PENDING.remove(p);
        }
    }

    /** The lock file or the directory is refused: trying again finds the same; the sweeps decide. */
    private static void giveUpIfRefused(final Path dir, final DatException e)
    {
        if (e.type() == DatReturnType.PRIVILEGES_VIOLATION)
        {
            PENDING.values().removeIf(dir::equals);
        }
    }
}

package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Listening files of a port that closed while another thread or process held the address
 * directory's lock: they say so (closed), and are removed once the lock comes free. A listener
 * that closes inside a progress round (an RSP, when its one request arrives) must not wait for the
 * lock there: the round holds the port's progress lock, and every connection of the port would
 * wait with it, for as long as the other process likes ({@link ShmDirectory#LOCK_WAIT_NANOS} at
 * most). The port's I/O thread tries again without waiting, outside the round, every
 * {@code liveness_ms}; the port's close waits once, as a free does.
 */
final class LateRemovals
{
    private final Path dir;
    private final Set<Path> paths = ConcurrentHashMap.newKeySet();

    LateRemovals(final Path dir)
    {
        this.dir = dir;
    }

    /** The listening file at {@code path}, marked closed, is to be removed once the lock is free. */
    void add(final Path path)
    {
        paths.add(path);
    }

    boolean pending()
    {
        return !paths.isEmpty();
    }

    /** Removes them if the lock is free now; never waits. The I/O thread, no progress lock. */
    void tryRemove()
    {
        if (paths.isEmpty())
        {
            return;
        }
        try
        {
            ShmDirectory.tryLocked(dir, this::removeStale);
        }
        catch (final DatException e)
        {
            giveUpIfRefused(e);
        }
    }

    /** The port closes: waits for the lock as a free does; what is left then is the sweeps'. */
    void removeWaiting()
    {
        if (paths.isEmpty())
        {
            return;
        }
        try
        {
            ShmDirectory.locked(dir, () ->
            {
                removeStale();
                return null;
            });
        }
        catch (final DatException e)
        {
            paths.clear();
        }
    }

    /**
     * Removes each file that is still stale: another listen on its qualifier may have replaced it
     * meanwhile (a stale file is anybody's to replace), and a live listener's file stays. Lock held.
     */
    private void removeStale()
    {
        for (final Path p : paths)
        {
            try
            {
                if (ShmDirectory.check(p, false) && ListenerFile.stale(p))
                {
                    ShmDirectory.delete(p);
                }
            }
            catch (final DatException e)
            {
                // something the provider refuses took its place: not this port's to remove
            }
            paths.remove(p);
        }
    }

    /** The lock file or the directory is refused: trying again finds the same; the sweeps decide. */
    private void giveUpIfRefused(final DatException e)
    {
        if (e.type() == DatReturnType.PRIVILEGES_VIOLATION)
        {
            paths.clear();
        }
    }
}

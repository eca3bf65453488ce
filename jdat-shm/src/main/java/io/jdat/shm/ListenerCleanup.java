package io.jdat.shm;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Removes this process's listening files when the JVM exits without closing them: on SIGINT
 * (Ctrl-C), SIGTERM or {@code System.exit}, the way the kernel frees a TCP port when its process
 * ends. A listener that was never closed would otherwise leave its {@code l-QUAL} file behind until
 * somebody finds it stale. (SIGKILL runs no Java code; that file is swept as stale.) The files
 * whose removal waited for another process's lock ({@link LateRemovals}) go the same way.
 */
final class ListenerCleanup
{
    /** Listening files of this process that are open: created and not yet closed. */
    private static final Set<ListenerFile> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();
    /**
     * The longest the exiting JVM waits for address directories' locks that other processes
     * keep, all of them together: an honest holder keeps a lock for a few file operations.
     */
    static final long EXIT_WAIT_NANOS = 1_000_000_000L;

    private ListenerCleanup()
    {
    }

    /** A listening file was created; the first one registers the shutdown hook. */
    static void opened(final ListenerFile file)
    {
        OPEN.add(file);
        if (HOOKED.compareAndSet(false, true))
        {
            try
            {
                Runtime.getRuntime().addShutdownHook(
                    Thread.ofPlatform().name("jdat-shm-listener-cleanup").unstarted(ListenerCleanup::atExit));
            }
            catch (final IllegalStateException e)
            {
                // the JVM is exiting already: the IA's own close removes the file, else a sweep does
            }
        }
    }

    /**
     * The listening file is being closed (its address directory's lock held); true if it was
     * still open, i.e. nobody closed and removed it before: only then may the caller remove it.
     */
    static boolean closing(final ListenerFile file)
    {
        return OPEN.remove(file);
    }

    /**
     * Closes every listening file still open (no lock needed: the state word is this process's
     * to set, and a closed file is stale to everybody), then removes them and those whose removal
     * waited for a lock ({@link LateRemovals}), each under its directory's lock, waiting for the
     * locks {@link #EXIT_WAIT_NANOS} at most, all together. What another process keeps locked
     * past that stays, marked closed, and goes with the next sweep of its directory.
     */
    private static void atExit()
    {
        final long deadline = System.nanoTime() + EXIT_WAIT_NANOS;
        for (final ListenerFile file : List.copyOf(OPEN))
        {
            try
            {
                if (file.markClosed())
                {
                    LateRemovals.add(file.path);
                }
            }
            catch (final RuntimeException | InternalError e)
            {
                // another process shrank the file: the sweeps find it stale
            }
        }
        try
        {
            LateRemovals.removeBy(deadline);
        }
        catch (final RuntimeException e)
        {
            // a directory went away, or cannot be locked: what is left is the sweeps'
        }
    }
}

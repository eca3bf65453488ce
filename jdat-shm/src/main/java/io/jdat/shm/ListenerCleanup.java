package io.jdat.shm;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Removes this process's listening files when the JVM exits without closing them: on SIGINT
 * (Ctrl-C), SIGTERM or {@code System.exit}, the way the kernel frees a TCP port when its process
 * ends. A listener that was never closed would otherwise leave its {@code l-QUAL} file behind until
 * somebody finds it stale. (SIGKILL runs no Java code; that file is swept as stale.)
 */
final class ListenerCleanup
{
    /** Listening files of this process that are open: created and not yet closed. */
    private static final Set<ListenerFile> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();

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

    /** Closes and removes every listening file still open, each under its directory's lock. */
    private static void atExit()
    {
        for (final ListenerFile file : List.copyOf(OPEN))
        {
            try
            {
                ShmDirectory.locked(file.path.getParent(), () ->
                {
                    if (file.markClosed())
                    {
                        ShmDirectory.delete(file.path);
                    }
                    return null;
                });
            }
            catch (final RuntimeException e)
            {
                // the directory went away: there is nothing left to remove
            }
        }
    }
}

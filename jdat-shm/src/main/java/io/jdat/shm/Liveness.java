package io.jdat.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether the process that wrote a shared file still runs. A file names its owner by process id
 * and start time (milliseconds since the epoch, as {@link ProcessHandle.Info#startInstant()}
 * gives it), so a process id the kernel reused for another process does not count. A zombie (a
 * killed process its parent has not reaped yet) counts as dead: {@link ProcessHandle#isAlive()}
 * reports zombies as alive, so on Linux the state in {@code /proc/PID/stat} is checked as well.
 */
final class Liveness
{
    static final long SELF_PID = ProcessHandle.current().pid();
    static final long SELF_START = startOf(ProcessHandle.current());
    /** Start times of one process read twice may differ by rounding; a reused pid starts later. */
    private static final long START_SLACK_MS = 1000;

    private Liveness()
    {
    }

    private static long startOf(final ProcessHandle h)
    {
        return h.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }

    /** A handle on a live process with this id and start time, or null if it is gone. */
    static ProcessHandle find(final long pid, final long start)
    {
        if (pid <= 0)
        {
            return null;
        }
        final Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive())
        {
            return null;
        }
        final long actual = startOf(h.get());
        if (start != 0 && actual != 0 && Math.abs(actual - start) > START_SLACK_MS)
        {
            return null;
        }
        return zombie(pid) ? null : h.get();
    }

    /** Whether the owner {@code pid}, started at {@code start}, still runs. */
    static boolean alive(final long pid, final long start)
    {
        if (pid == SELF_PID)
        {
            return start == 0 || Math.abs(start - SELF_START) <= START_SLACK_MS;
        }
        return find(pid, start) != null;
    }

    /**
     * Whether a process found by {@link #find} still runs: {@link ProcessHandle#isAlive()} compares
     * the start time it saw, so a reused pid reads as dead.
     */
    static boolean alive(final ProcessHandle h)
    {
        return h.isAlive() && !zombie(h.pid());
    }

    /** Linux: the process exited and waits for its parent to reap it (state Z or X). */
    private static boolean zombie(final long pid)
    {
        final Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try
        {
            final String s = Files.readString(stat);
            // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'
            final int close = s.lastIndexOf(')');
            if (close < 0 || close + 2 >= s.length())
            {
                return false;
            }
            final char state = s.charAt(close + 2);
            return state == 'Z' || state == 'X';
        }
        catch (final NoSuchFileException e)
        {
            return Files.isDirectory(Path.of("/proc", "self"));
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }
}

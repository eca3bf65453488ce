package io.jdat.tools.perf;

import java.lang.management.ManagementFactory;

/**
 * The bytes a thread allocates on the Java heap, from HotSpot's per-thread counter
 * ({@code com.sun.management.ThreadMXBean}): {@code jdat perf --alloc} reads it around each
 * measured loop, so that an allocating post or poll shows as bytes per operation.
 */
final class Allocations
{
    private static final com.sun.management.ThreadMXBean THREADS =
        ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
            && t.isThreadAllocatedMemorySupported() ? t : null;

    private Allocations()
    {
    }

    /** Whether this JVM counts allocated bytes per thread. */
    static boolean supported()
    {
        if (THREADS == null)
        {
            return false;
        }
        if (!THREADS.isThreadAllocatedMemoryEnabled())
        {
            THREADS.setThreadAllocatedMemoryEnabled(true);
        }
        return THREADS.isThreadAllocatedMemoryEnabled();
    }

    /** The bytes the current thread has allocated so far, or -1 where they are not counted. */
    static long ofThisThread()
    {
        return THREADS == null ? -1 : THREADS.getCurrentThreadAllocatedBytes();
    }
}

package io.jdat.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Ordered and atomic access to words of a shared mapped file. Another process sees the same
 * physical memory, so the JVM's release/acquire and compare-and-set on a {@link MemorySegment}
 * order and publish across processes exactly as across threads. Every offset is aligned to the
 * word's size (the mapping itself is page aligned).
 */
final class Shared
{
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private Shared()
    {
    }

    static int getIntAcquire(final MemorySegment s, final long offset)
    {
        return (int) INT.getAcquire(s, offset);
    }

    static void setIntRelease(final MemorySegment s, final long offset, final int value)
    {
        INT.setRelease(s, offset, value);
    }

    static int getIntVolatile(final MemorySegment s, final long offset)
    {
        return (int) INT.getVolatile(s, offset);
    }

    static void setIntVolatile(final MemorySegment s, final long offset, final int value)
    {
        INT.setVolatile(s, offset, value);
    }

    static boolean casInt(final MemorySegment s, final long offset, final int expected, final int value)
    {
        return INT.compareAndSet(s, offset, expected, value);
    }

    static long getLongAcquire(final MemorySegment s, final long offset)
    {
        return (long) LONG.getAcquire(s, offset);
    }

    static void setLongRelease(final MemorySegment s, final long offset, final long value)
    {
        LONG.setRelease(s, offset, value);
    }

    static long getLongVolatile(final MemorySegment s, final long offset)
    {
        return (long) LONG.getVolatile(s, offset);
    }

    static void setLongVolatile(final MemorySegment s, final long offset, final long value)
    {
        LONG.setVolatile(s, offset, value);
    }

    static boolean casLong(final MemorySegment s, final long offset, final long expected, final long value)
    {
        return LONG.compareAndSet(s, offset, expected, value);
    }

    static long getAndAddLong(final MemorySegment s, final long offset, final long delta)
    {
        return (long) LONG.getAndAdd(s, offset, delta);
    }
}

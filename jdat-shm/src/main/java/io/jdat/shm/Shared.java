package io.jdat.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Ordered and atomic access to words of a shared mapped file. Another process sees the same
 * physical memory, so the JVM's release/acquire and compare-and-set on a {@link MemorySegment}
 * order and publish across processes exactly as across threads. Every offset is aligned to the
 * word's size (the mapping itself is page aligned).
 *
 * <p>A peer can shrink a file both sides map; an access beyond the new end then faults (SIGBUS).
 * HotSpot turns the fault of a load or store into an {@code InternalError}, which the channel
 * catches and breaks the connection for. Not so an atomic read-modify-write while its method is
 * still interpreted: the VM runs it in C++ with no such guard, and the fault kills the process.
 * So each one here first reads its word with an ordinary (guarded) load, which faults safely if
 * the file already shrank. A peer that shrinks the file between that load and the atomic, a window
 * of a few instructions on cold paths (connection state, the gone words, the listener's slots, a
 * ring's withdrawal), can still crash this process: {@code docs/reliability.md} says so.
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
        probe(s, offset);
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
        probe(s, offset);
        return LONG.compareAndSet(s, offset, expected, value);
    }

    static long getAndAddLong(final MemorySegment s, final long offset, final long delta)
    {
        probe(s, offset);
        return (long) LONG.getAndAdd(s, offset, delta);
    }

    /** A load of the word an atomic is about to change: faults safely where the file shrank. */
    private static void probe(final MemorySegment s, final long offset)
    {
        INT.getOpaque(s, offset);
    }
}

package io.jdat.tcp.channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A byte pattern that differs per seed and position, to fill memory with and check it against. */
final class Bytes
{
    private Bytes()
    {
    }

    static byte at(final long i, final int seed)
    {
        return (byte) (i * 31 + seed * 17 + (i >>> 8));
    }

    static void fill(final MemorySegment m, final long offset, final long length, final int seed)
    {
        for (long i = 0; i < length; i++)
        {
            m.set(ValueLayout.JAVA_BYTE, offset + i, at(i, seed));
        }
    }

    /** The first index where the pattern differs, or -1. */
    static long mismatch(final MemorySegment m, final long offset, final long length, final int seed)
    {
        for (long i = 0; i < length; i++)
        {
            if (m.get(ValueLayout.JAVA_BYTE, offset + i) != at(i, seed))
            {
                return i;
            }
        }
        return -1;
    }

    /** Whether every byte of the range still holds {@code value}. */
    static boolean all(final MemorySegment m, final long offset, final long length, final byte value)
    {
        for (long i = 0; i < length; i++)
        {
            if (m.get(ValueLayout.JAVA_BYTE, offset + i) != value)
            {
                return false;
            }
        }
        return true;
    }
}

package io.jdat.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A byte pattern that differs per seed and position, to fill memory with before a transfer and
 * check the other side against after it.
 */
public final class BytePattern
{
    private BytePattern()
    {
    }

    /** The byte at index {@code i} of the pattern {@code seed}. */
    public static byte at(final long i, final long seed)
    {
        return (byte) (i * 31 + seed * 17 + (i >>> 8));
    }

    /** Fills {@code length} bytes of {@code m} from {@code offset} with the pattern {@code seed}. */
    public static void fill(final MemorySegment m, final long offset, final long length, final long seed)
    {
        for (long i = 0; i < length; i++)
        {
            m.set(ValueLayout.JAVA_BYTE, offset + i, at(i, seed));
        }
    }

    /** The first index where the bytes differ from the pattern {@code seed}, or -1. */
    public static long mismatch(final MemorySegment m, final long offset, final long length, final long seed)
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
    public static boolean all(final MemorySegment m, final long offset, final long length, final byte value)
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

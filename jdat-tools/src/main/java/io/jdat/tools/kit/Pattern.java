package io.jdat.tools.kit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Test data: every byte of a buffer is a function of a seed and the byte's index, so a receiver
 * that knows the seed checks every byte it got, and a stale or misplaced buffer differs.
 */
public final class Pattern
{
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Pattern()
    {
    }

    /** The 8 pattern bytes of word {@code w} (bytes {@code 8w … 8w+7}), little-endian. */
    private static long word(final long seed, final long w)
    {
        long z = seed * 0x9E3779B97F4A7C15L + w * 0xBF58476D1CE4E5B9L + 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The pattern byte at {@code index} for {@code seed}. */
    public static byte expected(final long seed, final long index)
    {
        return (byte) (word(seed, index >>> 3) >>> ((index & 7) * 8));
    }

    /** Fills {@code [offset, offset + length)} of {@code seg} with the pattern of {@code seed}. */
    public static void fill(final MemorySegment seg, final long offset, final long length, final long seed)
    {
        final long words = length >>> 3;
        for (long w = 0; w < words; w++)
        {
            seg.set(WORD, offset + (w << 3), word(seed, w));
        }
        for (long i = words << 3; i < length; i++)
        {
            seg.set(ValueLayout.JAVA_BYTE, offset + i, expected(seed, i));
        }
    }

    /**
     * The index of the first byte of {@code [offset, offset + length)} that differs from the
     * pattern of {@code seed}, or -1 when all match.
     */
    public static long mismatch(final MemorySegment seg, final long offset, final long length, final long seed)
    {
        final long words = length >>> 3;
        for (long w = 0; w < words; w++)
        {
            final long have = seg.get(WORD, offset + (w << 3));
            final long want = word(seed, w);
            if (have != want)
            {
                return (w << 3) + (Long.numberOfTrailingZeros(have ^ want) >>> 3);
            }
        }
        for (long i = words << 3; i < length; i++)
        {
            if (seg.get(ValueLayout.JAVA_BYTE, offset + i) != expected(seed, i))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Checks a buffer against the pattern; throws {@link CheckFailed} naming {@code what} and the
     * first differing byte.
     */
    public static void verify(final MemorySegment seg, final long offset, final long length, final long seed,
        final String what)
    {
        final long at = mismatch(seg, offset, length, seed);
        if (at >= 0)
        {
            throw new CheckFailed(String.format("%s: data differs at byte %d of %d: got 0x%02x, expected 0x%02x",
                what, at, length, seg.get(ValueLayout.JAVA_BYTE, offset + at) & 0xFF, expected(seed, at) & 0xFF));
        }
    }

    /**
     * Flips every bit of one byte in the middle of {@code [offset, offset + length)}: the
     * test-only fault that a tool's own validation must catch.
     */
    public static void corrupt(final MemorySegment seg, final long offset, final long length)
    {
        if (length > 0)
        {
            final long at = offset + length / 2;
            seg.set(ValueLayout.JAVA_BYTE, at, (byte) ~seg.get(ValueLayout.JAVA_BYTE, at));
        }
    }
}

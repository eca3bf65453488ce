package io.jdat.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The memory a fuzz target's hostile peer aims at, one registered LMR holding two regions between
 * guard pages: guard | A (remote rights, may change) | guard | B (no remote rights) | guard. The
 * target fills it before each input and checks afterwards that no byte outside region A changed:
 * whatever the peer sent, {@code dat_rmr_bind}'s rights held.
 */
public final class GuardedRegions
{
    public static final int GUARD = 4096;
    public static final byte GUARD_BYTE = (byte) 0xA5;
    public static final byte B_BYTE = (byte) 0x3C;

    private GuardedRegions()
    {
    }

    /** The bytes the layout takes for regions of {@code aSize} and {@code bSize}. */
    public static int size(final int aSize, final int bSize)
    {
        return GUARD + aSize + GUARD + bSize + GUARD;
    }

    /** Where region B starts. */
    public static int bAt(final int aSize)
    {
        return GUARD + aSize + GUARD;
    }

    /** Fills the guards and region B; region A is the caller's to fill. */
    public static void fillAllButA(final MemorySegment memory, final int aSize, final int bSize)
    {
        final int bAt = bAt(aSize);
        memory.asSlice(0, GUARD).fill(GUARD_BYTE);
        memory.asSlice(GUARD + aSize, GUARD).fill(GUARD_BYTE);
        memory.asSlice(bAt, bSize).fill(B_BYTE);
        memory.asSlice(bAt + bSize, GUARD).fill(GUARD_BYTE);
    }

    /** Region A may have changed; nothing else may have. */
    public static void checkAllButA(final MemorySegment memory, final int aSize, final int bSize)
    {
        final int bAt = bAt(aSize);
        assertUnchanged(memory, 0, GUARD, GUARD_BYTE, "below region A");
        assertUnchanged(memory, GUARD + aSize, GUARD, GUARD_BYTE, "between regions A and B");
        assertUnchanged(memory, bAt, bSize, B_BYTE, "region B (no remote rights)");
        assertUnchanged(memory, bAt + bSize, GUARD, GUARD_BYTE, "above region B");
    }

    private static void assertUnchanged(final MemorySegment memory, final long at, final long length,
        final byte value, final String where)
    {
        for (long i = 0; i < length; i++)
        {
            if (memory.get(ValueLayout.JAVA_BYTE, at + i) != value)
            {
                throw new AssertionError("a byte " + where + " changed, at offset " + i);
            }
        }
    }
}

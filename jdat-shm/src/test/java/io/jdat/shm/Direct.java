package io.jdat.shm;

import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.testkit.BytePattern;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The memory of the direct placement tests, the same on both sides: one shared memory
 * ({@link ShmMemory}) and one ordinary memory of {@link #MEMORY} bytes each, of which only
 * {@code [REGION_AT, REGION_AT + REGION)} is registered; every other byte keeps {@link #GUARD}.
 * <pre>
 *   region offset   client                           server
 *   SLOT_A          Write source (shared: direct)    Write target of the client's shared source
 *   SLOT_B          -                                Write target of the client's ordinary source
 *   SINK_SHARED     Read sink of the server's shared source
 *   SINK_ORDINARY   Read sink of the server's ordinary source
 *   SOURCE          -                                Read source
 * </pre>
 * Each range holds {@link #LENGTH} bytes of a pattern named by where the bytes came from.
 */
final class Direct
{
    static final int MEMORY = 5 << 20;
    static final int REGION_AT = 1 << 20;
    static final int REGION = 3 << 20;
    static final int LENGTH = 700_001;
    static final int SLOT_A = 100;
    static final int SLOT_B = (1 << 20) + 100;
    static final int SINK_SHARED = 100 + (1 << 20);
    static final int SINK_ORDINARY = 100 + (2 << 20);
    static final int SOURCE = (2 << 20) + 100;
    static final byte GUARD = 0x5A;

    /** Pattern seeds: the client's shared and ordinary Write sources, the server's shared and ordinary Read sources. */
    static final int CLIENT_SHARED = 1;
    static final int CLIENT_ORDINARY = 2;
    static final int SERVER_SHARED = 3;
    static final int SERVER_ORDINARY = 4;

    final ShmMemory shared;
    final MemorySegment ordinary;
    final Lmr sharedLmr;
    final Lmr ordinaryLmr;

    /**
     * Allocates both memories under the provider directory {@code dir}, guard bytes only, and registers the regions.
     */
    Direct(final ShmNode node, final java.nio.file.Path dir)
    {
        shared = ShmMemory.allocate(dir, MEMORY);
        ordinary = node.memory(MEMORY);
        shared.memory().fill(GUARD);
        ordinary.fill(GUARD);
        sharedLmr = node.ia.lmrCreate(MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(
            shared.memory().asSlice(REGION_AT, REGION), shared.cookie()), REGION, node.pz, MemPriv.ALL_FLAG);
        ordinaryLmr = node.lmr(ordinary.asSlice(REGION_AT, REGION), MemPriv.ALL_FLAG);
    }

    /** What the server's accept carries: both LMRs' rmr_context and registered address. */
    byte[] acceptData()
    {
        return ByteBuffer.allocate(24).putInt(sharedLmr.rmrContext()).putLong(sharedLmr.registeredAddress())
            .putInt(ordinaryLmr.rmrContext()).putLong(ordinaryLmr.registeredAddress()).array();
    }

    static void fill(final MemorySegment memory, final int regionOffset, final int seed)
    {
        BytePattern.fill(memory, REGION_AT + regionOffset, LENGTH, seed);
    }

    /**
     * Checks a whole memory: each {@code (regionOffset, seed)} pair's range holds its pattern,
     * every other byte the guard. Returns what is wrong, or null.
     */
    static String check(final String name, final MemorySegment memory, final int... rangesAndSeeds)
    {
        long at = 0;
        for (int i = 0; i < rangesAndSeeds.length; i += 2)
        {
            final long start = REGION_AT + rangesAndSeeds[i];
            final String guard = guard(name, memory, at, start);
            if (guard != null)
            {
                return guard;
            }
            final long bad = BytePattern.mismatch(memory, start, LENGTH, rangesAndSeeds[i + 1]);
            if (bad >= 0)
            {
                return name + ": byte " + bad + " of the range at region offset " + rangesAndSeeds[i]
                    + " is not pattern " + rangesAndSeeds[i + 1];
            }
            at = start + LENGTH;
        }
        return guard(name, memory, at, MEMORY);
    }

    private static String guard(final String name, final MemorySegment memory, final long from, final long to)
    {
        for (long i = from; i < to; i++)
        {
            if (memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != GUARD)
            {
                return name + ": byte " + i + " (region offset " + (i - REGION_AT) + ") changed";
            }
        }
        return null;
    }

    void close()
    {
        sharedLmr.free();
        ordinaryLmr.free();
        shared.close();
    }
}

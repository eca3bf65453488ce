package io.jdat;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@code DAT_REGION_DESCRIPTION}: what {@code dat_lmr_create} registers, one variant per
 * memory type. In Java the consumer's memory is a {@link MemorySegment}; its
 * {@link MemorySegment#address() address} is the virtual address that triplets use.
 */
public sealed interface RegionDescription
{
    /** {@code for_va}, for {@link MemType#VIRTUAL}: registers the start of {@code memory}. */
    static RegionDescription forVa(final MemorySegment memory)
    {
        return new Va(memory);
    }

    /** {@code for_lmr_handle}, for {@link MemType#LMR}: the memory of an existing LMR. */
    static RegionDescription forLmr(final Lmr lmr)
    {
        return new OfLmr(lmr);
    }

    /**
     * {@code for_shared_memory}, for {@link MemType#SHARED_VIRTUAL}: shared memory mapped by
     * this process, named by a cookie of exactly {@link Dat#LMR_COOKIE_SIZE} bytes that every
     * process sharing it uses (compared byte for byte, not as a string).
     */
    static RegionDescription forSharedMemory(final MemorySegment memory, final byte[] sharedMemoryId)
    {
        return new Shared(memory, sharedMemoryId == null ? null : sharedMemoryId.clone());
    }

    /** Consumer memory given by its start; the length is {@code dat_lmr_create}'s argument. */
    record Va(MemorySegment memory) implements RegionDescription
    {
    }

    /** An existing LMR. */
    record OfLmr(Lmr lmr) implements RegionDescription
    {
    }

    /** Shared memory and its 40-byte cookie. */
    record Shared(MemorySegment memory, byte[] sharedMemoryId) implements RegionDescription
    {
        @Override
        public boolean equals(final Object o)
        {
            return o instanceof Shared s && Objects.equals(memory, s.memory)
                && Arrays.equals(sharedMemoryId, s.sharedMemoryId);
        }

        @Override
        public int hashCode()
        {
            return Objects.hashCode(memory) * 31 + Arrays.hashCode(sharedMemoryId);
        }

        @Override
        public String toString()
        {
            return "Shared[" + memory + ", cookie=" + Arrays.toString(sharedMemoryId) + "]";
        }
    }
}

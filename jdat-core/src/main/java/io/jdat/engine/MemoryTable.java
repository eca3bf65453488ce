package io.jdat.engine;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The STag table of one IA instance: LMR and bound RMR regions by their 32-bit context.
 * <pre>
 *   31                                   8 7          0
 *  +--------------------------------------+------------+
 *  |             table index              |    key     |
 *  +--------------------------------------+------------+
 * </pre>
 * Each reuse of an index takes the next key, so a context handed out before a free or a rebind
 * never names the new region. Index 0 is never used, so no context is 0. Lookups take no lock.
 */
final class MemoryTable
{
    private static final int MAX_INDEX = (1 << 24) - 1;

    private volatile AtomicReferenceArray<MemoryRegion> slots = new AtomicReferenceArray<>(64);
    private int[] keys = new int[64];
    private int[] freeList = new int[64];
    private int freeCount;
    private int nextIndex = 1;

    /** Reserves an index for a new region; returns its first STag. -1 if the table is full. */
    synchronized int reserve()
    {
        final int index;
        if (freeCount > 0)
        {
            index = freeList[--freeCount];
        }
        else
        {
            if (nextIndex > MAX_INDEX)
            {
                return -1;
            }
            index = nextIndex++;
            if (index >= slots.length())
            {
                grow();
            }
        }
        return stagOf(index);
    }

    /** A fresh STag for the same index as {@code stag} (a rebind). */
    synchronized int rekey(final int stag)
    {
        return stagOf(stag >>> 8);
    }

    private int stagOf(final int index)
    {
        keys[index] = (keys[index] + 1) & 0xFF;
        return index << 8 | keys[index];
    }

    private void grow()
    {
        final AtomicReferenceArray<MemoryRegion> old = slots;
        final AtomicReferenceArray<MemoryRegion> bigger = new AtomicReferenceArray<>(old.length() * 2);
        for (int i = 0; i < old.length(); i++)
        {
            bigger.set(i, old.get(i));
        }
        keys = java.util.Arrays.copyOf(keys, old.length() * 2);
        freeList = java.util.Arrays.copyOf(freeList, old.length() * 2);
        slots = bigger;
    }

    /** Publishes a region under its STag (whose index was reserved). */
    synchronized void publish(final MemoryRegion region)
    {
        slots.set(region.stag >>> 8, region);
    }

    /** Takes a region out of the table (the index stays reserved, for a rebind). */
    synchronized void unpublish(final MemoryRegion region)
    {
        region.valid = false;
        final int index = region.stag >>> 8;
        if (slots.get(index) == region)
        {
            slots.set(index, null);
        }
    }

    /** Releases an index for reuse. */
    synchronized void release(final int stag)
    {
        final int index = stag >>> 8;
        final MemoryRegion r = slots.get(index);
        if (r != null)
        {
            r.valid = false;
            slots.set(index, null);
        }
        freeList[freeCount++] = index;
    }

    /** The valid region with exactly this STag, or null. */
    MemoryRegion lookup(final int stag)
    {
        final int index = stag >>> 8;
        final AtomicReferenceArray<MemoryRegion> s = slots;
        if (index == 0 || index >= s.length())
        {
            return null;
        }
        final MemoryRegion r = s.get(index);
        return r != null && r.stag == stag && r.valid ? r : null;
    }

    /** Invalidates every region (IA close). */
    synchronized void clear()
    {
        final AtomicReferenceArray<MemoryRegion> s = slots;
        for (int i = 0; i < s.length(); i++)
        {
            final MemoryRegion r = s.get(i);
            if (r != null)
            {
                r.valid = false;
                s.set(i, null);
            }
        }
    }
}

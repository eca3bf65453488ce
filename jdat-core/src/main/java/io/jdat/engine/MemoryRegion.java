package io.jdat.engine;

import java.lang.foreign.MemorySegment;

/**
 * A range of registered memory as the STag table knows it: an LMR, or an RMR while it is bound.
 * Immutable except for {@link #valid}: a rebind or a free makes a new region or invalidates
 * this one, so a reader that found it can check it is still good without a lock.
 */
final class MemoryRegion
{
    /** The STag: a 24-bit table index and an 8-bit key, never 0. */
    final int stag;
    final PzImpl pz;
    /** The registered memory, {@code length} bytes. */
    final MemorySegment memory;
    /** The virtual address of the first byte. */
    final long base;
    final long length;
    /** {@link io.jdat.MemPriv} bits. */
    final int privileges;
    /** True for a memory window (RMR): remote access only, never in a local triplet. */
    final boolean window;
    /** The LMR whose memory this is. */
    final LmrImpl lmr;
    volatile boolean valid = true;

    MemoryRegion(final int stag, final PzImpl pz, final MemorySegment memory, final long base, final long length,
        final int privileges, final boolean window, final LmrImpl lmr)
    {
        this.stag = stag;
        this.pz = pz;
        this.memory = memory;
        this.base = base;
        this.length = length;
        this.privileges = privileges;
        this.window = window;
        this.lmr = lmr;
    }

    /**
     * The offset of {@code [va, va + len)} inside this region, or -1 if any byte lies outside
     * (including an address range that wraps).
     */
    long offsetOf(final long va, final long len)
    {
        if (len < 0)
        {
            return -1;
        }
        final long off = va - base;
        // unsigned comparisons: va below base or past the end both show up as large offsets
        if (Long.compareUnsigned(off, length) > 0 || Long.compareUnsigned(len, length - off) > 0)
        {
            return -1;
        }
        return off;
    }

    boolean has(final int privilege)
    {
        return (privileges & privilege) == privilege;
    }
}

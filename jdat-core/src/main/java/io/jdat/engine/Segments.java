package io.jdat.engine;

import io.jdat.DatReturnSubtype;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import java.lang.foreign.MemorySegment;

/**
 * A validated copy of a consumer's {@link LmrTriplet} array: for each non-empty segment, the
 * region it lies in, its offset there and its length. Preallocated per work request and
 * refilled on every post.
 *
 * <p>A slot keeps the regions of its last post after {@link #clear}: a consumer reposts the same
 * buffers into the same slots, and a triplet that names the region already at its position is
 * taken without a look into the STag table. That region is exactly what the table would return:
 * its STag equals the triplet's context and it is still {@link MemoryRegion#valid} ({@code
 * dat_lmr_free} and IA close clear that word before the table lets the region go, and nothing
 * sets it again), and its zone, rights and bounds are checked on every post as before. The price:
 * an idle slot keeps the object of a freed LMR reachable until its next post or its endpoint's
 * free; the memory is no longer accessible through it.
 *
 * <p>The first segment lives in this object's own fields, the others in arrays (none for a list of
 * one): a receive of one segment is one object, so the placer on another core reads the lines of
 * the receive slot ({@link RecvBuffer} extends this) and nothing else. Read the list with
 * {@link #region}, {@link #offset} and {@link #length}.
 */
class Segments
{
    private MemoryRegion region0;
    private long offset0;
    private long length0;
    /** Segments 1 and up; null when the list holds at most one. */
    private final MemoryRegion[] regions;
    private final long[] offsets;
    private final long[] lengths;
    int count;
    long total;

    Segments(final int capacity)
    {
        final int more = Math.max(1, capacity) - 1;
        regions = more == 0 ? null : new MemoryRegion[more];
        offsets = more == 0 ? null : new long[more];
        lengths = more == 0 ? null : new long[more];
    }

    /** How many segments this list can hold. */
    final int capacity()
    {
        return regions == null ? 1 : regions.length + 1;
    }

    /** The region of segment {@code i < count}. */
    final MemoryRegion region(final int i)
    {
        return i == 0 ? region0 : regions[i - 1];
    }

    /** The offset of segment {@code i < count} in its region. */
    final long offset(final int i)
    {
        return i == 0 ? offset0 : offsets[i - 1];
    }

    /** The length of segment {@code i < count}. */
    final long length(final int i)
    {
        return i == 0 ? length0 : lengths[i - 1];
    }

    private void set(final int i, final MemoryRegion r, final long off, final long len)
    {
        if (i == 0)
        {
            if (region0 != r)
            {
                // a reference store into this long-lived object costs a card-marking barrier
                region0 = r;
            }
            // only where they change: a receive slot's lines were last read by the placer on
            // another core, and storing the value already there would take them back from it
            if (offset0 != off)
            {
                offset0 = off;
            }
            if (length0 != len)
            {
                length0 = len;
            }
        }
        else
        {
            if (regions[i - 1] != r)
            {
                regions[i - 1] = r;
            }
            offsets[i - 1] = off;
            lengths[i - 1] = len;
        }
    }

    /** Takes {@code from}'s segments (at most this list's capacity). */
    final void copyFrom(final Segments from)
    {
        for (int i = 0; i < from.count; i++)
        {
            set(i, from.region(i), from.offset(i), from.length(i));
        }
        count = from.count;
        total = from.total;
    }

    /**
     * Validates {@code iov[0..n)} against the IA's STag table and copies it.
     *
     * @param maxIov    segments allowed for this kind of post
     * @param pz        the protection zone every LMR must be in
     * @param needWrite whether the DTO writes local memory (receive, RDMA Read sink), else reads it
     * @param iovArg    the argument number of the iov, for error subtypes
     */
    final void fill(final MemoryTable table, final int n, final LmrTriplet[] iov, final int maxIov, final PzImpl pz,
        final boolean needWrite, final int iovArg)
    {
        // counted in locals and stored once, where they change (see set); a list that fails
        // validation keeps its old count and total over overwritten segments: a receive's caller
        // clears it, and a request's slot and the scratch lists were empty (count 0) before
        int c = 0;
        long tot = 0;
        if (n < 0 || n > maxIov)
        {
            throw Errors.invalidParameter(iovArg - 1, "num_segments " + n + " is outside 0.." + maxIov);
        }
        if (n > 0 && (iov == null || iov.length < n))
        {
            throw Errors.invalidParameter(iovArg, "local_iov holds fewer than num_segments triplets");
        }
        for (int i = 0; i < n; i++)
        {
            final LmrTriplet t = iov[i];
            if (t == null)
            {
                throw Errors.invalidParameter(iovArg, "local_iov[" + i + "] is null");
            }
            // each field read once: what was checked is what is used, whatever another thread stores
            final long len = t.segmentLength;
            if (len == 0)
            {
                // a zero-length segment's context and address are not looked at
                continue;
            }
            final long va = t.virtualAddress;
            final MemoryRegion r = validate(table, region(c), t.lmrContext, va, len, i, pz, needWrite, iovArg);
            if (tot + len < 0)
            {
                throw Errors.invalidParameter(iovArg, "local_iov adds up to more than 2^63 bytes");
            }
            set(c, r, va - r.base, len);
            c++;
            tot += len;
        }
        if (count != c)
        {
            count = c;
        }
        if (total != tot)
        {
            total = tot;
        }
    }

    /**
     * A list of one non-empty segment ({@code va}, {@code len}, read once from the triplet)
     * validated as {@link #fill} would, for a message placed within its post: returns the region,
     * where the segment starts at {@code va - base}. Nothing of the list changes but the first
     * guess (see above), and only when it changes: the count stays 0, as in an empty slot.
     */
    final MemoryRegion one(final MemoryTable table, final int lmrContext, final long va, final long len,
        final PzImpl pz, final boolean needWrite, final int iovArg)
    {
        final MemoryRegion r = validate(table, region0, lmrContext, va, len, 0, pz, needWrite, iovArg);
        if (region0 != r)
        {
            region0 = r;
        }
        return r;
    }

    /**
     * The region of a non-empty segment (triplet {@code i} of its list), checked for the IA, the
     * zone, the rights and the bounds, or the DAT error: {@code guess} is taken without a look
     * into the table when it is still what the table would return (see above).
     */
    private static MemoryRegion validate(final MemoryTable table, final MemoryRegion guess, final int lmrContext,
        final long va, final long len, final int i, final PzImpl pz, final boolean needWrite, final int iovArg)
    {
        final MemoryRegion r = guess != null && guess.stag == lmrContext && guess.valid ? guess
            : table.lookup(lmrContext);
        if (r == null || r.window)
        {
            throw Errors.privileges(
                needWrite ? DatReturnSubtype.PRIVILEGES_WRITE : DatReturnSubtype.PRIVILEGES_READ,
                String.format("local_iov[%d]: lmr_context 0x%08x names no LMR of this IA", i, lmrContext));
        }
        if (r.pz != pz)
        {
            throw Errors.protection(
                needWrite ? DatReturnSubtype.PROTECTION_WRITE : DatReturnSubtype.PROTECTION_READ,
                "local_iov[" + i + "]: the LMR is in another protection zone");
        }
        // a sink needs local write, a source local read (dat_ep_post_send's page); LOCAL_WRITE
        // does not imply LOCAL_READ, as DAT's own WRITE_FLAG (0x30) holds no read bit
        if (needWrite && !r.has(MemPriv.LOCAL_WRITE_FLAG))
        {
            throw Errors.privileges(DatReturnSubtype.PRIVILEGES_WRITE,
                "local_iov[" + i + "]: the LMR lacks DAT_MEM_PRIV_LOCAL_WRITE_FLAG");
        }
        if (!needWrite && !r.has(MemPriv.LOCAL_READ_FLAG))
        {
            throw Errors.privileges(DatReturnSubtype.PRIVILEGES_READ,
                "local_iov[" + i + "]: the LMR lacks DAT_MEM_PRIV_LOCAL_READ_FLAG");
        }
        if (r.offsetOf(va, len) < 0)
        {
            throw Errors.invalidParameter(iovArg, "local_iov[" + i + "] lies outside its LMR");
        }
        return r;
    }

    /** Empties the list; the regions stay as the next post's first guess (see above). */
    final void clear()
    {
        count = 0;
        total = 0;
    }

    /**
     * Copies {@code len} bytes of {@code src} at {@code srcOff} into these segments starting at
     * byte {@code at} of the list. Returns false if a target region is no longer valid.
     */
    final boolean scatter(final long at, final MemorySegment src, final long srcOff, final long len)
    {
        long skip = at;
        long done = 0;
        for (int i = 0; i < count && done < len; i++)
        {
            final long segLen = length(i);
            if (skip >= segLen)
            {
                skip -= segLen;
                continue;
            }
            final MemoryRegion r = region(i);
            if (!r.valid)
            {
                return false;
            }
            final long n = Math.min(segLen - skip, len - done);
            MemorySegment.copy(src, srcOff + done, r.memory, offset(i) + skip, n);
            done += n;
            skip = 0;
        }
        return done == len;
    }
}

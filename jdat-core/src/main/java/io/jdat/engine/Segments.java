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
 */
final class Segments
{
    final MemoryRegion[] regions;
    final long[] offsets;
    final long[] lengths;
    int count;
    long total;

    Segments(final int capacity)
    {
        regions = new MemoryRegion[Math.max(1, capacity)];
        offsets = new long[regions.length];
        lengths = new long[regions.length];
    }

    /**
     * Validates {@code iov[0..n)} against the IA's STag table and copies it.
     *
     * @param maxIov    segments allowed for this kind of post
     * @param pz        the protection zone every LMR must be in
     * @param needWrite whether the DTO writes local memory (receive, RDMA Read sink), else reads it
     * @param iovArg    the argument number of the iov, for error subtypes
     */
    void fill(final MemoryTable table, final int n, final LmrTriplet[] iov, final int maxIov, final PzImpl pz,
        final boolean needWrite, final int iovArg)
    {
        count = 0;
        total = 0;
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
            if (t.segmentLength == 0)
            {
                // a zero-length segment's context and address are not looked at
                continue;
            }
            final MemoryRegion last = regions[count];
            final MemoryRegion r = last != null && last.stag == t.lmrContext && last.valid ? last
                : table.lookup(t.lmrContext);
            if (r == null || r.window)
            {
                throw Errors.privileges(
                    needWrite ? DatReturnSubtype.PRIVILEGES_WRITE : DatReturnSubtype.PRIVILEGES_READ,
                    String.format("local_iov[%d]: lmr_context 0x%08x names no LMR of this IA", i, t.lmrContext));
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
            final long off = r.offsetOf(t.virtualAddress, t.segmentLength);
            if (off < 0)
            {
                throw Errors.invalidParameter(iovArg, "local_iov[" + i + "] lies outside its LMR");
            }
            if (total + t.segmentLength < 0)
            {
                throw Errors.invalidParameter(iovArg, "local_iov adds up to more than 2^63 bytes");
            }
            if (r != last)
            {
                // a reference store into this long-lived array costs a card-marking barrier
                regions[count] = r;
            }
            offsets[count] = off;
            lengths[count] = t.segmentLength;
            count++;
            total += t.segmentLength;
        }
    }

    /** Empties the list; the regions stay as the next post's first guess (see above). */
    void clear()
    {
        count = 0;
        total = 0;
    }

    /**
     * Copies {@code len} bytes of {@code src} at {@code srcOff} into these segments starting at
     * byte {@code at} of the list. Returns false if a target region is no longer valid.
     */
    boolean scatter(final long at, final MemorySegment src, final long srcOff, final long len)
    {
        long skip = at;
        long done = 0;
        for (int i = 0; i < count && done < len; i++)
        {
            final long segLen = lengths[i];
            if (skip >= segLen)
            {
                skip -= segLen;
                continue;
            }
            final MemoryRegion r = regions[i];
            if (!r.valid)
            {
                return false;
            }
            final long n = Math.min(segLen - skip, len - done);
            MemorySegment.copy(src, srcOff + done, r.memory, offsets[i] + skip, n);
            done += n;
            skip = 0;
        }
        return done == len;
    }
}

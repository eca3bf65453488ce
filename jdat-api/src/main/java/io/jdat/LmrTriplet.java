package io.jdat;

/**
 * {@code DAT_LMR_TRIPLET}: one local buffer segment of {@code dat_ep_post_send},
 * {@code dat_ep_post_recv} or an RDMA post,
 * {@code [virtualAddress, virtualAddress + segmentLength)} inside the LMR named by
 * {@code lmrContext}. The virtual address is in the LMR's address space:
 * {@link Lmr#registeredAddress()} plus an offset. A triplet with {@code segmentLength == 0} is
 * legal and its context and address are not looked at.
 *
 * <p>Mutable so that one array of triplets can be reused for every post; jdat copies the
 * triplets when a post is accepted, so the array (not the memory) is the consumer's again as
 * soon as the call returns.
 */
public final class LmrTriplet
{
    public int lmrContext;
    public long virtualAddress;
    public long segmentLength;

    public LmrTriplet()
    {
    }

    public LmrTriplet(final int lmrContext, final long virtualAddress, final long segmentLength)
    {
        this.lmrContext = lmrContext;
        this.virtualAddress = virtualAddress;
        this.segmentLength = segmentLength;
    }

    /** The segment {@code [offset, offset + length)} of an LMR. */
    public static LmrTriplet of(final Lmr lmr, final long offset, final long length)
    {
        return new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() + offset, length);
    }

    /** Sets all three fields; returns this triplet. */
    public LmrTriplet set(final int lmrContext, final long virtualAddress, final long segmentLength)
    {
        this.lmrContext = lmrContext;
        this.virtualAddress = virtualAddress;
        this.segmentLength = segmentLength;
        return this;
    }

    /** Points this triplet at {@code [offset, offset + length)} of an LMR; returns this triplet. */
    public LmrTriplet set(final Lmr lmr, final long offset, final long length)
    {
        return set(lmr.lmrContext(), lmr.registeredAddress() + offset, length);
    }

    @Override
    public String toString()
    {
        return String.format("LmrTriplet[ctx=0x%08x va=0x%x len=%d]", lmrContext, virtualAddress, segmentLength);
    }
}

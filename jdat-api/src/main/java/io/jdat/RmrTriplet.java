package io.jdat;

/**
 * {@code DAT_RMR_TRIPLET}: a remote buffer as its owner advertised it, the target of
 * {@code dat_ep_post_rdma_read} and {@code dat_ep_post_rdma_write}: the remote key
 * ({@code rmr_context}, the iWARP STag), the target address in the owner's address space, and the
 * length.
 */
public final class RmrTriplet
{
    public int rmrContext;
    public long targetAddress;
    public long segmentLength;

    public RmrTriplet()
    {
    }

    public RmrTriplet(final int rmrContext, final long targetAddress, final long segmentLength)
    {
        this.rmrContext = rmrContext;
        this.targetAddress = targetAddress;
        this.segmentLength = segmentLength;
    }

    /** Sets all three fields; returns this triplet. */
    public RmrTriplet set(final int rmrContext, final long targetAddress, final long segmentLength)
    {
        this.rmrContext = rmrContext;
        this.targetAddress = targetAddress;
        this.segmentLength = segmentLength;
        return this;
    }

    @Override
    public String toString()
    {
        return String.format("RmrTriplet[ctx=0x%08x addr=0x%x len=%d]", rmrContext, targetAddress, segmentLength);
    }
}

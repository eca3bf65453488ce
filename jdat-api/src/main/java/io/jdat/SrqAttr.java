package io.jdat;

/**
 * {@code DAT_SRQ_ATTR}: the requested size of a shared receive queue, given to
 * {@code dat_srq_create}.
 */
public final class SrqAttr
{
    public int maxRecvDtos;
    public int maxRecvIov;
    /** Must be {@link Dat#SRQ_LW_DEFAULT} at creation; arm it later with {@code dat_srq_set_lw}. */
    public int lowWatermark = Dat.SRQ_LW_DEFAULT;

    public SrqAttr()
    {
    }

    public SrqAttr(final int maxRecvDtos, final int maxRecvIov)
    {
        this.maxRecvDtos = maxRecvDtos;
        this.maxRecvIov = maxRecvIov;
    }
}

package io.jdat;

/**
 * A reserved service point ({@code DAT_RSP_HANDLE}) made by {@code dat_rsp_create}: a one-shot
 * listener bound to one endpoint ({@code dat_rsp_query}, {@code dat_rsp_free}).
 */
public non-sealed interface ReservedServicePoint extends ServicePoint
{
    /** {@code dat_rsp_free}: the endpoint returns to {@link EpState#UNCONNECTED} if no request came. */
    void free();

    /** {@code dat_rsp_query}. */
    void query(long rspParamMask, RspParam param);
}

package io.jdat;

/**
 * The {@code reason} of an asynchronous error that {@code dat_evd_wait} or {@code dat_evd_dequeue}
 * returns, per kind of affected object ({@code DAT_IA_ASYNC_ERROR_REASON},
 * {@code DAT_EP_ASYNC_ERROR_REASON}, …).
 */
public final class AsyncErrorReason
{
    public static final int IA_CATASTROPHIC_ERROR = 0;
    public static final int IA_OTHER_ERROR = 1;

    public static final int EP_TRANSFER_TO_ERROR = 0;
    public static final int EP_OTHER_ERROR = 1;
    public static final int SRQ_SOFT_HIGH_WATERMARK_EVENT = 2;

    public static final int EVD_OVERFLOW_ERROR = 0;
    public static final int EVD_OTHER_ERROR = 1;

    public static final int SRQ_TRANSFER_TO_ERROR = 0;
    public static final int SRQ_OTHER_ERROR = 1;
    public static final int SRQ_LOW_WATERMARK_EVENT = 2;

    public static final int LMR_OTHER_ERROR = 0;
    public static final int RMR_OTHER_ERROR = 0;
    public static final int PZ_OTHER_ERROR = 0;

    private AsyncErrorReason()
    {
    }
}

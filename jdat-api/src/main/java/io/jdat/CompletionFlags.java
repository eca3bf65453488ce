package io.jdat;

/**
 * {@code DAT_COMPLETION_FLAGS}: per-post flags of {@code dat_ep_post_send},
 * {@code dat_ep_post_recv}, {@code dat_ep_post_rdma_read}, {@code dat_ep_post_rdma_write} and
 * {@code dat_rmr_bind}, and the EP attributes that configure them.
 */
public final class CompletionFlags
{
    /** {@code DAT_COMPLETION_DEFAULT_FLAG}: a notifying completion event. */
    public static final int DEFAULT_FLAG = 0x00;
    /** No event for a successful completion (errors are always reported). Requests only. */
    public static final int SUPPRESS_FLAG = 0x01;
    /** On a Send: the peer's matching receive completes as a solicited (notifying) event. */
    public static final int SOLICITED_WAIT_FLAG = 0x02;
    /** The completion is queued but does not notify; needs the EP attribute set to this value. */
    public static final int UNSIGNALLED_FLAG = 0x04;
    /** Do not start until every RDMA Read posted earlier on the EP has completed. */
    public static final int BARRIER_FENCE_FLAG = 0x08;
    /** EP attribute only: waiters are controlled by the {@code dat_evd_wait} threshold. */
    public static final int EVD_THRESHOLD_FLAG = 0x10;

    private CompletionFlags()
    {
    }
}

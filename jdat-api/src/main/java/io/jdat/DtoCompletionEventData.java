package io.jdat;

/**
 * {@code DAT_DTO_COMPLETION_EVENT_DATA}: a {@code dat_ep_post_send}, {@code dat_ep_post_recv},
 * {@code dat_ep_post_rdma_read} or {@code dat_ep_post_rdma_write} completed, as
 * {@code dat_evd_wait} or {@code dat_evd_dequeue} returns it.
 */
public final class DtoCompletionEventData
{
    /** The endpoint the DTO was posted to (for SRQ buffers: the endpoint that consumed it). */
    public Endpoint epHandle;
    /** The cookie given to the post, returned verbatim ({@code DAT_DTO_COOKIE.as_64}). */
    public long userCookie;
    public DtoStatus status;
    /** C's {@code transfered_length}: bytes placed or sent; defined only for {@link DtoStatus#SUCCESS}. */
    public long transferredLength;

    /** An empty one; a {@link DatEvent} holds one of each. */
    public DtoCompletionEventData()
    {
    }

    public void set(final Endpoint ep, final long cookie, final DtoStatus status, final long length)
    {
        this.epHandle = ep;
        this.userCookie = cookie;
        this.status = status;
        this.transferredLength = length;
    }

    @Override
    public String toString()
    {
        return "DTO[" + status + ", cookie=" + userCookie + ", length=" + transferredLength + "]";
    }
}

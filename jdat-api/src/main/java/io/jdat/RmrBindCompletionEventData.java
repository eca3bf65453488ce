package io.jdat;

/** {@code DAT_RMR_BIND_COMPLETION_EVENT_DATA}: an {@code dat_rmr_bind} completed. */
public final class RmrBindCompletionEventData
{
    public Rmr rmrHandle;
    /** {@code DAT_RMR_COOKIE.as_64}. */
    public long userCookie;
    public DtoStatus status;

    /** An empty one; a {@link DatEvent} holds one of each. */
    public RmrBindCompletionEventData()
    {
    }

    public void set(final Rmr rmr, final long cookie, final DtoStatus status)
    {
        this.rmrHandle = rmr;
        this.userCookie = cookie;
        this.status = status;
    }

    @Override
    public String toString()
    {
        return "RMR_BIND[" + status + ", cookie=" + userCookie + "]";
    }
}

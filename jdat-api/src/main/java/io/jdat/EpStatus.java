package io.jdat;

/** What {@code dat_ep_get_status} reports: a snapshot, consumer-allocated and reusable. */
public final class EpStatus
{
    public EpState epState;
    /** No receive is outstanding or in progress. */
    public boolean recvIdle;
    /** No Send, RDMA Read/Write or RMR bind is outstanding or in progress. */
    public boolean requestIdle;

    /** An empty one, for {@code dat_ep_get_status} to fill. */
    public EpStatus()
    {
    }

    @Override
    public String toString()
    {
        return "EpStatus[" + epState + ", recvIdle=" + recvIdle + ", requestIdle=" + requestIdle + "]";
    }
}

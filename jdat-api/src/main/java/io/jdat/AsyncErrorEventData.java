package io.jdat;

/**
 * {@code DAT_ASYNCH_ERROR_EVENT_DATA}, an asynchronous error as {@code dat_evd_wait} or
 * {@code dat_evd_dequeue} returns it from the async EVD: the affected object (the IA for
 * unaffiliated errors, else the EP, EVD, SRQ, LMR, RMR or PZ) and an {@link AsyncErrorReason} for
 * its kind.
 */
public final class AsyncErrorEventData
{
    public DatHandle datHandle;
    public int reason;

    /** An empty one; a {@link DatEvent} holds one of each. */
    public AsyncErrorEventData()
    {
    }

    public void set(final DatHandle handle, final int reason)
    {
        this.datHandle = handle;
        this.reason = reason;
    }

    @Override
    public String toString()
    {
        return "ASYNC[reason=" + reason + "]";
    }
}

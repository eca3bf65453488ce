package io.jdat;

/**
 * {@code DAT_SRQ_STATE}, the state of a shared receive queue as {@code dat_srq_query} reports it.
 */
public enum SrqState
{
    OPERATIONAL(0), ERROR(1);

    private final int value;

    SrqState(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }
}

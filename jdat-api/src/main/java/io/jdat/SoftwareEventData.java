package io.jdat;

/** {@code DAT_SOFTWARE_EVENT_DATA}: the consumer's opaque value posted by {@code dat_evd_post_se}. */
public final class SoftwareEventData
{
    public Object pointer;

    /** An empty one; a {@link DatEvent} holds one of each. */
    public SoftwareEventData()
    {
    }

    @Override
    public String toString()
    {
        return "SOFTWARE[" + pointer + "]";
    }
}

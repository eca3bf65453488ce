package io.jdat;

/**
 * An OUT {@code DAT_COUNT} such as the {@code nmore} of {@code dat_evd_wait}: a consumer-allocated
 * int the provider writes, reusable across calls.
 */
public final class DatCount
{
    public int value;

    public DatCount()
    {
    }

    public DatCount(final int value)
    {
        this.value = value;
    }

    @Override
    public String toString()
    {
        return Integer.toString(value);
    }
}

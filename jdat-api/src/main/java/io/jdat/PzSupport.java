package io.jdat;

/**
 * {@code DAT_PZ_SUPPORT}, the {@code pz_support} provider attribute that {@code dat_ia_query}
 * reports.
 */
public enum PzSupport
{
    UNIQUE(0), SAME(1), SHAREABLE(2);

    private final int value;

    PzSupport(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }
}

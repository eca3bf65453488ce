package io.jdat;

/** {@code DAT_PZ_SUPPORT}. */
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

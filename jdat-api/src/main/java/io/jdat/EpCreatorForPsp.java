package io.jdat;

/**
 * {@code DAT_EP_CREATOR_FOR_PSP}: whether a provider creates endpoints for PSPs
 * ({@code dat_ia_query} reports it; {@code dat_psp_create} asks for it).
 */
public enum EpCreatorForPsp
{
    NEVER(0), IFASKED(1), ALWAYS(2);

    private final int value;

    EpCreatorForPsp(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }
}

package io.jdat;

/**
 * {@code DAT_IOV_OWNERSHIP}: who owns a posted iov array when a {@code dat_ep_post_*} call returns
 * ({@code dat_ia_query} reports it).
 */
public enum IovOwnership
{
    /** The consumer may reuse the array (not the memory it describes) as soon as the post returns. */
    CONSUMER(0), PROVIDER_NOMOD(1), PROVIDER_MOD(2);

    private final int value;

    IovOwnership(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }
}

package io.jdat;

/** {@code DAT_CLOSE_FLAGS}, used by {@code dat_ia_close} and {@code dat_ep_disconnect}. */
public final class CloseFlags
{
    public static final int ABRUPT_FLAG = 0;
    public static final int GRACEFUL_FLAG = 1;
    /** {@code DAT_CLOSE_DEFAULT}. */
    public static final int DEFAULT = ABRUPT_FLAG;

    private CloseFlags()
    {
    }
}

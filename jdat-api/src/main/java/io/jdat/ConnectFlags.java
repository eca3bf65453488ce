package io.jdat;

/** {@code DAT_CONNECT_FLAGS} for {@code dat_ep_connect}. */
public final class ConnectFlags
{
    public static final int DEFAULT_FLAG = 0x00;
    /** {@code DAT_CONNECT_MULTIPATH_FLAG}; refused unless the provider supports multipath. */
    public static final int MULTIPATH_FLAG = 0x01;

    private ConnectFlags()
    {
    }
}

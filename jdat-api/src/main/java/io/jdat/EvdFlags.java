package io.jdat;

/**
 * {@code DAT_EVD_FLAGS}: which event streams an EVD accepts, given to {@code dat_evd_create} and
 * reported by {@code dat_evd_query}.
 */
public final class EvdFlags
{
    public static final int SOFTWARE_FLAG = 0x001;
    public static final int CR_FLAG = 0x010;
    public static final int DTO_FLAG = 0x020;
    public static final int CONNECTION_FLAG = 0x040;
    public static final int RMR_BIND_FLAG = 0x080;
    public static final int ASYNC_FLAG = 0x100;
    /** Every stream except software events. */
    public static final int DEFAULT_FLAG = 0x1F0;
    /** Every flag defined by uDAPL 1.2. */
    public static final int ALL_FLAGS = 0x1F1;

    private EvdFlags()
    {
    }
}

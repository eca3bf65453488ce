package io.jdat;

/** {@code DAT_PZ_PARAM}: what {@code dat_pz_query} reports. */
public final class PzParam
{
    public static final long FIELD_IA_HANDLE = 0x01L;
    public static final long FIELD_ALL = 0x01L;

    public InterfaceAdapter iaHandle;

    /** An empty one, for a query to fill. */
    public PzParam()
    {
    }
}

package io.jdat;

/** {@code DAT_CNO_PARAM}: what {@code dat_cno_query} reports. */
public final class CnoParam
{
    public static final long FIELD_IA_HANDLE = 0x1L;
    public static final long FIELD_AGENT = 0x2L;
    public static final long FIELD_ALL = 0x3L;

    public InterfaceAdapter iaHandle;
    public OsWaitProxyAgent agent;

    /** An empty one, for a query to fill. */
    public CnoParam()
    {
    }
}

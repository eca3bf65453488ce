package io.jdat;

/** {@code DAT_RSP_PARAM}: what {@code dat_rsp_query} reports. */
public final class RspParam
{
    public static final long FIELD_IA_HANDLE = 0x01L;
    public static final long FIELD_CONN_QUAL = 0x02L;
    public static final long FIELD_EVD_HANDLE = 0x04L;
    public static final long FIELD_EP_HANDLE = 0x08L;
    public static final long FIELD_ALL = 0x0FL;

    public InterfaceAdapter iaHandle;
    public long connQual;
    public EventDispatcher evdHandle;
    public Endpoint epHandle;

    /** An empty one, for a query to fill. */
    public RspParam()
    {
    }
}

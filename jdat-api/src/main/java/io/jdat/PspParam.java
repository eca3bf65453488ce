package io.jdat;

/** {@code DAT_PSP_PARAM}: what {@code dat_psp_query} reports. */
public final class PspParam
{
    public static final long FIELD_IA_HANDLE = 0x01L;
    public static final long FIELD_CONN_QUAL = 0x02L;
    public static final long FIELD_EVD_HANDLE = 0x04L;
    public static final long FIELD_PSP_FLAGS = 0x08L;
    public static final long FIELD_ALL = 0x0FL;

    public InterfaceAdapter iaHandle;
    public long connQual;
    public EventDispatcher evdHandle;
    /** {@link PspFlags} value. */
    public int pspFlags;

    /** An empty one, for a query to fill. */
    public PspParam()
    {
    }
}

package io.jdat;

/** {@code DAT_EVD_PARAM}: what {@code dat_evd_query} reports. */
public final class EvdParam
{
    public static final long FIELD_IA_HANDLE = 0x01L;
    public static final long FIELD_EVD_QLEN = 0x02L;
    public static final long FIELD_EVD_STATE = 0x04L;
    public static final long FIELD_CNO = 0x08L;
    public static final long FIELD_EVD_FLAGS = 0x10L;
    public static final long FIELD_ALL = 0x1FL;

    public InterfaceAdapter iaHandle;
    /** The real queue length, at least what was requested. */
    public int evdQlen;
    /** {@link EvdState} bits: enabled/disabled, waitable/unwaitable, completion configuration. */
    public int evdState;
    public Cno cnoHandle;
    /** {@link EvdFlags} bits. */
    public int evdFlags;

    /** An empty one, for a query to fill. */
    public EvdParam()
    {
    }
}

package io.jdat;

/** {@code DAT_EVD_STATE}: the bits {@code dat_evd_query} reports in {@code evd_state}. */
public final class EvdState
{
    public static final int ENABLED = 0x01;
    public static final int DISABLED = 0x02;
    public static final int WAITABLE = 0x04;
    public static final int UNWAITABLE = 0x08;
    /** Every completion notifies. */
    public static final int CONFIG_NOTIFY = 0x10;
    /** A receive stream configured for solicited-wait feeds the EVD. */
    public static final int CONFIG_SOLICITED = 0x20;
    /** Waiters are controlled by the wait threshold. */
    public static final int CONFIG_THRESHOLD = 0x30;
    /** The bits that carry the completion configuration. */
    public static final int CONFIG_MASK = 0x30;

    private EvdState()
    {
    }
}

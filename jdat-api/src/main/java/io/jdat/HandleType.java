package io.jdat;

/** {@code DAT_HANDLE_TYPE}: what {@code dat_get_handle_type} reports, with the 1.2 values. */
public enum HandleType
{
    CR(0), EP(1), EVD(2), IA(3), LMR(4), PSP(5), PZ(6), RMR(7), RSP(8), CNO(9), SRQ(10);

    private final int value;

    HandleType(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }

    /** The C identifier, for example {@code DAT_HANDLE_TYPE_EP}. */
    public String cName()
    {
        return "DAT_HANDLE_TYPE_" + name();
    }
}

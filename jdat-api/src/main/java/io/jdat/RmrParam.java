package io.jdat;

/** {@code DAT_RMR_PARAM}: what {@code dat_rmr_query} reports; LMR fields are undefined while unbound. */
public final class RmrParam
{
    public static final long FIELD_IA_HANDLE = 0x01L;
    public static final long FIELD_PZ_HANDLE = 0x02L;
    public static final long FIELD_LMR_TRIPLET = 0x04L;
    public static final long FIELD_MEM_PRIV = 0x08L;
    public static final long FIELD_RMR_CONTEXT = 0x10L;
    public static final long FIELD_ALL = 0x1FL;

    public InterfaceAdapter iaHandle;
    public ProtectionZone pzHandle;
    public final LmrTriplet lmrTriplet = new LmrTriplet();
    /** {@link MemPriv} bits. */
    public int memPriv;
    public int rmrContext;

    /** An empty one, for a query to fill. */
    public RmrParam()
    {
    }
}

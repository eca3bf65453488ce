package io.jdat;

/** {@code DAT_LMR_PARAM}: what {@code dat_lmr_query} reports. */
public final class LmrParam
{
    public static final long FIELD_IA_HANDLE = 0x001L;
    public static final long FIELD_MEM_TYPE = 0x002L;
    public static final long FIELD_REGION_DESC = 0x004L;
    public static final long FIELD_LENGTH = 0x008L;
    public static final long FIELD_PZ_HANDLE = 0x010L;
    public static final long FIELD_MEM_PRIV = 0x020L;
    public static final long FIELD_LMR_CONTEXT = 0x040L;
    public static final long FIELD_RMR_CONTEXT = 0x080L;
    public static final long FIELD_REGISTERED_SIZE = 0x100L;
    public static final long FIELD_REGISTERED_ADDRESS = 0x200L;
    public static final long FIELD_ALL = 0x3FFL;

    public InterfaceAdapter iaHandle;
    /** {@link MemType} value. */
    public int memType;
    public RegionDescription regionDesc;
    public long length;
    public ProtectionZone pzHandle;
    /** {@link MemPriv} bits. */
    public int memPriv;
    public int lmrContext;
    public int rmrContext;
    public long registeredSize;
    public long registeredAddress;

    /** An empty one, for a query to fill. */
    public LmrParam()
    {
    }
}

package io.jdat;

/** {@code DAT_MEM_TYPE}: what kind of memory {@code dat_lmr_create} registers. */
public final class MemType
{
    /** A contiguous range of the consumer's memory ({@link RegionDescription#forVa}). */
    public static final int VIRTUAL = 0x00;
    /** The memory of an existing LMR ({@link RegionDescription#forLmr}). */
    public static final int LMR = 0x01;
    /** Memory shared between processes, named by a 40-byte cookie ({@link RegionDescription#forSharedMemory}). */
    public static final int SHARED_VIRTUAL = 0x02;
    /** Solaris only: strongly ordered virtual memory. */
    public static final int SO_VIRTUAL = 0x03;

    private MemType()
    {
    }

    /**
     * The bit jdat uses for a memory type in {@code ProviderAttr.lmrMemTypesSupported}: the
     * header calls that attribute a union of types, which cannot express the 0-valued
     * {@code VIRTUAL}, so jdat reports {@code 1 << type} for each supported type.
     */
    public static int bit(final int memType)
    {
        return 1 << memType;
    }
}

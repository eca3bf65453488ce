package io.jdat;

/**
 * {@code DAT_PROVIDER_ATTR}: what the provider behind an open IA instance supports, as
 * {@code dat_ia_query} reports it.
 */
public final class ProviderAttr
{
    public static final long FIELD_PROVIDER_NAME = 0x0000001L;
    public static final long FIELD_PROVIDER_VERSION_MAJOR = 0x0000002L;
    public static final long FIELD_PROVIDER_VERSION_MINOR = 0x0000004L;
    public static final long FIELD_DAPL_VERSION_MAJOR = 0x0000008L;
    public static final long FIELD_DAPL_VERSION_MINOR = 0x0000010L;
    public static final long FIELD_LMR_MEM_TYPE_SUPPORTED = 0x0000020L;
    public static final long FIELD_IOV_OWNERSHIP = 0x0000040L;
    public static final long FIELD_DAT_QOS_SUPPORTED = 0x0000080L;
    public static final long FIELD_COMPLETION_FLAGS_SUPPORTED = 0x0000100L;
    public static final long FIELD_IS_THREAD_SAFE = 0x0000200L;
    public static final long FIELD_MAX_PRIVATE_DATA_SIZE = 0x0000400L;
    public static final long FIELD_SUPPORTS_MULTIPATH = 0x0000800L;
    public static final long FIELD_EP_CREATOR = 0x0001000L;
    public static final long FIELD_PZ_SUPPORT = 0x0002000L;
    public static final long FIELD_OPTIMAL_BUFFER_ALIGNMENT = 0x0004000L;
    public static final long FIELD_EVD_STREAM_MERGING_SUPPORTED = 0x0008000L;
    public static final long FIELD_SRQ_SUPPORTED = 0x0010000L;
    public static final long FIELD_SRQ_WATERMARKS_SUPPORTED = 0x0020000L;
    public static final long FIELD_SRQ_EP_PZ_DIFFERENCE_SUPPORTED = 0x0040000L;
    public static final long FIELD_SRQ_INFO_SUPPORTED = 0x0080000L;
    public static final long FIELD_EP_RECV_INFO_SUPPORTED = 0x0100000L;
    public static final long FIELD_LMR_SYNC_REQ = 0x0200000L;
    public static final long FIELD_DTO_ASYNC_RETURN_GUARANTEED = 0x0400000L;
    public static final long FIELD_RDMA_WRITE_FOR_RDMA_READ_REQ = 0x0800000L;
    public static final long FIELD_NUM_PROVIDER_SPECIFIC_ATTR = 0x1000000L;
    public static final long FIELD_PROVIDER_SPECIFIC_ATTR = 0x2000000L;
    public static final long FIELD_ALL = 0x3FFFFFFL;
    public static final long FIELD_NONE = 0L;

    /** Index order of {@link #evdStreamMergingSupported}: software, CR, DTO, connection, RMR bind, async. */
    public static final int STREAM_SOFTWARE = 0;
    public static final int STREAM_CR = 1;
    public static final int STREAM_DTO = 2;
    public static final int STREAM_CONNECTION = 3;
    public static final int STREAM_RMR_BIND = 4;
    public static final int STREAM_ASYNC = 5;

    public String providerName;
    public int providerVersionMajor;
    public int providerVersionMinor;
    public int daplVersionMajor;
    public int daplVersionMinor;
    /** A bit set of {@link MemType#bit(int)}. */
    public int lmrMemTypesSupported;
    public IovOwnership iovOwnershipOnReturn;
    /** {@link Qos} bits. */
    public int datQosSupported;
    /** {@link CompletionFlags} bits. */
    public int completionFlagsSupported;
    public boolean isThreadSafe;
    public int maxPrivateDataSize;
    public boolean supportsMultipath;
    public EpCreatorForPsp epCreator;
    public PzSupport pzSupport;
    public int optimalBufferAlignment;
    public boolean[][] evdStreamMergingSupported = new boolean[6][6];
    public boolean srqSupported;
    public int srqWatermarksSupported;
    public boolean srqEpPzDifferenceSupported;
    public int srqInfoSupported;
    public int epRecvInfoSupported;
    public boolean lmrSyncReq;
    public boolean dtoAsyncReturnGuaranteed;
    public boolean rdmaWriteForRdmaReadReq;
    public int numProviderSpecificAttr;
    public NamedAttr[] providerSpecificAttr = new NamedAttr[0];

    /** An empty one, for {@code dat_ia_query} to fill. */
    public ProviderAttr()
    {
    }

    /** The value of a provider-specific attribute, or {@code null}. */
    public String providerSpecificAttr(final String name)
    {
        for (final NamedAttr a : providerSpecificAttr)
        {
            if (a.name().equals(name))
            {
                return a.value();
            }
        }
        return null;
    }
}

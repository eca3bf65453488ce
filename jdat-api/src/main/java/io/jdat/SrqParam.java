package io.jdat;

/**
 * {@code DAT_SRQ_PARAM}: what {@code dat_srq_query} reports. {@code availableDtoCount} counts
 * buffers on the SRQ not yet taken by an endpoint; {@code outstandingDtoCount} counts buffers
 * posted and not yet reaped by the consumer (available + held by endpoints + completed but
 * still on a receive EVD).
 */
public final class SrqParam
{
    public static final long FIELD_IA_HANDLE = 0x001L;
    public static final long FIELD_SRQ_STATE = 0x002L;
    public static final long FIELD_PZ_HANDLE = 0x004L;
    public static final long FIELD_MAX_RECV_DTO = 0x008L;
    public static final long FIELD_MAX_RECV_IOV = 0x010L;
    public static final long FIELD_LOW_WATERMARK = 0x020L;
    public static final long FIELD_AVAILABLE_DTO_COUNT = 0x040L;
    public static final long FIELD_OUTSTANDING_DTO_COUNT = 0x080L;
    public static final long FIELD_ALL = 0x0FFL;

    public InterfaceAdapter iaHandle;
    public SrqState srqState;
    public ProtectionZone pzHandle;
    public int maxRecvDtos;
    public int maxRecvIov;
    public int lowWatermark;
    public int availableDtoCount;
    public int outstandingDtoCount;

    /** An empty one, for a query to fill. */
    public SrqParam()
    {
    }
}

package io.jdat;

/** {@code DAT_CR_PARAM}: what {@code dat_cr_query} reports about a connection request. */
public final class CrParam
{
    public static final long FIELD_REMOTE_IA_ADDRESS_PTR = 0x01L;
    public static final long FIELD_REMOTE_PORT_QUAL = 0x02L;
    public static final long FIELD_PRIVATE_DATA_SIZE = 0x04L;
    public static final long FIELD_PRIVATE_DATA = 0x08L;
    public static final long FIELD_LOCAL_EP_HANDLE = 0x10L;
    public static final long FIELD_ALL = 0x1FL;

    public IaAddress remoteIaAddress;
    /** The active side's local port qualifier. */
    public long remotePortQual;
    public int privateDataSize;
    /** Exactly what the active side passed to connect (a copy the consumer may keep). */
    public byte[] privateData;
    /** The RSP's endpoint or a provider-created one; {@code null} for a consumer-model PSP. */
    public Endpoint localEpHandle;

    /** An empty one, for a query to fill. */
    public CrParam()
    {
    }
}

package io.jdat;

/**
 * {@code DAT_EP_ATTR}: the attributes of an endpoint, as {@code dat_ep_create} takes them and
 * {@code dat_ep_query} and {@code dat_ep_modify} report and change them. A new instance holds the
 * values jdat's providers also pick when {@code dat_ep_create} is given no attributes (the
 * reference implementation's defaults), so a consumer changes only what it cares about.
 */
public final class EpAttr
{
    /** {@code service_type}; uDAPL 1.2 has only {@link ServiceType#RC}. */
    public int serviceType = ServiceType.RC;
    /** Largest Send/Recv message, bytes. */
    public long maxMessageSize = 1L << 31;
    /** Largest single RDMA Read or Write, bytes. */
    public long maxRdmaSize = 1L << 31;
    /** {@link Qos} bits. */
    public int qos = Qos.BEST_EFFORT;
    /** {@link CompletionFlags#EVD_THRESHOLD_FLAG}, {@code SOLICITED_WAIT_FLAG} or {@code UNSIGNALLED_FLAG}. */
    public int recvCompletionFlags = CompletionFlags.EVD_THRESHOLD_FLAG;
    /** {@link CompletionFlags#EVD_THRESHOLD_FLAG} or {@code UNSIGNALLED_FLAG}. */
    public int requestCompletionFlags = CompletionFlags.EVD_THRESHOLD_FLAG;
    /** Receives that may be outstanding at once. */
    public int maxRecvDtos = 16;
    /** Requests (Send, RDMA Read/Write, RMR bind) that may be outstanding at once. */
    public int maxRequestDtos = 16;
    /** Segments per posted receive. */
    public int maxRecvIov = 4;
    /** Segments per posted Send. */
    public int maxRequestIov = 4;
    /** RDMA Reads this EP serves at once as the target (iWARP's IRD). */
    public int maxRdmaReadIn = 4;
    /** RDMA Reads this EP may have outstanding as the initiator (iWARP's ORD). */
    public int maxRdmaReadOut = 4;
    /** 1.2: initial soft high watermark of an SRQ endpoint; {@link Dat#WATERMARK_INFINITE} = none. */
    public int srqSoftHw = Dat.WATERMARK_INFINITE;
    /** 1.2: local segments in an RDMA Read post. */
    public int maxRdmaReadIov = 4;
    /** 1.2: local segments in an RDMA Write post. */
    public int maxRdmaWriteIov = 4;
    public int epTransportSpecificCount;
    public NamedAttr[] epTransportSpecific = new NamedAttr[0];
    public int epProviderSpecificCount;
    public NamedAttr[] epProviderSpecific = new NamedAttr[0];

    public EpAttr()
    {
    }

    /** A copy of {@code other}. */
    public EpAttr(final EpAttr other)
    {
        copyFrom(other);
    }

    /** Copies every field of {@code other} into this; returns this. */
    public EpAttr copyFrom(final EpAttr other)
    {
        serviceType = other.serviceType;
        maxMessageSize = other.maxMessageSize;
        maxRdmaSize = other.maxRdmaSize;
        qos = other.qos;
        recvCompletionFlags = other.recvCompletionFlags;
        requestCompletionFlags = other.requestCompletionFlags;
        maxRecvDtos = other.maxRecvDtos;
        maxRequestDtos = other.maxRequestDtos;
        maxRecvIov = other.maxRecvIov;
        maxRequestIov = other.maxRequestIov;
        maxRdmaReadIn = other.maxRdmaReadIn;
        maxRdmaReadOut = other.maxRdmaReadOut;
        srqSoftHw = other.srqSoftHw;
        maxRdmaReadIov = other.maxRdmaReadIov;
        maxRdmaWriteIov = other.maxRdmaWriteIov;
        epTransportSpecificCount = other.epTransportSpecificCount;
        epTransportSpecific = other.epTransportSpecific == null ? new NamedAttr[0] : other.epTransportSpecific.clone();
        epProviderSpecificCount = other.epProviderSpecificCount;
        epProviderSpecific = other.epProviderSpecific == null ? new NamedAttr[0] : other.epProviderSpecific.clone();
        return this;
    }

    @Override
    public String toString()
    {
        return "EpAttr[maxMessageSize=" + maxMessageSize + ", maxRdmaSize=" + maxRdmaSize
            + ", recvFlags=0x" + Integer.toHexString(recvCompletionFlags)
            + ", requestFlags=0x" + Integer.toHexString(requestCompletionFlags)
            + ", maxRecvDtos=" + maxRecvDtos + ", maxRequestDtos=" + maxRequestDtos
            + ", maxRecvIov=" + maxRecvIov + ", maxRequestIov=" + maxRequestIov
            + ", maxRdmaReadIn=" + maxRdmaReadIn + ", maxRdmaReadOut=" + maxRdmaReadOut
            + ", srqSoftHw=" + srqSoftHw + ", maxRdmaReadIov=" + maxRdmaReadIov
            + ", maxRdmaWriteIov=" + maxRdmaWriteIov + "]";
    }
}

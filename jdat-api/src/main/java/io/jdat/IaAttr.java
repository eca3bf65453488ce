package io.jdat;

/**
 * {@code DAT_IA_ATTR}: the attributes of an interface adapter that {@code dat_ia_query} reports,
 * common to all its open instances. The mask bits follow the field order of the uDAPL 1.2 header.
 */
public final class IaAttr
{
    public static final long FIELD_IA_ADAPTER_NAME = 0x1L;
    public static final long FIELD_IA_VENDOR_NAME = 0x2L;
    public static final long FIELD_IA_HARDWARE_MAJOR_VERSION = 0x4L;
    public static final long FIELD_IA_HARDWARE_MINOR_VERSION = 0x8L;
    public static final long FIELD_IA_FIRMWARE_MAJOR_VERSION = 0x10L;
    public static final long FIELD_IA_FIRMWARE_MINOR_VERSION = 0x20L;
    public static final long FIELD_IA_ADDRESS_PTR = 0x40L;
    public static final long FIELD_IA_MAX_EPS = 0x80L;
    public static final long FIELD_IA_MAX_DTO_PER_EP = 0x100L;
    public static final long FIELD_IA_MAX_RDMA_READ_PER_EP_IN = 0x200L;
    public static final long FIELD_IA_MAX_RDMA_READ_PER_EP_OUT = 0x400L;
    public static final long FIELD_IA_MAX_EVDS = 0x800L;
    public static final long FIELD_IA_MAX_EVD_QLEN = 0x1000L;
    public static final long FIELD_IA_MAX_IOV_SEGMENTS_PER_DTO = 0x2000L;
    public static final long FIELD_IA_MAX_LMRS = 0x4000L;
    public static final long FIELD_IA_MAX_LMR_BLOCK_SIZE = 0x8000L;
    public static final long FIELD_IA_MAX_LMR_VIRTUAL_ADDRESS = 0x10000L;
    public static final long FIELD_IA_MAX_PZS = 0x20000L;
    public static final long FIELD_IA_MAX_MESSAGE_SIZE = 0x40000L;
    public static final long FIELD_IA_MAX_RDMA_SIZE = 0x80000L;
    public static final long FIELD_IA_MAX_RMRS = 0x100000L;
    public static final long FIELD_IA_MAX_RMR_TARGET_ADDRESS = 0x200000L;
    public static final long FIELD_IA_MAX_SRQS = 0x400000L;
    public static final long FIELD_IA_MAX_EP_PER_SRQ = 0x800000L;
    public static final long FIELD_IA_MAX_RECV_PER_SRQ = 0x1000000L;
    public static final long FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_READ = 0x2000000L;
    public static final long FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE = 0x4000000L;
    public static final long FIELD_IA_MAX_RDMA_READ_IN = 0x8000000L;
    public static final long FIELD_IA_MAX_RDMA_READ_OUT = 0x10000000L;
    public static final long FIELD_IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED = 0x20000000L;
    public static final long FIELD_IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED = 0x40000000L;
    public static final long FIELD_IA_NUM_TRANSPORT_ATTR = 0x80000000L;
    public static final long FIELD_IA_TRANSPORT_ATTR = 0x100000000L;
    public static final long FIELD_IA_NUM_VENDOR_ATTR = 0x200000000L;
    public static final long FIELD_IA_VENDOR_ATTR = 0x400000000L;
    public static final long FIELD_ALL = 0x7FFFFFFFFL;
    public static final long FIELD_NONE = 0L;

    public String adapterName;
    public String vendorName;
    public int hardwareVersionMajor;
    public int hardwareVersionMinor;
    public int firmwareVersionMajor;
    public int firmwareVersionMinor;
    public IaAddress iaAddress;
    public int maxEps;
    public int maxDtoPerEp;
    public int maxRdmaReadPerEpIn;
    public int maxRdmaReadPerEpOut;
    public int maxEvds;
    public int maxEvdQlen;
    public int maxIovSegmentsPerDto;
    public int maxLmrs;
    public long maxLmrBlockSize;
    public long maxLmrVirtualAddress;
    public int maxPzs;
    public long maxMessageSize;
    public long maxRdmaSize;
    public int maxRmrs;
    public long maxRmrTargetAddress;
    public int maxSrqs;
    public int maxEpPerSrq;
    public int maxRecvPerSrq;
    public int maxIovSegmentsPerRdmaRead;
    public int maxIovSegmentsPerRdmaWrite;
    public int maxRdmaReadIn;
    public int maxRdmaReadOut;
    public boolean maxRdmaReadPerEpInGuaranteed;
    public boolean maxRdmaReadPerEpOutGuaranteed;
    public int numTransportAttr;
    public NamedAttr[] transportAttr = new NamedAttr[0];
    public int numVendorAttr;
    public NamedAttr[] vendorAttr = new NamedAttr[0];

    /** An empty one, for {@code dat_ia_query} to fill. */
    public IaAttr()
    {
    }

    /** The value of a transport-specific attribute, or {@code null}. */
    public String transportAttr(final String name)
    {
        for (final NamedAttr a : transportAttr)
        {
            if (a.name().equals(name))
            {
                return a.value();
            }
        }
        return null;
    }
}

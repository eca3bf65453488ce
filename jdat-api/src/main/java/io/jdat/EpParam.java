package io.jdat;

/** {@code DAT_EP_PARAM}: what {@code dat_ep_query} reports and {@code dat_ep_modify} changes. */
public final class EpParam
{
    public static final long FIELD_IA_HANDLE = 0x00000001L;
    public static final long FIELD_EP_STATE = 0x00000002L;
    public static final long FIELD_LOCAL_IA_ADDRESS_PTR = 0x00000004L;
    public static final long FIELD_LOCAL_PORT_QUAL = 0x00000008L;
    public static final long FIELD_REMOTE_IA_ADDRESS_PTR = 0x00000010L;
    public static final long FIELD_REMOTE_PORT_QUAL = 0x00000020L;
    public static final long FIELD_PZ_HANDLE = 0x00000040L;
    public static final long FIELD_RECV_EVD_HANDLE = 0x00000080L;
    public static final long FIELD_REQUEST_EVD_HANDLE = 0x00000100L;
    public static final long FIELD_CONNECT_EVD_HANDLE = 0x00000200L;
    public static final long FIELD_SRQ_HANDLE = 0x00000400L;
    public static final long FIELD_EP_ATTR_SERVICE_TYPE = 0x00001000L;
    public static final long FIELD_EP_ATTR_MAX_MESSAGE_SIZE = 0x00002000L;
    public static final long FIELD_EP_ATTR_MAX_RDMA_SIZE = 0x00004000L;
    public static final long FIELD_EP_ATTR_QOS = 0x00008000L;
    public static final long FIELD_EP_ATTR_RECV_COMPLETION_FLAGS = 0x00010000L;
    public static final long FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS = 0x00020000L;
    public static final long FIELD_EP_ATTR_MAX_RECV_DTOS = 0x00040000L;
    public static final long FIELD_EP_ATTR_MAX_REQUEST_DTOS = 0x00080000L;
    public static final long FIELD_EP_ATTR_MAX_RECV_IOV = 0x00100000L;
    public static final long FIELD_EP_ATTR_MAX_REQUEST_IOV = 0x00200000L;
    public static final long FIELD_EP_ATTR_MAX_RDMA_READ_IN = 0x00400000L;
    public static final long FIELD_EP_ATTR_MAX_RDMA_READ_OUT = 0x00800000L;
    public static final long FIELD_EP_ATTR_SRQ_SOFT_HW = 0x01000000L;
    public static final long FIELD_EP_ATTR_MAX_RDMA_READ_IOV = 0x02000000L;
    public static final long FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV = 0x04000000L;
    public static final long FIELD_EP_ATTR_NUM_TRANSPORT_ATTR = 0x08000000L;
    public static final long FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR = 0x10000000L;
    public static final long FIELD_EP_ATTR_NUM_PROVIDER_ATTR = 0x20000000L;
    public static final long FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR = 0x40000000L;
    public static final long FIELD_EP_ATTR_ALL = 0x7FFFF000L;
    public static final long FIELD_ALL = 0x7FFFF7FFL;

    public InterfaceAdapter iaHandle;
    public EpState epState;
    public IaAddress localIaAddress;
    public long localPortQual;
    public IaAddress remoteIaAddress;
    public long remotePortQual;
    public ProtectionZone pzHandle;
    public EventDispatcher recvEvdHandle;
    public EventDispatcher requestEvdHandle;
    public EventDispatcher connectEvdHandle;
    public SharedReceiveQueue srqHandle;
    public final EpAttr epAttr = new EpAttr();

    /** An empty one, for a query to fill. */
    public EpParam()
    {
    }

    @Override
    public String toString()
    {
        return "EpParam[state=" + epState + ", local=" + localIaAddress + ":" + localPortQual
            + ", remote=" + remoteIaAddress + ":" + remotePortQual + ", " + epAttr + "]";
    }
}

package io.jdat.engine.channel;

/** RDMAP opcodes (RFC 5040), the four low bits of the RDMAP control byte. */
public final class RdmapOpcode
{
    public static final int RDMA_WRITE = 0;
    public static final int RDMA_READ_REQUEST = 1;
    public static final int RDMA_READ_RESPONSE = 2;
    public static final int SEND = 3;
    public static final int SEND_WITH_INVALIDATE = 4;
    public static final int SEND_WITH_SE = 5;
    public static final int SEND_WITH_SE_AND_INVALIDATE = 6;
    public static final int TERMINATE = 7;

    private RdmapOpcode()
    {
    }

    public static String name(final int opcode)
    {
        return switch (opcode)
        {
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ_REQUEST -> "RDMA_READ_REQUEST";
            case RDMA_READ_RESPONSE -> "RDMA_READ_RESPONSE";
            case SEND -> "SEND";
            case SEND_WITH_INVALIDATE -> "SEND_WITH_INVALIDATE";
            case SEND_WITH_SE -> "SEND_WITH_SE";
            case SEND_WITH_SE_AND_INVALIDATE -> "SEND_WITH_SE_AND_INVALIDATE";
            case TERMINATE -> "TERMINATE";
            default -> "OPCODE_" + opcode;
        };
    }
}

package io.jdat;

/**
 * {@code DAT_DTO_COMPLETION_STATUS}: how a DTO posted with {@code dat_ep_post_*} (or an RMR bind of
 * {@code dat_rmr_bind}) completed.
 */
public enum DtoStatus
{
    SUCCESS(0),
    /** Not executed: the endpoint left (or never reached) the connected state. */
    ERR_FLUSHED(1),
    /** The incoming message was larger than the receive buffer, or a local length mismatch. */
    ERR_LOCAL_LENGTH(2),
    ERR_LOCAL_EP(3),
    /** A local buffer failed its protection check at execution time. */
    ERR_LOCAL_PROTECTION(4),
    ERR_BAD_RESPONSE(5),
    /** The remote side refused the RDMA access (STag, protection zone, bounds, privileges). */
    ERR_REMOTE_ACCESS(6),
    /** The remote side could not execute the operation (for example its receive was too short). */
    ERR_REMOTE_RESPONDER(7),
    ERR_TRANSPORT(8),
    /** A Send arrived and the peer had no receive buffer for it. */
    ERR_RECEIVER_NOT_READY(9),
    ERR_PARTIAL_PACKET(10),
    /** An RMR bind or unbind failed. */
    RMR_OPERATION_FAILED(11);

    /** The 1.1 name of {@link #ERR_LOCAL_LENGTH}. */
    public static final DtoStatus LENGTH_ERROR = ERR_LOCAL_LENGTH;
    /** The 1.1 name of {@link #ERR_FLUSHED}. */
    public static final DtoStatus FAILURE = ERR_FLUSHED;
    /** {@code DAT_RMR_BIND_SUCCESS}. */
    public static final DtoStatus RMR_BIND_SUCCESS = SUCCESS;
    /** {@code DAT_RMR_BIND_FAILURE}. */
    public static final DtoStatus RMR_BIND_FAILURE = ERR_FLUSHED;

    private static final DtoStatus[] VALUES = values();

    private final int value;

    DtoStatus(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }

    public static DtoStatus fromValue(final int value)
    {
        return value >= 0 && value < VALUES.length ? VALUES[value] : null;
    }
}

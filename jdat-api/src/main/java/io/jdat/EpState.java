package io.jdat;

/**
 * {@code DAT_EP_STATE}, the 13 endpoint states with their 1.2 values, as {@code dat_ep_query} and
 * {@code dat_ep_get_status} report them. jdat never reports the {@code UNCONFIGURED_*} states;
 * they exist for numeric fidelity.
 */
public enum EpState
{
    /** Quiescent and ready to connect or accept: fresh, reset, or an RSP's EP after reject. */
    UNCONNECTED(0),
    UNCONFIGURED_UNCONNECTED(1),
    /** Bound to a reserved service point, waiting for its one connection request. */
    RESERVED(2),
    UNCONFIGURED_RESERVED(3),
    /** An RSP's endpoint whose connection request arrived; awaiting accept or reject. */
    PASSIVE_CONNECTION_PENDING(4),
    UNCONFIGURED_PASSIVE(5),
    /** {@code dat_ep_connect} or {@code dat_ep_dup_connect} in progress. */
    ACTIVE_CONNECTION_PENDING(6),
    /** A provider-created endpoint attached to a connection request. */
    TENTATIVE_CONNECTION_PENDING(7),
    UNCONFIGURED_TENTATIVE(8),
    CONNECTED(9),
    /** Graceful disconnect in progress: outstanding requests may still complete. */
    DISCONNECT_PENDING(10),
    /** The connection is gone; DTOs were flushed. Reset or free. */
    DISCONNECTED(11),
    /** Passive side after {@code dat_cr_accept}, until the transport completes. */
    COMPLETION_PENDING(12);

    private static final EpState[] VALUES = values();

    private final int value;

    EpState(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }

    public static EpState fromValue(final int value)
    {
        return value >= 0 && value < VALUES.length ? VALUES[value] : null;
    }
}

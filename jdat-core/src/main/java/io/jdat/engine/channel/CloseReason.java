package io.jdat.engine.channel;

/** Why a connection ended. */
public enum CloseReason
{
    /** This side's {@link Channel#disconnect()} finished. */
    LOCAL_CLOSE,
    /** The peer disconnected (gracefully or abruptly, by its consumer's choice). */
    PEER_CLOSED,
    /** A Terminate was sent or received, or the transport failed (peer death, link loss, protocol error). */
    BROKEN
}

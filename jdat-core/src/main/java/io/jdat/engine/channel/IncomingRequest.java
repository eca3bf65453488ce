package io.jdat.engine.channel;

import io.jdat.IaAddress;

/** A connection request as the passive side sees it. */
public interface IncomingRequest
{
    IaAddress remoteAddress();

    /** The active side's local port qualifier. */
    long remotePortQual();

    /** The qualifier the request arrived on (after a handoff: the new one). */
    long localConnQual();

    /** The active side's private data (never null). */
    byte[] privateData();

    /** RDMA Reads the active side will serve at once. */
    int peerIrd();

    /** RDMA Reads the active side wants outstanding at once. */
    int peerOrd();

    /**
     * Accepts. The outcome arrives on {@code handler}, possibly before this returns:
     * {@link AcceptHandler#established} or {@link AcceptHandler#acceptFailed} (the active side
     * gave up or the transport failed).
     *
     * @param ird what this side will serve
     * @param ord what this side may have outstanding
     */
    void accept(byte[] privateData, int ird, int ord, AcceptHandler handler);

    /**
     * Rejects.
     *
     * @param byPeer true for a consumer reject (the active side sees a peer rejection); false for
     *               a provider refusal (a non-peer rejection)
     */
    void reject(boolean byPeer);
}

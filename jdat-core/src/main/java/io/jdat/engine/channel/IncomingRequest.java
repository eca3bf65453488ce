package io.jdat.engine.channel;

import io.jdat.IaAddress;

/** A connection request as the passive side sees it. */
public interface IncomingRequest
{
    /** What the active side offered. */
    PeerOffer offer();

    /** The qualifier the request arrived on (after a handoff: the new one). */
    default long localConnQual()
    {
        return offer().localConnQual();
    }

    default IaAddress remoteAddress()
    {
        return offer().remoteAddress();
    }

    /** The active side's local port qualifier. */
    default long remotePortQual()
    {
        return offer().remotePortQual();
    }

    /** The active side's private data (never null). */
    default byte[] privateData()
    {
        return offer().privateData();
    }

    /** RDMA Reads the active side will serve at once. */
    default int peerIrd()
    {
        return offer().peerIrd();
    }

    /** RDMA Reads the active side wants outstanding at once. */
    default int peerOrd()
    {
        return offer().peerOrd();
    }

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

package io.jdat.engine.channel;

import io.jdat.IaAddress;

/**
 * What the active side of a connection setup offered, and where the passive side received it.
 * Every transport's {@link IncomingRequest} answers its getters from one of these.
 *
 * @param remoteAddress  the active side's IA address
 * @param remotePortQual the active side's local port qualifier
 * @param localConnQual  the qualifier the request arrived on (after a handoff: the new one)
 * @param privateData    the active side's private data (never null; the engine copies it)
 * @param peerIrd        RDMA Reads the active side will serve at once
 * @param peerOrd        RDMA Reads the active side wants outstanding at once
 */
public record PeerOffer(IaAddress remoteAddress, long remotePortQual, long localConnQual, byte[] privateData,
    int peerIrd, int peerOrd)
{
    private static final byte[] NONE = new byte[0];

    public PeerOffer
    {
        privateData = privateData == null ? NONE : privateData;
    }

    /** The same offer, arrived on {@code connQual} (a handoff, or a late-known target). */
    public PeerOffer arrivedOn(final long connQual)
    {
        return new PeerOffer(remoteAddress, remotePortQual, connQual, privateData, peerIrd, peerOrd);
    }
}

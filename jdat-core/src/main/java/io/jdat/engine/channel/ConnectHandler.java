package io.jdat.engine.channel;

/**
 * The active side's engine half of one connection attempt. Exactly one of the outcome methods
 * is called, unless the attempt is cancelled first; after {@link #established} the same object
 * receives the connection's traffic.
 */
public interface ConnectHandler extends ChannelHandler
{
    /**
     * The peer accepted and the connection is up.
     *
     * @param channel     the connection
     * @param privateData the acceptor's private data (never null)
     * @param peerIrd     RDMA Reads the peer will serve at once
     * @param peerOrd     RDMA Reads the peer may have outstanding at once
     */
    void established(Channel channel, byte[] privateData, int peerIrd, int peerOrd);

    /**
     * The attempt failed.
     *
     * @param byPeer true if the peer consumer rejected it; false if nobody listened, the
     *               backlog was full, or the transport failed
     */
    void rejected(boolean byPeer);

    /** The remote address could not be reached, or did not answer. */
    void unreachable();
}

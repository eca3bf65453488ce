package io.jdat.engine.channel;

import java.lang.foreign.MemorySegment;

/**
 * One established connection, as the engine sends on it. Messages leave in the order they are
 * posted.
 */
public interface Channel
{
    /**
     * Queues a message for transmission. Never blocks and never calls back into the engine (so
     * it may be called under an endpoint lock to keep sequence numbers in order). The message
     * object and the memory it describes stay the engine's responsibility until
     * {@link ChannelHandler#onSent} is called for it; after the channel closed, the channel never
     * touches it again.
     */
    void post(OutboundMessage message);

    /**
     * Carries a Send or an RDMA Write of at most one piece to the peer on the calling thread and
     * has the peer place it before this returns, when that can be done at once: nothing posted
     * earlier is still on its way, no other thread is delivering on this channel, and the peer
     * places it without a lock ({@link ChannelHandler#placeSendNow},
     * {@link ChannelHandler#placeWriteNow}). The message comes as its header and its one piece,
     * not as an {@link OutboundMessage}: the caller fills a descriptor only when this returns
     * false. True if placed: the message is sent, and {@link ChannelHandler#onSent} is not called
     * for it. False, having done nothing, otherwise: the caller posts it. Called in place of
     * {@link #post} under the sending endpoint's lock, taken with the send claim
     * ({@link ChannelHandler#sendClaimed} of this end's handler): that claim is the mark the
     * peer's {@link #awaitPlacing} and this end's close wait for, so the channel takes none of its
     * own. It never blocks and never calls back into the sending side. Channels whose messages
     * leave through a wire return false.
     *
     * @param opcode {@link RdmapOpcode#SEND}, {@link RdmapOpcode#SEND_WITH_SE} or
     *               {@link RdmapOpcode#RDMA_WRITE}
     * @param msn    a Send's MSN (queue 0), else 0
     * @param stag   a Write's sink STag, else 0
     * @param to     a Write's sink tagged offset, else 0
     * @param memory the piece's memory, or null for a message of no bytes
     */
    default boolean sendNow(final int opcode, final int msn, final int stag, final long to,
        final MemorySegment memory, final long offset, final long length)
    {
        return false;
    }

    /**
     * Called by this end's handler as it closes, after it has marked itself closed with a
     * volatile store: returns once no thread of the peer is inside
     * {@link ChannelHandler#placeSendNow} or {@link ChannelHandler#placeWriteNow} of this end's
     * handler (while the peer's handler says {@link ChannelHandler#sendClaimed}). A placement
     * that began before the mark is let finish, and what it wrote happens before this returns;
     * one that begins after it sees the mark. Never waits for anything else; returns at once
     * when called by the placing thread itself. Channels without {@code sendNow} have nothing to
     * wait for, except a transport that places payload itself ({@link ChannelHandler#sendTarget}):
     * it returns once no write of its into this end's memory is in progress, and writes nothing
     * there after.
     */
    default void awaitPlacing()
    {
    }

    /** Moves queued messages forward; may run callbacks on the calling thread. */
    void flush();

    /** The largest payload the channel puts in one segment (for diagnostics). */
    int maxSegmentPayload();

    /**
     * Whether {@link ChannelHandler#onSent} means the peer has validated and placed the message
     * (in-process and shared-memory channels; on shm, a Send of one record completes once written
     * into the ring instead) rather than only that the bytes left this side (network channels).
     */
    boolean sentMeansPlaced();

    /**
     * Sends a Terminate after the messages already posted, then closes the connection. The
     * peer's handler gets {@link ChannelHandler#onTerminate} and then
     * {@link ChannelHandler#onClosed} with {@link CloseReason#BROKEN}; this side's handler gets
     * {@code onClosed(BROKEN)}.
     */
    void terminate(TerminateInfo info);

    /**
     * Closes gracefully: after every posted message has left, the connection closes; both
     * handlers then get {@link ChannelHandler#onClosed} ({@link CloseReason#LOCAL_CLOSE} here,
     * {@link CloseReason#PEER_CLOSED} there).
     */
    void disconnect();

    /**
     * Closes at once, dropping queued messages (the engine flushes its own work requests). This
     * side's handler gets no further callback except possibly one in progress, and, where
     * {@link #sentMeansPlaced()}, {@link ChannelHandler#onSent} on the calling thread for messages
     * the peer placed or is placing, before this returns; a message not reported then is never
     * placed. The peer gets {@code onClosed(PEER_CLOSED)}. Never waits for the peer.
     */
    void abort();
}

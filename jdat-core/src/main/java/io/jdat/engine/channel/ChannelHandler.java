package io.jdat.engine.channel;

import java.lang.foreign.MemorySegment;

/**
 * The engine side of one connection: incoming segments, transmission progress, and the end of
 * the connection. A segment's payload is {@code len} bytes of {@code src} at {@code off}; it is
 * valid only during the call. A method returns false when the engine rejected the segment and
 * terminated the connection; the transport then delivers nothing more.
 */
public interface ChannelHandler
{
    /**
     * Whether this connection's completions or connection events go to {@code evd}, the EVD a
     * consumer polls ({@link TransportPort#poll(Object)}). A hint only, read without the
     * endpoint's lock: a transport uses it to choose which connections to read first, never to
     * leave one unread.
     */
    default boolean completesInto(final Object evd)
    {
        return true;
    }

    /**
     * An untagged segment on queue 0: part of a Send.
     *
     * @param msn       the message sequence number of the Send (from 1, per connection)
     * @param mo        the segment's offset within the message
     * @param last      the last segment of the message
     * @param solicited Send with Solicited Event
     * @param src       null when the transport already placed the payload where
     *                  {@link #sendTarget} said
     */
    boolean onSend(int msn, int mo, boolean last, boolean solicited, MemorySegment src, long off, int len);

    /**
     * Direct placement of a Send segment, for a transport that can move its payload straight
     * from the wire into the receive buffer: checks {@code len} bytes at {@code msn}/{@code mo}
     * as {@link #onSend} would (the expected message and offset, a posted receive, the length,
     * the buffer's LMRs still registered in the endpoint's PZ), before any of them arrived, and
     * if they fit one contiguous piece of the receive buffer fills {@code target} with it and
     * returns true; the transport then writes the payload there itself and calls {@code onSend}
     * with a null {@code src}, which checks again and completes the segment (and with
     * {@code last}, the receive) without copying. Returns false, changing nothing, otherwise
     * (a Send the buffer cannot hold, no receive posted, an SRQ, bytes that span two LMRs): the
     * transport then calls {@code onSend} with the payload as usual, which fails it if it must.
     * The transport writes into the target only while no close is in progress
     * ({@link Channel#awaitPlacing}).
     */
    default boolean sendTarget(final int msn, final int mo, final int len, final TaggedTarget target)
    {
        return false;
    }

    /**
     * Whether a thread other than the one with id {@code self} holds this side's send claim: it
     * posts a message it may place into the peer itself ({@link Channel#sendNow}). The engine
     * takes the claim with a compare-and-set (a full fence) before it calls {@code sendNow}, and
     * lets go with a release store after it returned. A channel with {@code sendNow} waits while
     * this is true in {@link Channel#awaitPlacing} at the other end and before it reports its
     * close here; one without never asks.
     */
    default boolean sendClaimed(final long self)
    {
        return false;
    }

    /**
     * A whole Send in one segment, placed now if that needs no lock and no waiting: for a
     * channel whose sender's thread places its own messages ({@link Channel#sendNow}), which may
     * hold the sending endpoint's lock while it calls this. True if placed (as {@link #onSend}
     * with mo 0 and last set would have); false, having placed and failed nothing, when the
     * Send needs more (no posted receive, a fault to report, an SRQ): the transport then
     * delivers it through {@code onSend} as usual. The channel calls this under the sender's
     * claim ({@link #sendClaimed} of the sending end's handler, taken with a full fence before
     * the call), which {@link Channel#awaitPlacing} waits for, so the handler needs no mark of its
     * own to order the placement against its close.
     */
    default boolean placeSendNow(final int msn, final boolean solicited, final MemorySegment src, final long off,
        final int len)
    {
        return false;
    }

    /**
     * A whole RDMA Write in one segment, placed now, as {@link #placeSendNow} for a Send: true if
     * placed (as {@link #onWrite} with last set would have); false, having placed and failed
     * nothing, when it does not pass the checks of {@code onWrite} (which then fails it).
     */
    default boolean placeWriteNow(final int stag, final long to, final MemorySegment src, final long off,
        final int len)
    {
        return false;
    }

    /** A tagged segment of an RDMA Write into {@code stag} at {@code to}. */
    boolean onWrite(int stag, long to, boolean last, MemorySegment src, long off, int len);

    /**
     * Direct placement of an RDMA Write segment, for a transport that can move its payload
     * straight from the wire into memory: checks {@code len} bytes at {@code stag}/{@code to}
     * exactly as {@link #onWrite} would, before any of them arrived, and if they may be written
     * fills {@code target} with where they go and returns true; the transport then writes the
     * payload there itself, in place of calling {@code onWrite}. Returns false, changing nothing,
     * when the segment may not be placed (or the engine does not place directly): the transport
     * then calls {@code onWrite} with the payload as usual, which fails it with the Terminate the
     * check calls for.
     */
    default boolean writeTarget(final int stag, final long to, final int len, final TaggedTarget target)
    {
        return false;
    }

    /**
     * An RDMA Read Request (queue 1): read {@code size} bytes at {@code srcStag}/{@code srcTo} of
     * this side and return them to {@code sinkStag}/{@code sinkTo} of the requester.
     */
    boolean onReadRequest(int msn, int sinkStag, long sinkTo, int size, int srcStag, long srcTo);

    /**
     * A tagged segment of an RDMA Read Response into the requester's {@code stag} at {@code to}.
     * {@code src} is null when the transport already placed the payload where
     * {@link #readResponseTarget} said.
     */
    boolean onReadResponse(int stag, long to, boolean last, MemorySegment src, long off, int len);

    /**
     * Direct placement of an RDMA Read Response segment, as {@link #writeTarget} for a Write:
     * if the segment continues the oldest outstanding RDMA Read exactly and its sink may be
     * written, fills {@code target} and returns true; the transport then places the payload
     * there and calls {@link #onReadResponse} with a null {@code src}, which completes the segment
     * (and with {@code last}, the Read). Returns false, changing nothing, otherwise: the transport
     * calls {@code onReadResponse} with the payload as usual, which fails it if it must.
     */
    default boolean readResponseTarget(final int stag, final long to, final boolean last, final int len,
        final TaggedTarget target)
    {
        return false;
    }

    /** The peer sent a Terminate; {@link #onClosed} follows. */
    void onTerminate(TerminateInfo info);

    /**
     * A posted message was transmitted (see {@link Channel#sentMeansPlaced()}); in post order, except
     * that a message that completes once written (shm's Send of one record) may be reported ahead
     * of one posted before it that still waits for the peer: the engine completes requests in post
     * order all the same. Never waits for the sending endpoint's lock: it records the report and
     * leaves it to that lock's holder if the lock is taken, so a channel may call it holding its
     * port's own locks; the completion then appears once the holder lets go.
     */
    void onSent(OutboundMessage message);

    /** The connection is gone. Called once. */
    void onClosed(CloseReason reason);
}

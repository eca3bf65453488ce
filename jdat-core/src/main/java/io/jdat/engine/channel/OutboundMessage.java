package io.jdat.engine.channel;

import java.lang.foreign.MemorySegment;

/**
 * An RDMA message the engine asks a channel to carry: a view of an engine-owned descriptor,
 * valid until {@link ChannelHandler#onSent} is called for it. Which fields mean something
 * depends on the opcode:
 * <pre>
 *   SEND, SEND_WITH_SE   msn                                   payload
 *   RDMA_WRITE           stag (sink), to (sink)                payload
 *   RDMA_READ_REQUEST    msn, stag/to (sink), readSize, srcStag/srcTo
 *   RDMA_READ_RESPONSE   stag (requester's sink), to           payload
 * </pre>
 * The payload is a gather list of {@link #payloadSegments()} pieces, each {@code length} bytes
 * of a memory segment at an offset.
 */
public interface OutboundMessage
{
    /** An {@link RdmapOpcode}; never TERMINATE (see {@link Channel#terminate}). */
    int opcode();

    /** Untagged: the message sequence number on its queue (Send: queue 0, Read Request: queue 1). */
    int msn();

    /** Tagged: the sink STag; Read Request: the requester's sink STag. */
    int stag();

    /** Tagged: the sink tagged offset of the first payload byte; Read Request: the sink TO. */
    long to();

    /** Read Request: bytes to read. */
    int readSize();

    /** Read Request: the data source STag at the responder. */
    int srcStag();

    /** Read Request: the data source tagged offset at the responder. */
    long srcTo();

    /** Number of gather pieces. */
    int payloadSegments();

    MemorySegment payloadMemory(int index);

    long payloadOffset(int index);

    long payloadLength(int index);

    /** Sum of the pieces' lengths. */
    long payloadLength();
}

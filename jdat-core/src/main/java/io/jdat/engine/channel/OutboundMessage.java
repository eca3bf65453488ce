package io.jdat.engine.channel;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * An RDMA message the engine asks a channel to carry: a descriptor the engine fills before
 * {@link Channel#post} and does not touch again until {@link ChannelHandler#onSent} is called
 * for it. Which fields mean something depends on the opcode (the others read 0):
 * <pre>
 *   SEND, SEND_WITH_SE   msn                                   payload
 *   RDMA_WRITE           stag (sink), to (sink)                payload
 *   RDMA_READ_REQUEST    msn, stag/to (sink), readSize, srcStag/srcTo
 *   RDMA_READ_RESPONSE   stag (requester's sink), to           payload
 * </pre>
 * The payload is a gather list of {@link #payloadSegments()} pieces, each {@code length} bytes
 * of a memory segment at an offset. The engine's pooled work requests extend this class, so a
 * posted message costs no allocation; the gather list grows only past the capacity it was
 * made with.
 */
public class OutboundMessage
{
    private int opcode;
    private int msn;
    private int stag;
    private long to;
    private int readSize;
    private int srcStag;
    private long srcTo;

    private MemorySegment[] pieceMemory;
    private long[] pieceOffset;
    private long[] pieceLength;
    private int pieces;
    private long total;

    /** A descriptor whose gather list holds up to {@code pieces} pieces without growing. */
    public OutboundMessage(final int pieces)
    {
        final int n = Math.max(1, pieces);
        pieceMemory = new MemorySegment[n];
        pieceOffset = new long[n];
        pieceLength = new long[n];
    }

    /** Sets every header field at once (the ones an opcode does not use should be 0). */
    public final OutboundMessage describe(final int opcode, final int msn, final int stag, final long to,
        final int readSize, final int srcStag, final long srcTo)
    {
        this.opcode = opcode;
        this.msn = msn;
        this.stag = stag;
        this.to = to;
        this.readSize = readSize;
        this.srcStag = srcStag;
        this.srcTo = srcTo;
        return this;
    }

    /** A Send, or a Send with Solicited Event, with its MSN on queue 0. */
    public final OutboundMessage describeSend(final int msn, final boolean solicited)
    {
        return describe(solicited ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND, msn, 0, 0, 0, 0, 0);
    }

    /** An RDMA Write to the sink STag at the sink tagged offset. */
    public final OutboundMessage describeWrite(final int stag, final long to)
    {
        return describe(RdmapOpcode.RDMA_WRITE, 0, stag, to, 0, 0, 0);
    }

    /** An RDMA Read Request with its MSN on queue 1: {@code size} bytes from the source into the sink. */
    public final OutboundMessage describeReadRequest(final int msn, final int sinkStag, final long sinkTo,
        final int size, final int srcStag, final long srcTo)
    {
        return describe(RdmapOpcode.RDMA_READ_REQUEST, msn, sinkStag, sinkTo, size, srcStag, srcTo);
    }

    /** An RDMA Read Response to the requester's sink STag and tagged offset. */
    public final OutboundMessage describeReadResponse(final int stag, final long to)
    {
        return describe(RdmapOpcode.RDMA_READ_RESPONSE, 0, stag, to, 0, 0, 0);
    }

    /** Empties the gather list and drops its references (so freed memory is not kept reachable). */
    public final OutboundMessage clearPayload()
    {
        Arrays.fill(pieceMemory, 0, pieces, null);
        pieces = 0;
        total = 0;
        return this;
    }

    /**
     * Empties the gather list but keeps its references as they are, for a descriptor that is
     * refilled with the same memory again and again (a pooled work request): {@link #addPayload}
     * then stores no reference where the memory is the one already there. The memory stays
     * reachable until the piece is overwritten; use {@link #clearPayload} where that matters.
     */
    public final OutboundMessage emptyPayload()
    {
        pieces = 0;
        total = 0;
        return this;
    }

    /**
     * Appends {@code length} bytes of {@code memory} at {@code offset} to the gather list. The
     * reference is stored only if it differs from the one left at that position (see
     * {@link #emptyPayload}): a reference store into this long-lived array costs the collector's
     * card-marking barrier, under G1 a full fence.
     */
    public final OutboundMessage addPayload(final MemorySegment memory, final long offset, final long length)
    {
        if (pieces == pieceMemory.length)
        {
            final int n = pieces * 2;
            pieceMemory = Arrays.copyOf(pieceMemory, n);
            pieceOffset = Arrays.copyOf(pieceOffset, n);
            pieceLength = Arrays.copyOf(pieceLength, n);
        }
        if (pieceMemory[pieces] != memory)
        {
            pieceMemory[pieces] = memory;
        }
        pieceOffset[pieces] = offset;
        pieceLength[pieces] = length;
        pieces++;
        total += length;
        return this;
    }

    /** An {@link RdmapOpcode}; never TERMINATE (see {@link Channel#terminate}). */
    public final int opcode()
    {
        return opcode;
    }

    /** Untagged: the message sequence number on its queue (Send: queue 0, Read Request: queue 1). */
    public final int msn()
    {
        return msn;
    }

    /** Tagged: the sink STag; Read Request: the requester's sink STag. */
    public final int stag()
    {
        return stag;
    }

    /** Tagged: the sink tagged offset of the first payload byte; Read Request: the sink TO. */
    public final long to()
    {
        return to;
    }

    /** Read Request: bytes to read. */
    public final int readSize()
    {
        return readSize;
    }

    /** Read Request: the data source STag at the responder. */
    public final int srcStag()
    {
        return srcStag;
    }

    /** Read Request: the data source tagged offset at the responder. */
    public final long srcTo()
    {
        return srcTo;
    }

    /** Number of gather pieces. */
    public final int payloadSegments()
    {
        return pieces;
    }

    public final MemorySegment payloadMemory(final int index)
    {
        return pieceMemory[checkPiece(index)];
    }

    public final long payloadOffset(final int index)
    {
        return pieceOffset[checkPiece(index)];
    }

    public final long payloadLength(final int index)
    {
        return pieceLength[checkPiece(index)];
    }

    /** Sum of the pieces' lengths. */
    public final long payloadLength()
    {
        return total;
    }

    private int checkPiece(final int index)
    {
        if (index < 0 || index >= pieces)
        {
            throw new IndexOutOfBoundsException(index);
        }
        return index;
    }

    @Override
    public String toString()
    {
        return RdmapOpcode.name(opcode) + "[msn=" + msn + ", " + total + " bytes in " + pieces + " pieces]";
    }
}

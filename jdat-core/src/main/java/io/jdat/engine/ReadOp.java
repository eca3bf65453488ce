package io.jdat.engine;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;

/**
 * An RDMA Read Request on the wire, for one local segment of a read work request; it stays
 * outstanding until its Read Response has been placed. Pooled per connection, one per ORD credit.
 */
final class ReadOp implements OutboundMessage
{
    WorkRequest wr;
    int msn;
    /** The local sink: its region (STag) and offset. */
    MemoryRegion sink;
    long sinkOffset;
    /** Bytes to read (at most 2^32 - 1, the wire's limit). */
    long size;
    int srcStag;
    long srcTo;
    /** Bytes of the response placed so far. */
    long received;

    void clear()
    {
        wr = null;
        sink = null;
        received = 0;
    }

    @Override
    public int opcode()
    {
        return RdmapOpcode.RDMA_READ_REQUEST;
    }

    @Override
    public int msn()
    {
        return msn;
    }

    @Override
    public int stag()
    {
        return sink == null ? 0 : sink.stag;
    }

    @Override
    public long to()
    {
        return sink == null ? 0 : sink.base + sinkOffset;
    }

    @Override
    public int readSize()
    {
        return (int) size;
    }

    @Override
    public int srcStag()
    {
        return srcStag;
    }

    @Override
    public long srcTo()
    {
        return srcTo;
    }

    @Override
    public int payloadSegments()
    {
        return 0;
    }

    @Override
    public MemorySegment payloadMemory(final int index)
    {
        throw new IndexOutOfBoundsException(index);
    }

    @Override
    public long payloadOffset(final int index)
    {
        throw new IndexOutOfBoundsException(index);
    }

    @Override
    public long payloadLength(final int index)
    {
        throw new IndexOutOfBoundsException(index);
    }

    @Override
    public long payloadLength()
    {
        return 0;
    }
}

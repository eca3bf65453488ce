package io.jdat.engine;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;

/**
 * An RDMA Read Response this side owes its peer: the bytes of a validated source range, sent to
 * the requester's sink. Pooled per connection, one per IRD credit.
 */
final class ReadResponse implements OutboundMessage
{
    int sinkStag;
    long sinkTo;
    MemorySegment memory;
    long offset;
    int length;

    void clear()
    {
        memory = null;
    }

    @Override
    public int opcode()
    {
        return RdmapOpcode.RDMA_READ_RESPONSE;
    }

    @Override
    public int msn()
    {
        return 0;
    }

    @Override
    public int stag()
    {
        return sinkStag;
    }

    @Override
    public long to()
    {
        return sinkTo;
    }

    @Override
    public int readSize()
    {
        return 0;
    }

    @Override
    public int srcStag()
    {
        return 0;
    }

    @Override
    public long srcTo()
    {
        return 0;
    }

    @Override
    public int payloadSegments()
    {
        return length == 0 ? 0 : 1;
    }

    @Override
    public MemorySegment payloadMemory(final int index)
    {
        return memory;
    }

    @Override
    public long payloadOffset(final int index)
    {
        return offset;
    }

    @Override
    public long payloadLength(final int index)
    {
        return length;
    }

    @Override
    public long payloadLength()
    {
        return length;
    }
}

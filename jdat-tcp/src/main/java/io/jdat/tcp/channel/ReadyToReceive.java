package io.jdat.tcp.channel;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;

/** The RFC 6581 ready-to-receive message: a zero-length RDMA Write, STag 0, TO 0. */
final class ReadyToReceive implements OutboundMessage
{
    @Override
    public int opcode()
    {
        return RdmapOpcode.RDMA_WRITE;
    }

    @Override
    public int msn()
    {
        return 0;
    }

    @Override
    public int stag()
    {
        return 0;
    }

    @Override
    public long to()
    {
        return 0;
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

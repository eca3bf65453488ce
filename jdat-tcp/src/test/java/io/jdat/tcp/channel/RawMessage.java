package io.jdat.tcp.channel;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;

/** An {@link OutboundMessage} a raw test peer encodes itself: one heap payload piece. */
record RawMessage(int opcode, int msn, int stag, long to, int readSize, int srcStag, long srcTo, byte[] payload)
    implements OutboundMessage
{
    static RawMessage send(final int msn, final byte[] payload)
    {
        return new RawMessage(RdmapOpcode.SEND, msn, 0, 0, 0, 0, 0, payload);
    }

    static RawMessage write(final int stag, final long to, final byte[] payload)
    {
        return new RawMessage(RdmapOpcode.RDMA_WRITE, 0, stag, to, 0, 0, 0, payload);
    }

    @Override
    public int payloadSegments()
    {
        return payload.length == 0 ? 0 : 1;
    }

    @Override
    public MemorySegment payloadMemory(final int index)
    {
        return MemorySegment.ofArray(payload);
    }

    @Override
    public long payloadOffset(final int index)
    {
        return 0;
    }

    @Override
    public long payloadLength(final int index)
    {
        return payload.length;
    }

    @Override
    public long payloadLength()
    {
        return payload.length;
    }
}

package io.jdat.tcp.channel;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;

/** An {@link OutboundMessage} a raw test peer encodes itself: one heap payload piece. */
final class RawMessage extends OutboundMessage
{
    final byte[] payload;

    RawMessage(final int opcode, final int msn, final int stag, final long to, final int readSize, final int srcStag,
        final long srcTo, final byte[] payload)
    {
        super(1);
        this.payload = payload;
        describe(opcode, msn, stag, to, readSize, srcStag, srcTo);
        if (payload.length > 0)
        {
            addPayload(MemorySegment.ofArray(payload), 0, payload.length);
        }
    }

    static RawMessage send(final int msn, final byte[] payload)
    {
        return new RawMessage(RdmapOpcode.SEND, msn, 0, 0, 0, 0, 0, payload);
    }

    static RawMessage write(final int stag, final long to, final byte[] payload)
    {
        return new RawMessage(RdmapOpcode.RDMA_WRITE, 0, stag, to, 0, 0, 0, payload);
    }
}

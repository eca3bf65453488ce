package io.jdat.tcp;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

/** An {@link OutboundMessage} for tests: a payload cut into gather pieces on the heap or off it. */
final class TestMessage extends OutboundMessage
{
    private static final int PIECE_PREFIX = 7;

    final int opcode;
    final int msn;
    final int stag;
    final long to;
    final int readSize;
    final int srcStag;
    final long srcTo;
    final byte[] payload;

    private TestMessage(final int opcode, final int msn, final int stag, final long to, final int readSize,
        final int srcStag, final long srcTo, final byte[] payload)
    {
        super(1);
        describe(opcode, msn, stag, to, readSize, srcStag, srcTo);
        this.opcode = opcode;
        this.msn = msn;
        this.stag = stag;
        this.to = to;
        this.readSize = readSize;
        this.srcStag = srcStag;
        this.srcTo = srcTo;
        this.payload = payload;
        if (payload.length > 0)
        {
            addPiece(payload, 0, payload.length, false);
        }
    }

    static TestMessage send(final int msn, final byte[] payload)
    {
        return new TestMessage(RdmapOpcode.SEND, msn, 0, 0, 0, 0, 0, payload);
    }

    static TestMessage sendWithSe(final int msn, final byte[] payload)
    {
        return new TestMessage(RdmapOpcode.SEND_WITH_SE, msn, 0, 0, 0, 0, 0, payload);
    }

    static TestMessage write(final int stag, final long to, final byte[] payload)
    {
        return new TestMessage(RdmapOpcode.RDMA_WRITE, 0, stag, to, 0, 0, 0, payload);
    }

    static TestMessage readResponse(final int stag, final long to, final byte[] payload)
    {
        return new TestMessage(RdmapOpcode.RDMA_READ_RESPONSE, 0, stag, to, 0, 0, 0, payload);
    }

    static TestMessage readRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
        final int srcStag, final long srcTo)
    {
        return new TestMessage(RdmapOpcode.RDMA_READ_REQUEST, msn, sinkStag, sinkTo, size, srcStag, srcTo, new byte[0]);
    }

    /** Any opcode (for tests that check refusals). */
    static TestMessage raw(final int opcode, final byte[] payload)
    {
        return new TestMessage(opcode, 1, 0, 0, 0, 0, 0, payload);
    }

    /** A message of the given opcode with header fields drawn from {@code random}. */
    static TestMessage random(final int opcode, final int msn, final byte[] payload, final Random random)
    {
        return switch (opcode)
        {
            case RdmapOpcode.SEND -> send(msn, payload);
            case RdmapOpcode.SEND_WITH_SE -> sendWithSe(msn, payload);
            case RdmapOpcode.RDMA_WRITE -> write(random.nextInt(), random.nextLong(), payload);
            case RdmapOpcode.RDMA_READ_RESPONSE -> readResponse(random.nextInt(), random.nextLong(), payload);
            case RdmapOpcode.RDMA_READ_REQUEST -> readRequest(msn, random.nextInt(), random.nextLong(),
                random.nextInt(), random.nextInt(), random.nextLong());
            default -> throw new IllegalArgumentException("opcode " + opcode);
        };
    }

    /**
     * Cuts the payload again into pieces at random places (zero-length pieces included), each
     * on the heap or in native memory at a non-zero offset.
     */
    TestMessage scatter(final Random random)
    {
        clearPayload();
        int at = 0;
        while (at < payload.length)
        {
            final int n = random.nextInt(4) == 0
                ? 0 : 1 + random.nextInt(Math.max(1, Math.min(payload.length - at, 3000)));
            final int len = Math.min(n, payload.length - at);
            addPiece(payload, at, len, random.nextBoolean());
            at += len;
        }
        if (random.nextBoolean())
        {
            addPiece(payload, payload.length, 0, random.nextBoolean());
        }
        return this;
    }

    /** Cuts the payload again into pieces at random places, all of them in native memory. */
    TestMessage scatterNative(final Random random)
    {
        clearPayload();
        int at = 0;
        while (at < payload.length)
        {
            final int len = Math.min(payload.length - at, 1 + random.nextInt(Math.max(1, payload.length / 3)));
            addPiece(payload, at, len, true);
            at += len;
        }
        return this;
    }

    /** The payload again, in {@code n} pieces of native memory of about the same length. */
    TestMessage nativePieces(final int n)
    {
        clearPayload();
        for (int i = 0; i < n; i++)
        {
            final int from = (int) ((long) payload.length * i / n);
            addPiece(payload, from, (int) ((long) payload.length * (i + 1) / n) - from, true);
        }
        return this;
    }

    private void addPiece(final byte[] source, final int from, final int length, final boolean offHeap)
    {
        final MemorySegment memory;
        if (offHeap)
        {
            memory = Arena.ofAuto().allocate(length + PIECE_PREFIX);
        }
        else
        {
            memory = MemorySegment.ofArray(new byte[length + PIECE_PREFIX]);
        }
        MemorySegment.copy(source, from, memory, ValueLayout.JAVA_BYTE, PIECE_PREFIX, length);
        addPayload(memory, PIECE_PREFIX, length);
    }

    @Override
    public String toString()
    {
        return RdmapOpcode.name(opcode) + "[msn=" + msn + ", payload=" + payload.length + ", pieces="
            + payloadSegments() + "]";
    }
}

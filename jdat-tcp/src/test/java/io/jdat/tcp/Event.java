package io.jdat.tcp;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateInfo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/** One callback a {@link RecordingHandler} saw, with a copy of its payload. */
record Event(Kind kind, boolean last, boolean solicited, int msn, int mo, int stag, long to, int size, int srcStag,
    long srcTo, byte[] payload, TerminateInfo terminate)
{
    enum Kind
    {
        SEND, WRITE, READ_REQUEST, READ_RESPONSE, TERMINATE
    }

    private static final byte[] NONE = new byte[0];

    static Event send(final int msn, final int mo, final boolean last, final boolean solicited, final byte[] payload)
    {
        return new Event(Kind.SEND, last, solicited, msn, mo, 0, 0, 0, 0, 0, payload, null);
    }

    static Event write(final int stag, final long to, final boolean last, final byte[] payload)
    {
        return new Event(Kind.WRITE, last, false, 0, 0, stag, to, 0, 0, 0, payload, null);
    }

    static Event readResponse(final int stag, final long to, final boolean last, final byte[] payload)
    {
        return new Event(Kind.READ_RESPONSE, last, false, 0, 0, stag, to, 0, 0, 0, payload, null);
    }

    static Event readRequest(final int msn, final int sinkStag, final long sinkTo, final int size, final int srcStag,
        final long srcTo)
    {
        return new Event(Kind.READ_REQUEST, true, false, msn, 0, sinkStag, sinkTo, size, srcStag, srcTo, NONE, null);
    }

    static Event terminate(final TerminateInfo info)
    {
        return new Event(Kind.TERMINATE, true, false, 0, 0, 0, 0, 0, 0, 0, NONE, info);
    }

    /** The largest ULPDU whose FPDU fits in {@code maxFpdu}, found by search rather than formula. */
    static int maxUlpdu(final int maxFpdu)
    {
        for (int length = Math.min(0xFFFF, maxFpdu); length >= 0; length--)
        {
            final int fpdu = ((2 + length + 3) & ~3) + 4;
            if (fpdu <= maxFpdu)
            {
                return length;
            }
        }
        throw new IllegalArgumentException("max FPDU " + maxFpdu);
    }

    /**
     * The next segment's payload when {@code rest} bytes are left and a segment carries at most
     * {@code max}: the fewest segments, of even length, each a multiple of 8 while that fits.
     */
    static int segmentPayload(final int rest, final int max)
    {
        int segments = 1;
        while ((long) segments * max < rest)
        {
            segments++;
        }
        final int even = rest / segments + (rest % segments == 0 ? 0 : 1);
        final int rounded = even % 8 == 0 ? even : even + 8 - even % 8;
        return segments == 1 ? rest : rounded <= max ? rounded : even;
    }

    /** The segments a correct encoder with this FPDU bound makes of {@code m}, as the peer sees them. */
    static List<Event> expected(final TestMessage m, final int maxFpdu)
    {
        final List<Event> events = new ArrayList<>();
        if (m.opcode == RdmapOpcode.RDMA_READ_REQUEST)
        {
            events.add(readRequest(m.msn, m.stag, m.to, m.readSize, m.srcStag, m.srcTo));
            return events;
        }
        final boolean tagged = m.opcode == RdmapOpcode.RDMA_WRITE || m.opcode == RdmapOpcode.RDMA_READ_RESPONSE;
        final int perSegment = maxUlpdu(maxFpdu) - (tagged ? 14 : 18);
        int offset = 0;
        do
        {
            final int n = segmentPayload(m.payload.length - offset, perSegment);
            final boolean last = offset + n == m.payload.length;
            final byte[] piece = Arrays.copyOfRange(m.payload, offset, offset + n);
            events.add(switch (m.opcode)
            {
                case RdmapOpcode.RDMA_WRITE -> write(m.stag, m.to + offset, last, piece);
                case RdmapOpcode.RDMA_READ_RESPONSE -> readResponse(m.stag, m.to + offset, last, piece);
                default -> send(m.msn, offset, last, m.opcode == RdmapOpcode.SEND_WITH_SE, piece);
            });
            offset += n;
        }
        while (offset < m.payload.length);
        return events;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof Event that && kind == that.kind && last == that.last && solicited == that.solicited
            && msn == that.msn && mo == that.mo && stag == that.stag && to == that.to && size == that.size
            && srcStag == that.srcStag && srcTo == that.srcTo && Arrays.equals(payload, that.payload)
            && Objects.equals(terminate, that.terminate);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(kind, last, msn, mo, stag, to) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString()
    {
        final String data = payload.length <= 16 ? HexFormat.of().formatHex(payload) : payload.length + " bytes";
        return switch (kind)
        {
            case SEND -> "Send[msn=" + msn + " mo=" + mo + " last=" + last + " se=" + solicited + " " + data + "]";
            case WRITE, READ_RESPONSE -> kind + String.format("[stag=%08x to=%x last=%s ", stag, to, last) + data + "]";
            case READ_REQUEST -> String.format("ReadRequest[msn=%d sink=%08x/%x size=%d src=%08x/%x]", msn, stag, to,
                size, srcStag, srcTo);
            case TERMINATE -> "Terminate[" + terminate + "]";
        };
    }
}

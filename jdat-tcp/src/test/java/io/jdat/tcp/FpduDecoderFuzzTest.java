package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: the FPDUs (MPA framing, DDP and RDMAP headers) a peer sends once a connection is
 * up, as {@link FpduDecoder} reads them from the receive buffer.
 *
 * <p>Input: byte 0 holds options (bit 0 CRC agreed, bit 1 recompute the CRC of every FPDU before
 * feeding it, so damage other than to the CRC gets past the first check; bit 2 a direct receive
 * buffer), byte 1 the chunk size the bytes arrive in (0: all at once), the rest is the stream.
 * For every input:
 * <ul>
 *   <li>the decoder throws nothing and never hands out a payload outside the bytes it was given
 *       ({@link RecordingHandler} checks each callback);</li>
 *   <li>it delivers exactly what a reading of the stream written here from the Javadoc's list of
 *       checks delivers, segment for segment, and stops where that reading stops, with the same
 *       Terminate layer, type and code;</li>
 *   <li>the chunks the bytes arrive in change nothing;</li>
 *   <li>after it stopped it stays stopped, and delivers nothing more.</li>
 * </ul>
 */
class FpduDecoderFuzzTest
{
    private static final int OPT_CRC = 1;
    private static final int OPT_FIX_CRC = 2;
    private static final int OPT_DIRECT = 4;

    static Stream<Arguments> streams()
    {
        final Random random = new Random(5044);
        final List<Arguments> seeds = new ArrayList<>();
        for (final boolean crc : new boolean[] {false, true})
        {
            final List<TestMessage> messages = List.of(TestMessage.send(1, bytes(random, 40)),
                TestMessage.write(0x1234_5601, 0x1000, bytes(random, 70)),
                TestMessage.readRequest(1, 0x77, 0x2000, 64, 0x1234_5601, 0x1000),
                TestMessage.sendWithSe(2, bytes(random, 3)),
                TestMessage.readResponse(0x88, 0x3000, bytes(random, 9)));
            final FpduEncoder encoder = new FpduEncoder(crc, Fpdu.MIN_MAX_FPDU_LENGTH + 24);
            final byte[] stream = Streams.encode(encoder, messages);
            final TerminateInfo info = TerminateInfo.untagged(TerminateCodes.LAYER_DDP,
                TerminateCodes.DDP_UNTAGGED_BUFFER, TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, RdmapOpcode.SEND, 0,
                9, 0);
            final ByteBuffer terminate = ByteBuffer.allocate(FpduEncoder.terminateFpduLength(info));
            encoder.encodeTerminate(terminate, info);
            final byte[] withTerminate = Streams.concat(stream, Arrays.copyOf(terminate.array(), terminate.position()));
            seeds.add(arguments(input(crc ? OPT_CRC : 0, 0, stream)));
            seeds.add(arguments(input(crc ? OPT_CRC | OPT_FIX_CRC : OPT_DIRECT, 7, withTerminate)));
        }
        return seeds.stream();
    }

    private static byte[] bytes(final Random random, final int n)
    {
        final byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] input(final int options, final int chunk, final byte[] stream)
    {
        return Streams.concat(new byte[] {(byte) options, (byte) chunk}, stream);
    }

    @MethodSource("streams")
    @FuzzTest(maxDuration = "4s")
    void fpduStreamsFromAPeer(final byte[] input)
    {
        if (input == null || input.length < 2)
        {
            return;
        }
        final int options = input[0];
        final boolean crc = (options & OPT_CRC) != 0;
        final int chunk = input[1] & 0xFF;
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);
        if (crc && (options & OPT_FIX_CRC) != 0)
        {
            stream = fixCrcs(stream);
        }

        final Reading expected = Reading.of(stream, crc);

        final RecordingHandler handler = new RecordingHandler();
        final FpduDecoder decoder = new FpduDecoder(crc);
        final ByteBuffer buffer = Feeder.receiveBuffer((options & OPT_DIRECT) != 0);
        final Feeder.Outcome outcome = Feeder.feed(decoder, handler, stream,
            () -> chunk == 0 ? Integer.MAX_VALUE : chunk, buffer);

        assertEquals(expected.events, handler.events, "segments delivered");
        assertEquals(expected.status, outcome.status());
        assertEquals(expected.consumed, outcome.consumed(), "bytes consumed");
        switch (outcome.status())
        {
            case NEED_MORE ->
            {
                assertNull(decoder.terminateInfo());
                assertTrue(outcome.leftInBuffer() < decoder.bytesNeeded(), outcome + " needs " + decoder.bytesNeeded());
                assertTrue(decoder.bytesNeeded() <= Fpdu.MAX_FPDU_LENGTH);
            }
            case PROTOCOL_ERROR ->
            {
                final TerminateInfo t = decoder.terminateInfo();
                assertNotNull(t);
                assertEquals(expected.error, List.of(t.layer(), t.etype(), t.code()), t.toString());
            }
            case TERMINATE_RECEIVED ->
            {
                assertNotNull(decoder.receivedTerminate());
                assertEquals(decoder.receivedTerminate(), handler.events.getLast().terminate());
            }
            case HANDLER_STOPPED -> throw new AssertionError("the handler accepted every segment");
        }

        // once stopped, it stays stopped
        if (outcome.status() != FpduDecoder.Status.NEED_MORE)
        {
            final int delivered = handler.events.size();
            buffer.flip();
            assertEquals(outcome.status(), decoder.decode(buffer, handler));
            assertEquals(delivered, handler.events.size());
        }
    }

    /** Rewrites the CRC field of every whole FPDU so that it is right. */
    private static byte[] fixCrcs(final byte[] stream)
    {
        final byte[] fixed = stream.clone();
        int at = 0;
        while (at + 2 <= fixed.length)
        {
            final int ulpdu = ((fixed[at] & 0xFF) << 8) | (fixed[at + 1] & 0xFF);
            final int covered = (2 + ulpdu + 3) & ~3;
            if (at + covered + 4 > fixed.length)
            {
                break;
            }
            final CRC32C c = new CRC32C();
            c.update(fixed, at, covered);
            ByteBuffer.wrap(fixed, at + covered, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) c.getValue());
            at += covered + 4;
        }
        return fixed;
    }

    /**
     * The stream read by the rules of RFC 5044 (framing), RFC 5041 (DDP) and RFC 5040 (RDMAP) as
     * {@link FpduDecoder}'s Javadoc lists them, field by field from the drawings, independently of
     * the decoder's code.
     */
    private record Reading(List<Event> events, FpduDecoder.Status status, int consumed, List<Integer> error)
    {
        static Reading of(final byte[] s, final boolean crc)
        {
            final ByteBuffer b = ByteBuffer.wrap(s);
            final List<Event> events = new ArrayList<>();
            int at = 0;
            while (s.length - at >= 2)
            {
                final int length = b.getShort(at) & 0xFFFF;
                final int covered = (2 + length + 3) & ~3;
                if (s.length - at < covered + 4)
                {
                    break;
                }
                final List<Integer> error = check(b, at, length, covered, crc);
                if (error != null)
                {
                    return new Reading(events, FpduDecoder.Status.PROTOCOL_ERROR, at, error);
                }
                final int seg = at + 2;
                final boolean last = (s[seg] & 0x40) != 0;
                final int opcode = s[seg + 1] & 0x0F;
                at += covered + 4;
                switch (opcode)
                {
                    case RdmapOpcode.RDMA_WRITE -> events.add(Event.write(b.getInt(seg + 2), b.getLong(seg + 6), last,
                        Arrays.copyOfRange(s, seg + 14, seg + length)));
                    case RdmapOpcode.RDMA_READ_RESPONSE -> events.add(Event.readResponse(b.getInt(seg + 2),
                        b.getLong(seg + 6), last, Arrays.copyOfRange(s, seg + 14, seg + length)));
                    case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE -> events.add(Event.send(b.getInt(seg + 10),
                        b.getInt(seg + 14), last, opcode == RdmapOpcode.SEND_WITH_SE,
                        Arrays.copyOfRange(s, seg + 18, seg + length)));
                    case RdmapOpcode.RDMA_READ_REQUEST -> events.add(Event.readRequest(b.getInt(seg + 10),
                        b.getInt(seg + 18), b.getLong(seg + 22), b.getInt(seg + 30), b.getInt(seg + 34),
                        b.getLong(seg + 38)));
                    default ->
                    {
                        // Terminate: the layer, type and code word, then the copied header if D says so
                        final int control = b.getInt(seg + 18);
                        final int layer = control >>> 28;
                        final int etype = (control >>> 24) & 0xF;
                        final int code = (control >>> 16) & 0xFF;
                        events.add(Event.terminate(terminated(b, seg + 24, length - 24, (control & 0x4000) != 0,
                            layer, etype, code)));
                        return new Reading(events, FpduDecoder.Status.TERMINATE_RECEIVED, at, null);
                    }
                }
            }
            return new Reading(events, FpduDecoder.Status.NEED_MORE, at, null);
        }

        /** The Terminate's copy of the offending header, when D is set and all of it is there. */
        private static TerminateInfo terminated(final ByteBuffer b, final int copy, final int room, final boolean d,
            final int layer, final int etype, final int code)
        {
            if (!d || room < 2)
            {
                return TerminateInfo.of(layer, etype, code);
            }
            final boolean tagged = (b.get(copy) & 0x80) != 0;
            final int opcode = b.get(copy + 1) & 0x0F;
            if (tagged)
            {
                return room < 14 ? TerminateInfo.of(layer, etype, code)
                    : TerminateInfo.tagged(layer, etype, code, opcode, b.getInt(copy + 2), b.getLong(copy + 6));
            }
            return room < 18 ? TerminateInfo.of(layer, etype, code)
                : TerminateInfo.untagged(layer, etype, code, opcode, b.getInt(copy + 6), b.getInt(copy + 10),
                    b.getInt(copy + 14));
        }

        /** Layer, type and code of the first rule one whole FPDU breaks, or null. */
        private static List<Integer> check(final ByteBuffer b, final int at, final int length, final int covered,
            final boolean crc)
        {
            if (crc)
            {
                final CRC32C c = new CRC32C();
                c.update(b.array(), at, covered);
                if ((int) c.getValue() != b.order(ByteOrder.LITTLE_ENDIAN).getInt(at + covered))
                {
                    b.order(ByteOrder.BIG_ENDIAN);
                    return List.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR);
                }
                b.order(ByteOrder.BIG_ENDIAN);
            }
            if (length < 2)
            {
                return List.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_FPDU_MARKER_MISMATCH);
            }
            final int seg = at + 2;
            final boolean tagged = (b.get(seg) & 0x80) != 0;
            if ((b.get(seg) & 0x03) != 1)
            {
                return tagged
                    ? List.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER,
                        TerminateCodes.DDP_TAGGED_INVALID_VERSION)
                    : List.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
                        TerminateCodes.DDP_UNTAGGED_INVALID_VERSION);
            }
            final List<Integer> unexpected = List.of(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
                TerminateCodes.RDMAP_UNEXPECTED_OPCODE);
            if (((b.get(seg + 1) >> 6) & 0x03) != 1)
            {
                return List.of(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
                    TerminateCodes.RDMAP_INVALID_VERSION);
            }
            final int opcode = b.get(seg + 1) & 0x0F;
            final int header;
            final int queue;
            switch (opcode)
            {
                case RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE ->
                {
                    header = 14;
                    queue = -1;
                }
                case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE ->
                {
                    header = 18;
                    queue = 0;
                }
                case RdmapOpcode.RDMA_READ_REQUEST ->
                {
                    header = 46;
                    queue = 1;
                }
                case RdmapOpcode.TERMINATE ->
                {
                    header = 22;
                    queue = 2;
                }
                default ->
                {
                    // Send with Invalidate (4, 6) and the undefined opcodes
                    return unexpected;
                }
            }
            if (tagged != (queue < 0))
            {
                return unexpected;
            }
            if (length < header)
            {
                return List.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_FPDU_MARKER_MISMATCH);
            }
            if (tagged)
            {
                return null;
            }
            if (b.getInt(seg + 6) != queue)
            {
                return List.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
                    TerminateCodes.DDP_UNTAGGED_INVALID_QN);
            }
            if (opcode == RdmapOpcode.RDMA_READ_REQUEST)
            {
                if (b.getInt(seg + 14) != 0)
                {
                    return List.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
                        TerminateCodes.DDP_UNTAGGED_INVALID_MO);
                }
                if ((b.get(seg) & 0x40) == 0 || length != 46)
                {
                    return List.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
                        TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG);
                }
            }
            return null;
        }
    }
}

package io.jdat.tcp;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whatever bytes arrive, in whatever chunks: the decoder never throws, never hands out a payload
 * outside the bytes it was given ({@link RecordingHandler} checks that inside every call), and
 * either delivers segments or stops with a Terminate. Valid streams come back exactly; damaged
 * ones come back exactly up to the first damaged byte, and with CRC on not one segment further.
 */
class FpduDecoderPropertiesTest
{
    record MessageSpec(int opcode, int size)
    {
    }

    enum MutationKind
    {
        FLIP, INSERT, DELETE, TRUNCATE, SET_LENGTH
    }

    record Mutation(MutationKind kind, double where, int value)
    {
    }

    @Provide
    Arbitrary<List<MessageSpec>> messages()
    {
        final Arbitrary<Integer> opcodes = Arbitraries.of(RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE,
            RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE, RdmapOpcode.RDMA_READ_REQUEST);
        final Arbitrary<Integer> sizes = Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.integers().between(0, 64)),
            Tuple.of(3, Arbitraries.integers().between(0, 3000)),
            Tuple.of(1, Arbitraries.integers().between(0, 70_000)));
        return Combinators.combine(opcodes, sizes).as(MessageSpec::new).list().ofMinSize(1).ofMaxSize(8);
    }

    @Provide
    Arbitrary<Integer> maxFpdu()
    {
        return Arbitraries.oneOf(Arbitraries.of(Fpdu.MIN_MAX_FPDU_LENGTH, 1448, Fpdu.DEFAULT_MAX_FPDU_LENGTH),
            Arbitraries.integers().between(Fpdu.MIN_MAX_FPDU_LENGTH, 4000));
    }

    @Provide
    Arbitrary<List<Mutation>> mutations()
    {
        final Arbitrary<Integer> values = Arbitraries.oneOf(Arbitraries.of(0, 1, 2, 13, 14, 17, 18, 21, 22, 45, 46,
            47, 0xFFFF), Arbitraries.integers().between(0, 0xFFFF));
        return Combinators.combine(Arbitraries.of(MutationKind.class), Arbitraries.doubles().between(0, 1), values)
            .as(Mutation::new).list().ofMinSize(1).ofMaxSize(4);
    }

    /** A stream of FPDUs for {@code specs} (perhaps ending in a Terminate) and the segments it must decode to. */
    private static List<Event> build(final List<MessageSpec> specs, final int maxFpdu, final boolean crc,
        final boolean terminate, final Random random, final ByteArrayOutputStream stream)
    {
        final List<TestMessage> messages = new ArrayList<>();
        final List<Event> expected = new ArrayList<>();
        int msn = 1;
        for (final MessageSpec spec : specs)
        {
            final byte[] payload = new byte[spec.opcode() == RdmapOpcode.RDMA_READ_REQUEST ? 0 : spec.size()];
            random.nextBytes(payload);
            final TestMessage message = TestMessage.random(spec.opcode(), msn++, payload, random).scatter(random);
            messages.add(message);
            expected.addAll(Event.expected(message, maxFpdu));
        }
        final FpduEncoder encoder = new FpduEncoder(crc, maxFpdu);
        stream.writeBytes(Streams.encode(encoder, messages, maxFpdu));
        if (terminate)
        {
            final TerminateInfo info = TerminateInfo.untagged(TerminateCodes.LAYER_DDP,
                TerminateCodes.DDP_UNTAGGED_BUFFER, TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, RdmapOpcode.SEND,
                0, random.nextInt(), random.nextInt());
            final ByteBuffer buffer = ByteBuffer.allocate(FpduEncoder.terminateFpduLength(info));
            encoder.encodeTerminate(buffer, info);
            stream.writeBytes(buffer.array());
            expected.add(Event.terminate(info));
        }
        return expected;
    }

    private static int[] fpduEnds(final byte[] stream)
    {
        final List<Integer> ends = new ArrayList<>();
        int at = 0;
        while (at < stream.length)
        {
            at += Fpdu.fpduLength(((stream[at] & 0xFF) << 8) | (stream[at + 1] & 0xFF));
            ends.add(at);
        }
        return ends.stream().mapToInt(Integer::intValue).toArray();
    }

    private static byte[] mutate(final byte[] original, final List<Mutation> mutations)
    {
        byte[] bytes = original.clone();
        for (final Mutation m : mutations)
        {
            final int at = (int) Math.min(bytes.length, Math.floor(m.where() * bytes.length));
            switch (m.kind())
            {
                case FLIP ->
                {
                    if (at < bytes.length)
                    {
                        bytes[at] ^= (byte) (1 << (m.value() & 7));
                    }
                }
                case INSERT ->
                {
                    final byte[] longer = new byte[bytes.length + 1];
                    System.arraycopy(bytes, 0, longer, 0, at);
                    longer[at] = (byte) m.value();
                    System.arraycopy(bytes, at, longer, at + 1, bytes.length - at);
                    bytes = longer;
                }
                case DELETE ->
                {
                    if (at < bytes.length)
                    {
                        final byte[] shorter = new byte[bytes.length - 1];
                        System.arraycopy(bytes, 0, shorter, 0, at);
                        System.arraycopy(bytes, at + 1, shorter, at, bytes.length - at - 1);
                        bytes = shorter;
                    }
                }
                case TRUNCATE -> bytes = java.util.Arrays.copyOf(bytes, at);
                case SET_LENGTH ->
                {
                    // overwrite the length field of an FPDU of the original framing, if still in range
                    final int[] ends = fpduEnds(original);
                    final int index = (int) Math.min(ends.length - 1, Math.floor(m.where() * ends.length));
                    final int start = index == 0 ? 0 : ends[index - 1];
                    if (start + 1 < bytes.length)
                    {
                        bytes[start] = (byte) (m.value() >>> 8);
                        bytes[start + 1] = (byte) m.value();
                    }
                }
            }
        }
        return bytes;
    }

    private static int firstDifference(final byte[] a, final byte[] b)
    {
        final int common = Math.min(a.length, b.length);
        for (int i = 0; i < common; i++)
        {
            if (a[i] != b[i])
            {
                return i;
            }
        }
        return common;
    }

    @Property(tries = 150)
    void validStreamsDecodeToExactlyTheEncodedSegments(@ForAll("messages") final List<MessageSpec> specs,
        @ForAll("maxFpdu") final int maxFpdu, @ForAll final boolean crc, @ForAll final boolean terminate,
        @ForAll @IntRange(min = 1, max = 9000) final int maxChunk, @ForAll final long seed)
    {
        final Random random = new Random(seed);
        final ByteArrayOutputStream stream = new ByteArrayOutputStream();
        final List<Event> expected = build(specs, maxFpdu, crc, terminate, random, stream);
        final RecordingHandler handler = new RecordingHandler();
        final FpduDecoder decoder = new FpduDecoder(crc);
        final Feeder.Outcome outcome = Feeder.feed(decoder, handler, stream.toByteArray(),
            () -> 1 + random.nextInt(maxChunk), Feeder.receiveBuffer(random.nextBoolean()));
        assertEquals(terminate ? FpduDecoder.Status.TERMINATE_RECEIVED : FpduDecoder.Status.NEED_MORE,
            outcome.status());
        assertEquals(0, outcome.leftInBuffer());
        assertEquals(expected, handler.events);
    }

    @Property(tries = 300)
    @StatisticsReport(onFailureOnly = true)
    void damagedStreamsNeverBreakTheDecoder(@ForAll("messages") final List<MessageSpec> specs,
        @ForAll("maxFpdu") final int maxFpdu, @ForAll final boolean crc, @ForAll final boolean terminate,
        @ForAll("mutations") final List<Mutation> mutations, @ForAll @IntRange(min = 1, max = 9000) final int maxChunk,
        @ForAll final long seed)
    {
        final Random random = new Random(seed);
        final ByteArrayOutputStream stream = new ByteArrayOutputStream();
        final List<Event> expected = build(specs, maxFpdu, crc, terminate, random, stream);
        final byte[] original = stream.toByteArray();
        final byte[] damaged = mutate(original, mutations);

        final RecordingHandler handler = new RecordingHandler();
        final FpduDecoder decoder = new FpduDecoder(crc);
        final ByteBuffer buffer = Feeder.receiveBuffer(random.nextBoolean());
        final Feeder.Outcome outcome = Feeder.feed(decoder, handler, damaged, () -> 1 + random.nextInt(maxChunk),
            buffer);

        assertNotEquals(FpduDecoder.Status.HANDLER_STOPPED, outcome.status());
        Statistics.label("damaged: outcome").collect(outcome.status());
        Statistics.label("damaged: delivered").collect(handler.events.isEmpty() ? "none" : "some");
        if (outcome.status() == FpduDecoder.Status.PROTOCOL_ERROR)
        {
            assertNotNull(decoder.terminateInfo());
            assertTrue(decoder.terminateInfo().layer() <= TerminateCodes.LAYER_LLP);
        }
        if (outcome.status() == FpduDecoder.Status.TERMINATE_RECEIVED)
        {
            assertEquals(Event.Kind.TERMINATE, handler.events.getLast().kind());
        }
        for (final Event event : handler.events)
        {
            assertTrue(event.payload().length <= Fpdu.MAX_ULPDU_LENGTH - DdpRdmap.TAGGED_HEADER_LENGTH);
        }

        // the FPDUs wholly before the first damaged byte come back exactly
        final int intact = firstDifference(original, damaged);
        int before = 0;
        for (final int end : fpduEnds(original))
        {
            if (end <= intact)
            {
                before++;
            }
        }
        assertTrue(handler.events.size() >= before, handler.events.size() + " < " + before);
        assertEquals(expected.subList(0, before), handler.events.subList(0, before));
        if (crc)
        {
            // and with CRC on, nothing damaged gets through
            assertEquals(expected.subList(0, before), handler.events);
            if (outcome.status() == FpduDecoder.Status.PROTOCOL_ERROR)
            {
                assertEquals(TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR),
                    decoder.terminateInfo());
            }
        }

        // once stopped, it stays stopped
        if (outcome.status() != FpduDecoder.Status.NEED_MORE)
        {
            final int delivered = handler.events.size();
            buffer.flip();
            assertEquals(outcome.status(), decoder.decode(buffer, handler));
            assertEquals(delivered, handler.events.size());
        }
        // the generator must reach both ends: caught damage and damage past the end of what was delivered
        Statistics.label("damaged: outcome").coverage(coverage ->
        {
            coverage.check(FpduDecoder.Status.PROTOCOL_ERROR).percentage(p -> p > 15);
            coverage.check(FpduDecoder.Status.NEED_MORE).percentage(p -> p > 10);
        });
        Statistics.label("damaged: delivered").coverage(coverage -> coverage.check("some").percentage(p -> p > 15));
    }

    @Property(tries = 300)
    void randomBytesNeverBreakTheDecoder(@ForAll @Size(max = 5000) final byte[] bytes, @ForAll final boolean crc,
        @ForAll @IntRange(min = 1, max = 600) final int maxChunk, @ForAll final long seed)
    {
        final Random random = new Random(seed);
        final RecordingHandler handler = new RecordingHandler();
        final FpduDecoder decoder = new FpduDecoder(crc);
        final Feeder.Outcome outcome = Feeder.feed(decoder, handler, bytes, () -> 1 + random.nextInt(maxChunk),
            Feeder.receiveBuffer(random.nextBoolean()));
        assertNotEquals(FpduDecoder.Status.HANDLER_STOPPED, outcome.status());
        assertEquals(outcome.status() == FpduDecoder.Status.PROTOCOL_ERROR, decoder.terminateInfo() != null);
    }

    /**
     * Segments that are nearly right (each field right most of the time) reach every check, and
     * still never break the decoder.
     */
    @Property(tries = 500)
    @StatisticsReport(onFailureOnly = true)
    void nearlyValidSegmentsNeverBreakTheDecoder(
        @ForAll @Size(min = 1, max = 40) final List<@IntRange(min = 0, max = 9) Integer> opcodes,
        @ForAll final boolean crc, @ForAll final long seed)
    {
        final Random random = new Random(seed);
        final ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (final int opcode : opcodes)
        {
            final int header = Math.max(2, DdpRdmap.headerLength(opcode));
            final int length = random.nextInt(5) == 0 ? random.nextInt(header + 1) : header + random.nextInt(40);
            final byte[] ulpdu = new byte[length];
            random.nextBytes(ulpdu);
            if (length >= 2)
            {
                final boolean tagged = DdpRdmap.isTaggedOpcode(opcode) != (random.nextInt(8) == 0);
                final int ddpVersion = random.nextInt(10) == 0 ? random.nextInt(4) : 1;
                final int rdmapVersion = random.nextInt(10) == 0 ? random.nextInt(4) : 1;
                final boolean last = random.nextInt(6) != 0;
                ulpdu[0] = (byte) ((tagged ? 0x80 : 0) | (last ? 0x40 : 0) | ddpVersion);
                ulpdu[1] = (byte) ((rdmapVersion << 6) | opcode);
            }
            if (length >= 18 && random.nextInt(6) != 0)
            {
                ByteBuffer.wrap(ulpdu).putInt(6, Math.max(0, DdpRdmap.queueNumber(opcode)));
            }
            if (length >= 18 && opcode == RdmapOpcode.RDMA_READ_REQUEST && random.nextInt(4) != 0)
            {
                ByteBuffer.wrap(ulpdu).putInt(14, 0);
            }
            stream.writeBytes(Streams.frame(ulpdu, crc));
        }
        final RecordingHandler handler = new RecordingHandler();
        final FpduDecoder decoder = new FpduDecoder(crc);
        final Feeder.Outcome outcome = Feeder.feed(decoder, handler, stream.toByteArray(),
            () -> 1 + random.nextInt(200), Feeder.receiveBuffer(random.nextBoolean()));
        assertNotEquals(FpduDecoder.Status.HANDLER_STOPPED, outcome.status());
        if (outcome.status() == FpduDecoder.Status.NEED_MORE)
        {
            assertEquals(opcodes.size(), handler.events.size());
        }
        final TerminateInfo error = decoder.terminateInfo();
        Statistics.label("nearly valid: error").collect(error == null ? "none"
            : error.layer() + "/" + error.etype() + "/" + error.code());
        Statistics.label("nearly valid: delivered").collect(Math.min(handler.events.size(), 3));
    }
}

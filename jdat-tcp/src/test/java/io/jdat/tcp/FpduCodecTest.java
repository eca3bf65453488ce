package io.jdat.tcp;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FpduCodecTest
{
    private static final int[] SIZES = {0, 1, 2, 3, 4, 5, 13, 51, 52, 53, 1427, 1428, 1429, 1441, 1442, 1443, 4096,
        65511, 65512, 65513, 65530, 65536, 70001, 200003};
    private static final int[] PAYLOAD_OPCODES = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE, RdmapOpcode.RDMA_WRITE,
        RdmapOpcode.RDMA_READ_RESPONSE};

    static Stream<Arguments> configurations()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final int maxFpdu : new int[] {Fpdu.MIN_MAX_FPDU_LENGTH, 1448, Fpdu.DEFAULT_MAX_FPDU_LENGTH, 70000})
        {
            all.add(Arguments.of(maxFpdu, false));
            all.add(Arguments.of(maxFpdu, true));
        }
        return all.stream();
    }

    private static byte[] randomBytes(final Random random, final int length)
    {
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /**
     * Walks a stream FPDU by FPDU, without the code under test: every FPDU within the bound, pad
     * zero, CRC field right (or zero without CRC). Returns the number of FPDUs.
     */
    static int checkFraming(final byte[] stream, final int maxFpdu, final boolean crc)
    {
        int at = 0;
        int count = 0;
        final CRC32C crc32c = new CRC32C();
        while (at < stream.length)
        {
            final int ulpdu = ((stream[at] & 0xFF) << 8) | (stream[at + 1] & 0xFF);
            final int pad = (4 - (2 + ulpdu) % 4) % 4;
            final int length = 2 + ulpdu + pad + 4;
            assertTrue(length <= maxFpdu, "FPDU of " + length + " > " + maxFpdu);
            for (int i = 0; i < pad; i++)
            {
                assertEquals(0, stream[at + 2 + ulpdu + i], "pad");
            }
            final int field = ByteBuffer.wrap(stream, at + length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            crc32c.reset();
            crc32c.update(stream, at, length - 4);
            assertEquals(crc ? (int) crc32c.getValue() : 0, field, "CRC field of FPDU " + count);
            at += length;
            count++;
        }
        assertEquals(stream.length, at);
        return count;
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void everyOpcodeAndSizeRoundTripsThroughGatherListsAndASmallSendBuffer(final int maxFpdu, final boolean crc)
    {
        final Random random = new Random(maxFpdu * 2L + (crc ? 1 : 0));
        final List<TestMessage> messages = new ArrayList<>();
        final List<Event> expected = new ArrayList<>();
        int msn = 1;
        int readMsn = 1;
        for (final int opcode : PAYLOAD_OPCODES)
        {
            for (final int size : SIZES)
            {
                final TestMessage message = TestMessage.random(opcode, msn++, randomBytes(random, size), random)
                    .scatter(random);
                messages.add(message);
                expected.addAll(Event.expected(message, maxFpdu));
                if (size % 3 == 0)
                {
                    final TestMessage read = TestMessage.random(RdmapOpcode.RDMA_READ_REQUEST, readMsn++, new byte[0],
                        random);
                    messages.add(read);
                    expected.addAll(Event.expected(read, maxFpdu));
                }
            }
        }
        final FpduEncoder encoder = new FpduEncoder(crc, maxFpdu);
        final byte[] stream = Streams.encode(encoder, messages, maxFpdu);
        assertEquals(expected.size(), checkFraming(stream, maxFpdu, crc), "one FPDU per expected segment");
        assertArrayEquals(stream, Streams.encode(new FpduEncoder(crc, maxFpdu), messages), "resuming changes nothing");

        final RecordingHandler handler = new RecordingHandler();
        final Feeder.Outcome outcome = Feeder.feed(new FpduDecoder(crc), handler, stream,
            () -> 1 + random.nextInt(3000), Feeder.receiveBuffer(random.nextBoolean()));
        assertEquals(FpduDecoder.Status.NEED_MORE, outcome.status());
        assertEquals(0, outcome.leftInBuffer());
        assertEquals(expected.size(), handler.events.size());
        for (int i = 0; i < expected.size(); i++)
        {
            assertEquals(expected.get(i), handler.events.get(i), "segment " + i);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE, RdmapOpcode.RDMA_WRITE,
        RdmapOpcode.RDMA_READ_RESPONSE, RdmapOpcode.RDMA_READ_REQUEST})
    void anEmptyMessageIsOneFpduWithTheLastFlag(final int opcode)
    {
        final TestMessage message = TestMessage.random(opcode, 5, new byte[0], new Random(opcode));
        final byte[] stream = Streams.encode(new FpduEncoder(true), List.of(message));
        assertEquals(1, checkFraming(stream, Fpdu.DEFAULT_MAX_FPDU_LENGTH, true));
        assertEquals(Fpdu.fpduLength(DdpRdmap.headerLength(opcode)), stream.length);
        assertEquals(DdpRdmap.DDP_FLAG_LAST, stream[2] & DdpRdmap.DDP_FLAG_LAST);
        final RecordingHandler handler = new RecordingHandler();
        Feeder.feed(new FpduDecoder(true), handler, stream);
        assertEquals(Event.expected(message, Fpdu.DEFAULT_MAX_FPDU_LENGTH), handler.events);
    }

    @Test
    void segmentsCarryAdvancingMoAndToAndOnlyTheLastHasL()
    {
        final byte[] payload = randomBytes(new Random(1), 3000);
        final FpduEncoder encoder = new FpduEncoder(false, 1448);
        assertEquals(1442 - 18, encoder.maxSegmentPayload(RdmapOpcode.SEND));
        assertEquals(1442 - 14, encoder.maxSegmentPayload(RdmapOpcode.RDMA_WRITE));
        assertEquals(0, encoder.maxSegmentPayload(RdmapOpcode.RDMA_READ_REQUEST));
        final byte[] sends = Streams.encode(encoder, List.of(TestMessage.send(9, payload)));
        final RecordingHandler handler = new RecordingHandler();
        Feeder.feed(new FpduDecoder(false), handler, sends);
        assertEquals(List.of(
            Event.send(9, 0, false, false, java.util.Arrays.copyOfRange(payload, 0, 1000)),
            Event.send(9, 1000, false, false, java.util.Arrays.copyOfRange(payload, 1000, 2000)),
            Event.send(9, 2000, true, false, java.util.Arrays.copyOfRange(payload, 2000, 3000))), handler.events);

        final byte[] writes = Streams.encode(encoder, List.of(TestMessage.write(0x77, -1000L, payload)));
        final RecordingHandler tagged = new RecordingHandler();
        Feeder.feed(new FpduDecoder(false), tagged, writes);
        assertEquals(List.of(
            Event.write(0x77, -1000L, false, java.util.Arrays.copyOfRange(payload, 0, 1000)),
            Event.write(0x77, 0L, false, java.util.Arrays.copyOfRange(payload, 1000, 2000)),
            Event.write(0x77, 1000L, true, java.util.Arrays.copyOfRange(payload, 2000, 3000))), tagged.events);
    }

    @Test
    void aMessageOfSeveralSegmentsIsCutEvenlyWithNoShortTail()
    {
        final FpduEncoder encoder = new FpduEncoder(true);
        final byte[] payload = randomBytes(new Random(2), 65536);
        final RecordingHandler handler = new RecordingHandler();
        Feeder.feed(new FpduDecoder(true), handler,
            Streams.encode(encoder, List.of(TestMessage.write(0x55, 4096L, payload))));
        assertEquals(List.of(
            Event.write(0x55, 4096L, false, java.util.Arrays.copyOfRange(payload, 0, 32768)),
            Event.write(0x55, 4096L + 32768, true, java.util.Arrays.copyOfRange(payload, 32768, 65536))),
            handler.events, "64 KiB under a 64 KiB bound: two halves, not 65,516 and 20");

        for (final int maxFpdu : new int[] {Fpdu.MIN_MAX_FPDU_LENGTH, 1448, Fpdu.DEFAULT_MAX_FPDU_LENGTH})
        {
            for (final int size : new int[] {65536, 65537, 1 << 20, (1 << 20) + 3, 200003})
            {
                final FpduEncoder cutter = new FpduEncoder(false, maxFpdu);
                final int max = cutter.maxSegmentPayload(RdmapOpcode.RDMA_WRITE);
                final RecordingHandler segments = new RecordingHandler();
                Feeder.feed(new FpduDecoder(false), segments,
                    Streams.encode(cutter, List.of(TestMessage.write(1, 0L, new byte[size]))));
                assertEquals((size + max - 1) / max, segments.events.size(), "fewest segments " + maxFpdu + "/" + size);
                final int smallest = segments.events.stream().mapToInt(e -> e.payload().length).min().orElseThrow();
                final int largest = segments.events.stream().mapToInt(e -> e.payload().length).max().orElseThrow();
                assertTrue(largest <= max, "within the bound");
                assertTrue(largest - smallest <= 64 && smallest * 2 > largest,
                    "near-equal segments " + maxFpdu + "/" + size + ": " + smallest + " to " + largest);
            }
        }
    }

    @Test
    void nextFpduLengthTellsWhatMustFitAndTheEncoderResumes()
    {
        final FpduEncoder encoder = new FpduEncoder(true, 1448);
        assertEquals(0, encoder.nextFpduLength());
        assertFalse(encoder.inProgress());
        encoder.begin(TestMessage.send(1, new byte[1500]));
        assertTrue(encoder.inProgress());
        assertEquals(Fpdu.fpduLength(18 + 752), encoder.nextFpduLength(), "two even segments, 752 and 748");
        final ByteBuffer small = ByteBuffer.allocateDirect(1500);
        small.position(800);
        assertFalse(encoder.encode(small), "700 bytes left: the first FPDU does not fit");
        assertEquals(800, small.position());
        small.clear();
        assertFalse(encoder.encode(small), "the second does not fit behind the first");
        assertEquals(Fpdu.fpduLength(18 + 752), small.position());
        assertEquals(Fpdu.fpduLength(18 + 748), encoder.nextFpduLength());
        small.clear();
        assertTrue(encoder.encode(small));
        assertEquals(Fpdu.fpduLength(18 + 748), small.position());
        assertFalse(encoder.inProgress());
        assertTrue(encoder.encode(small), "nothing in progress");
    }

    @Test
    void aSendBufferThatCanNeverHoldTheNextFpduIsAProgrammingError()
    {
        final FpduEncoder encoder = new FpduEncoder(false, 1448);
        encoder.begin(TestMessage.send(1, new byte[100]));
        assertThrows(IllegalStateException.class, () -> encoder.encode(ByteBuffer.allocate(64)));
    }

    @Test
    void beginRefusesWhatThisSideNeverSends()
    {
        final FpduEncoder encoder = new FpduEncoder(false);
        for (final int opcode : new int[] {RdmapOpcode.TERMINATE, RdmapOpcode.SEND_WITH_INVALIDATE,
            RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, 8, 15})
        {
            assertThrows(IllegalArgumentException.class, () -> encoder.begin(TestMessage.raw(opcode, new byte[0])));
            assertThrows(IllegalArgumentException.class, () -> encoder.maxSegmentPayload(opcode));
        }
        assertThrows(IllegalArgumentException.class,
            () -> encoder.begin(TestMessage.raw(RdmapOpcode.RDMA_READ_REQUEST, new byte[1])));
        encoder.begin(TestMessage.send(1, new byte[10]));
        assertThrows(IllegalStateException.class, () -> encoder.begin(TestMessage.send(2, new byte[10])));
    }

    @Test
    void littleEndianAndHeapSendBuffersProduceTheSameBytes()
    {
        final TestMessage message = TestMessage.write(0x01020304, 0x0A0B0C0D0E0F1011L, new byte[] {1, 2, 3, 4, 5});
        final byte[] expected = Streams.encode(new FpduEncoder(true), List.of(message));
        final ByteBuffer heapLittle = ByteBuffer.allocate(100).order(ByteOrder.LITTLE_ENDIAN);
        final FpduEncoder encoder = new FpduEncoder(true);
        encoder.begin(message);
        assertTrue(encoder.encode(heapLittle));
        assertArrayEquals(expected, java.util.Arrays.copyOf(heapLittle.array(), heapLittle.position()));
        // ULPDU 14 + 5 = 19 bytes, so 3 bytes of pad before the CRC
        assertArrayEquals(Streams.hex("0013" + "c140" + "01020304" + "0a0b0c0d0e0f1011" + "0102030405" + "000000"),
            java.util.Arrays.copyOf(expected, 24));
        assertEquals(28, expected.length);
    }

    @Test
    void terminatesRoundTripOnQueueTwoWithTheirOwnMsn()
    {
        final List<TerminateInfo> infos = List.of(
            TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR),
            TerminateInfo.untagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
                TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, RdmapOpcode.SEND_WITH_SE, 0, 42, 8192),
            TerminateInfo.tagged(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_PROTECTION,
                TerminateCodes.RDMAP_BASE_BOUNDS, RdmapOpcode.RDMA_READ_RESPONSE, 0xDEADBEEF, 0x123456789L));
        for (final boolean crc : new boolean[] {false, true})
        {
            final FpduEncoder encoder = new FpduEncoder(crc, Fpdu.MIN_MAX_FPDU_LENGTH);
            assertEquals(1, encoder.nextTerminateMsn());
            for (int i = 0; i < infos.size(); i++)
            {
                final TerminateInfo info = infos.get(i);
                final ByteBuffer buffer = ByteBuffer.allocate(FpduEncoder.terminateFpduLength(info));
                assertTrue(encoder.encodeTerminate(buffer, info));
                assertEquals(buffer.capacity(), buffer.position());
                checkFraming(buffer.array(), Fpdu.MIN_MAX_FPDU_LENGTH, crc);
                // untagged header: last, opcode 7, QN 2, MSN counting from 1, MO 0
                final ByteBuffer wire = ByteBuffer.wrap(buffer.array());
                assertEquals(0x4147, wire.getShort(2) & 0xFFFF);
                assertEquals(DdpRdmap.QN_TERMINATE, wire.getInt(8));
                assertEquals(i + 1, wire.getInt(12));
                assertEquals(0, wire.getInt(16));

                final FpduDecoder decoder = new FpduDecoder(crc);
                final RecordingHandler handler = new RecordingHandler();
                final byte[] stream = Streams.concat(buffer.array(),
                    Streams.encode(new FpduEncoder(crc), List.of(TestMessage.send(1, new byte[3]))));
                final Feeder.Outcome outcome = Feeder.feed(decoder, handler, stream);
                assertEquals(FpduDecoder.Status.TERMINATE_RECEIVED, outcome.status());
                assertEquals(List.of(Event.terminate(info)), handler.events, "nothing after a Terminate");
                assertEquals(info, decoder.receivedTerminate());
                assertEquals(FpduDecoder.Status.TERMINATE_RECEIVED,
                    decoder.decode(ByteBuffer.wrap(stream), handler));
                assertEquals(1, handler.events.size());
            }
            assertEquals(4, encoder.nextTerminateMsn());
        }
    }

    @Test
    void aTerminateThatDoesNotFitWritesNothing()
    {
        final FpduEncoder encoder = new FpduEncoder(true);
        final ByteBuffer buffer = ByteBuffer.allocate(27);
        assertFalse(encoder.encodeTerminate(buffer, TerminateInfo.of(0, 0, 0xFF)));
        assertEquals(0, buffer.position());
        assertEquals(1, encoder.nextTerminateMsn());
        assertEquals(28, FpduEncoder.terminateFpduLength(TerminateInfo.of(0, 0, 0xFF)));
    }

    @Test
    void aTerminateMayGoBetweenTheSegmentsOfAMessageWithoutDisturbingIt()
    {
        final FpduEncoder encoder = new FpduEncoder(false, 1448);
        final byte[] payload = randomBytes(new Random(3), 2000);
        encoder.begin(TestMessage.send(1, payload));
        final ByteBuffer buffer = ByteBuffer.allocate(1448);
        assertFalse(encoder.encode(buffer));
        final byte[] first = java.util.Arrays.copyOf(buffer.array(), buffer.position());
        buffer.clear();
        assertTrue(encoder.encodeTerminate(buffer, TerminateInfo.of(0, 0, 0xFF)));
        assertTrue(encoder.encode(buffer));
        final RecordingHandler handler = new RecordingHandler();
        Feeder.feed(new FpduDecoder(false), handler,
            Streams.concat(java.util.Arrays.copyOf(buffer.array(), buffer.position())));
        assertEquals(List.of(Event.terminate(TerminateInfo.of(0, 0, 0xFF))), handler.events);
        final RecordingHandler rest = new RecordingHandler();
        final byte[] terminate = java.util.Arrays.copyOf(buffer.array(), 28);
        final byte[] second = java.util.Arrays.copyOfRange(buffer.array(), 28, buffer.position());
        assertEquals(28, Fpdu.fpduLength(Fpdu.ulpduLength(ByteBuffer.wrap(terminate), 0)));
        Feeder.feed(new FpduDecoder(false), rest, Streams.concat(first, second));
        assertEquals(2, rest.events.size());
        assertEquals(Event.send(1, 1000, true, false, java.util.Arrays.copyOfRange(payload, 1000, 2000)),
            rest.events.get(1));
    }

    @Test
    void aRejectingHandlerStopsTheDecoderRightAfterThatSegment()
    {
        final List<TestMessage> messages = new ArrayList<>();
        for (int i = 1; i <= 5; i++)
        {
            messages.add(TestMessage.send(i, new byte[] {(byte) i}));
        }
        final byte[] stream = Streams.encode(new FpduEncoder(true), messages);
        final RecordingHandler handler = new RecordingHandler();
        handler.rejectAt = 2;
        final FpduDecoder decoder = new FpduDecoder(true);
        final ByteBuffer buffer = ByteBuffer.wrap(stream);
        assertEquals(FpduDecoder.Status.HANDLER_STOPPED, decoder.decode(buffer, handler));
        assertEquals(3, handler.events.size());
        assertEquals(3 * 28, buffer.position(), "position after the rejected segment (1-byte Sends: 28-byte FPDUs)");
        assertEquals(FpduDecoder.Status.HANDLER_STOPPED, decoder.decode(buffer, handler));
        assertEquals(FpduDecoder.Status.HANDLER_STOPPED, decoder.status());
        assertEquals(3, handler.events.size(), "nothing more is delivered");
        assertNull(decoder.terminateInfo());
    }

    @Test
    void needMoreSaysHowManyBytesTheNextFpduNeeds()
    {
        final byte[] stream = Streams.encode(new FpduEncoder(false), List.of(TestMessage.send(1, new byte[100])));
        final FpduDecoder decoder = new FpduDecoder(false);
        final RecordingHandler handler = new RecordingHandler();
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(ByteBuffer.wrap(stream, 0, 1), handler));
        assertEquals(2, decoder.bytesNeeded());
        final ByteBuffer partial = ByteBuffer.wrap(stream, 0, stream.length - 1);
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(partial, handler));
        assertEquals(stream.length, decoder.bytesNeeded());
        assertEquals(0, partial.position());
        assertTrue(handler.events.isEmpty());
        final ByteBuffer maxLength = ByteBuffer.wrap(new byte[] {(byte) 0xFF, (byte) 0xFF, 0x41, 0x43});
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(maxLength, handler));
        assertEquals(Fpdu.MAX_FPDU_LENGTH, decoder.bytesNeeded());
    }

    @Test
    void payloadIsAViewOfTheReceiveBufferNotACopy()
    {
        final byte[] stream = Streams.encode(new FpduEncoder(false), List.of(TestMessage.send(1, new byte[] {7, 8})));
        final ByteBuffer buffer = ByteBuffer.allocateDirect(128);
        buffer.position(40);
        buffer.put(stream).flip().position(40);
        final long[] seen = new long[2];
        final RecordingHandler handler = new RecordingHandler();
        handler.probe = (src, off, len) ->
        {
            seen[0] = off;
            seen[1] = len;
            buffer.put((int) off, (byte) 99);
            assertEquals(99, src.get(ValueLayout.JAVA_BYTE, off));
            assertEquals(MemorySegment.ofBuffer(buffer.duplicate().clear()).address(), src.address());
        };
        new FpduDecoder(false).decode(buffer, handler);
        assertEquals(40 + 2 + 18, seen[0], "absolute index of the payload in the buffer");
        assertEquals(2, seen[1]);
    }

    @Test
    void aLittleEndianReceiveBufferDecodesTheSame()
    {
        final TestMessage read = TestMessage.readRequest(3, 0x11223344, 0x5566778899AABBCCL, 4096, 0x0F0E0D0C, 77L);
        final byte[] stream = Streams.encode(new FpduEncoder(true), List.of(read));
        final RecordingHandler handler = new RecordingHandler();
        new FpduDecoder(true).decode(ByteBuffer.wrap(stream).order(ByteOrder.LITTLE_ENDIAN), handler);
        assertEquals(Event.expected(read, Fpdu.DEFAULT_MAX_FPDU_LENGTH), handler.events);
    }
}

package io.jdat.tcp;

import io.jdat.engine.channel.TaggedTarget;
import io.jdat.engine.channel.TerminateCodes;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FpduDecoder#placeDirect}: an RDMA Write, Read Response or Send whose header has arrived
 * and passed every check has its payload placed where the engine says, the decoder then completes
 * the segment (Read Response, Send) once the payload is in and its CRC matched, skips its pad and
 * CRC and goes on with the next FPDU; anything else (another opcode, a header that fails a check,
 * an engine that refuses, too little payload left) is left to {@code decode} as always.
 */
class FpduDirectPlacementTest
{
    private static final int SIZE = 50_001;

    /** A handler that places every Write at {@code at} in {@code memory}, or refuses. */
    private static final class Placing
    {
        final RecordingHandler recorder = new RecordingHandler();
        final MemorySegment memory = Arena.ofAuto().allocate(1 << 17);
        boolean refuse;
        int asked;

        io.jdat.engine.channel.ChannelHandler handler()
        {
            return new Delegating(recorder)
            {
                @Override
                public boolean writeTarget(final int stag, final long to, final int len, final TaggedTarget target)
                {
                    asked++;
                    if (refuse)
                    {
                        return false;
                    }
                    target.memory = memory;
                    target.offset = 100;
                    return true;
                }
            };
        }
    }

    private static byte[] stream(final boolean crc, final byte[] payload, final int maxFpdu)
    {
        return Streams.encode(new FpduEncoder(crc, maxFpdu), List.of(TestMessage.write(9, 1 << 20, payload),
            TestMessage.send(1, new byte[] {1, 2, 3})), 1 << 20);
    }

    @Test
    void theRestOfAWriteGoesStraightToItsMemoryAndDecodingGoesOn()
    {
        final byte[] payload = new byte[SIZE];
        new Random(1).nextBytes(payload);
        final byte[] wire = stream(false, payload, 65536);
        final Placing p = new Placing();
        final FpduDecoder decoder = new FpduDecoder(false);
        final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
        // the header and 1000 payload bytes arrive first
        final int first = 2 + 14 + 1000;
        rx.put(wire, 0, first).flip();
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, p.handler()));
        final TaggedTarget target = new TaggedTarget();
        final int rest = decoder.placeDirect(rx, p.handler(), target, 4096);
        assertEquals(SIZE - 1000, rest);
        assertEquals(100 + 1000, target.offset);
        assertEquals(0, rx.remaining(), "the payload bytes in the buffer were consumed");
        assertTrue(decoder.insideFpdu());
        // the reader moves the rest of the payload itself
        MemorySegment.copy(MemorySegment.ofArray(wire), first, p.memory, target.offset, rest);
        // then pad, CRC and the next FPDU come through the buffer, a few bytes at a time
        rx.clear();
        int at = first + rest;
        while (at < wire.length)
        {
            final int n = Math.min(3, wire.length - at);
            rx.put(wire, at, n).flip();
            assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, p.handler()));
            rx.compact();
            at += n;
        }
        assertEquals(0, rx.position());
        assertArrayEquals(payload, p.memory.asSlice(100, SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertEquals(1, p.recorder.events.size(), "only the Send was delivered");
        assertEquals(Event.Kind.SEND, p.recorder.events.getFirst().kind());
    }

    @Test
    void aWriteMostlyInTheBufferIsPlacedTooAndItsCrcStillChecked()
    {
        for (final boolean crc : new boolean[] {false, true})
        {
            final byte[] payload = new byte[SIZE];
            new Random(4).nextBytes(payload);
            final byte[] wire = stream(crc, payload, 65536);
            final Placing p = new Placing();
            final FpduDecoder decoder = new FpduDecoder(crc);
            final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
            // all but the last 100 payload bytes are here: less to come than asked for, but more
            // already in the buffer, which would otherwise wait there for the rest
            final int first = 2 + 14 + SIZE - 100;
            rx.put(wire, 0, first).flip();
            assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, p.handler()));
            final TaggedTarget target = new TaggedTarget();
            final int rest = decoder.placeDirect(rx, p.handler(), target, 4096);
            assertEquals(100, rest, "crc " + crc);
            assertEquals(100 + SIZE - 100, target.offset);
            assertEquals(0, rx.remaining());
            final ByteBuffer view = p.memory.asByteBuffer();
            view.position((int) target.offset);
            view.put(wire, first, rest);
            decoder.placed(view, (int) target.offset);
            rx.clear();
            rx.put(wire, first + rest, wire.length - first - rest).flip();
            assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, p.handler()), "crc " + crc);
            assertArrayEquals(payload, p.memory.asSlice(100, SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            assertEquals(1, p.recorder.events.size(), "only the Send was delivered");
            if (crc)
            {
                // a bit flipped in the part that was in the buffer is still a CRC error
                final byte[] bad = wire.clone();
                bad[2 + 14 + 10] ^= 1;
                final FpduDecoder again = new FpduDecoder(true);
                final Placing q = new Placing();
                rx.clear();
                rx.put(bad, 0, first).flip();
                assertEquals(FpduDecoder.Status.NEED_MORE, again.decode(rx, q.handler()));
                final int r = again.placeDirect(rx, q.handler(), target, 4096);
                assertEquals(100, r);
                final ByteBuffer v = q.memory.asByteBuffer();
                v.position((int) target.offset);
                v.put(bad, first, r);
                again.placed(v, (int) target.offset);
                rx.clear();
                rx.put(bad, first + r, bad.length - first - r).flip();
                assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, again.decode(rx, q.handler()));
                assertEquals(0, q.recorder.events.size());
            }
        }
    }

    @Test
    void aReadResponseSegmentIsPlacedAndCompletedOnceItsPayloadIsIn()
    {
        final byte[] payload = new byte[SIZE];
        new Random(2).nextBytes(payload);
        final byte[] wire = Streams.encode(new FpduEncoder(false, 65536),
            List.of(TestMessage.readResponse(0x77, 4096, payload)), 1 << 20);
        final MemorySegment memory = Arena.ofAuto().allocate(1 << 17);
        final List<String> completed = new java.util.ArrayList<>();
        final io.jdat.engine.channel.ChannelHandler handler = new Delegating(new RecordingHandler())
        {
            @Override
            public boolean readResponseTarget(final int stag, final long to, final boolean last, final int len,
                final TaggedTarget target)
            {
                target.memory = memory;
                target.offset = 8;
                return true;
            }

            @Override
            public boolean onReadResponse(final int stag, final long to, final boolean last, final MemorySegment src,
                final long off, final int len)
            {
                completed.add(stag + " " + to + " " + last + " " + (src == null) + " " + len);
                return true;
            }
        };
        final FpduDecoder decoder = new FpduDecoder(false);
        final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
        rx.put(wire, 0, 2 + 14 + 10).flip();
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, handler));
        final TaggedTarget target = new TaggedTarget();
        final int rest = decoder.placeDirect(rx, handler, target, 4096);
        assertEquals(SIZE - 10, rest);
        assertTrue(completed.isEmpty(), "not complete before its payload is in");
        MemorySegment.copy(MemorySegment.ofArray(wire), 2 + 14 + 10, memory, target.offset, rest);
        rx.clear();
        rx.put(wire, 2 + 14 + SIZE, wire.length - (2 + 14 + SIZE)).flip();
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, handler));
        assertEquals(List.of(0x77 + " 4096 true true " + SIZE), completed);
        assertArrayEquals(payload, memory.asSlice(8, SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertTrue(!decoder.insideFpdu());
    }

    @Test
    void otherOpcodesFailedChecksRefusalsAndShortRestsNothingIsPlaced()
    {
        final byte[] payload = new byte[SIZE];
        final TaggedTarget target = new TaggedTarget();
        // the engine refuses (a protection violation): decode delivers the whole FPDU to onWrite
        final Placing refusing = new Placing();
        refusing.refuse = true;
        assertEquals(0, partial(stream(false, payload, 65536), false, refusing, 4096, target));
        assertEquals(1, refusing.asked);
        // less payload to come than asked for
        final Placing shortRest = new Placing();
        assertEquals(0, partial(stream(false, new byte[5000], 65536), false, shortRest, 8192, target));
        // a Send asks sendTarget, not writeTarget; a handler without it (false) places nothing
        final Placing send = new Placing();
        final byte[] sends = Streams.encode(new FpduEncoder(false), List.of(TestMessage.send(1, payload)), 1 << 20);
        assertEquals(0, partial(sends, false, send, 4096, target));
        assertEquals(0, send.asked);
        // a Write header with DDP version 2 fails its check: no placement, and the FPDU is a protocol error
        final byte[] bad = stream(false, payload, 65536);
        bad[2] = (byte) ((bad[2] & ~DdpRdmap.DDP_VERSION_MASK) | 2);
        final Placing badVersion = new Placing();
        final FpduDecoder decoder = new FpduDecoder(false);
        final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
        rx.put(bad, 0, 1016).flip();
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, badVersion.handler()));
        assertEquals(0, decoder.placeDirect(rx, badVersion.handler(), target, 4096));
        assertEquals(0, badVersion.asked);
        rx.compact().put(bad, 1016, bad.length - 1016).flip();
        assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, decoder.decode(rx, badVersion.handler()));
    }

    @Test
    void withCrcTheRestOfAWriteIsPlacedAsItLandsAndTheCrcCheckedAtTheEnd()
    {
        final byte[] payload = new byte[SIZE];
        new Random(4).nextBytes(payload);
        final byte[] wire = stream(true, payload, 65536);
        final Placing p = new Placing();
        final FpduDecoder decoder = new FpduDecoder(true);
        final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
        final int first = 2 + 14 + 1000;
        rx.put(wire, 0, first).flip();
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, p.handler()));
        final TaggedTarget target = new TaggedTarget();
        final int rest = decoder.placeDirect(rx, p.handler(), target, 4096);
        assertEquals(SIZE - 1000, rest, "with CRC too, the payload goes straight to its memory");
        placeInPieces(decoder, wire, first, p.memory, (int) target.offset, rest);
        rx.clear();
        int at = first + rest;
        while (at < wire.length)
        {
            final int n = Math.min(3, wire.length - at);
            rx.put(wire, at, n).flip();
            assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, p.handler()), "at " + at);
            rx.compact();
            at += n;
        }
        assertArrayEquals(payload, p.memory.asSlice(100, SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertEquals(1, p.recorder.events.size(), "the CRC matched and the Send behind it was delivered");
        assertEquals(Event.Kind.SEND, p.recorder.events.getFirst().kind());
    }

    @Test
    void withCrcAPlacedPayloadThatWasCorruptedIsACrcErrorAndItsReadResponseNeverCompletes()
    {
        for (final int damaged : new int[] {2 + 14 + 30_000, Fpdu.crcOffset(0, 14 + SIZE) + 1})
        {
            final byte[] payload = new byte[SIZE];
            new Random(5).nextBytes(payload);
            final byte[] wire = Streams.encode(new FpduEncoder(true, 65536),
                List.of(TestMessage.readResponse(0x77, 4096, payload), TestMessage.send(1, new byte[] {1})), 1 << 20);
            // a byte of the payload (read straight into memory), or of the CRC field, changed on the way
            wire[damaged] ^= 0x10;
            final MemorySegment memory = Arena.ofAuto().allocate(1 << 17);
            final RecordingHandler recorder = new RecordingHandler();
            final List<String> completed = new java.util.ArrayList<>();
            final io.jdat.engine.channel.ChannelHandler handler = new Delegating(recorder)
            {
                @Override
                public boolean readResponseTarget(final int stag, final long to, final boolean last, final int len,
                    final TaggedTarget target)
                {
                    target.memory = memory;
                    target.offset = 8;
                    return true;
                }

                @Override
                public boolean onReadResponse(final int stag, final long to, final boolean last,
                    final MemorySegment src, final long off, final int len)
                {
                    completed.add(stag + " " + len);
                    return true;
                }
            };
            final FpduDecoder decoder = new FpduDecoder(true);
            final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
            final int first = 2 + 14 + 10;
            rx.put(wire, 0, first).flip();
            assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, handler));
            final TaggedTarget target = new TaggedTarget();
            final int rest = decoder.placeDirect(rx, handler, target, 4096);
            assertEquals(SIZE - 10, rest);
            placeInPieces(decoder, wire, first, memory, (int) target.offset, rest);
            rx.clear();
            rx.put(wire, first + rest, wire.length - (first + rest)).flip();
            final FpduDecoder.Status status = decoder.decode(rx, handler);
            assertEquals(List.of(), completed, "the Read Response segment completed despite its CRC");
            assertEquals(List.of(), recorder.events, "a Send behind the damaged FPDU was delivered");
            assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, status, "damaged at " + damaged);
            assertEquals(TerminateCodes.LAYER_LLP, decoder.terminateInfo().layer());
            assertEquals(TerminateCodes.LLP_CRC_ERROR, decoder.terminateInfo().code());
            assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, decoder.decode(rx, handler), "and nothing later");
            assertEquals(List.of(), completed);
        }
    }

    @Test
    void aSendSegmentIsPlacedAndCompletedOnlyOnceItsPayloadIsInAndItsCrcMatched()
    {
        for (final int damaged : new int[] {-1, 2 + 18 + 30_000, Fpdu.crcOffset(0, 18 + SIZE) + 1})
        {
            final byte[] payload = new byte[SIZE];
            new Random(6).nextBytes(payload);
            final TestMessage message = TestMessage.sendWithSe(3, payload);
            final byte[] wire = Streams.encode(new FpduEncoder(true, 65536), List.of(message), 1 << 20);
            if (damaged >= 0)
            {
                wire[damaged] ^= 0x10;
            }
            final MemorySegment memory = Arena.ofAuto().allocate(1 << 17);
            final List<String> completed = new java.util.ArrayList<>();
            final List<String> asked = new java.util.ArrayList<>();
            final io.jdat.engine.channel.ChannelHandler handler = new Delegating(new RecordingHandler())
            {
                @Override
                public boolean sendTarget(final int msn, final int mo, final int len, final TaggedTarget target)
                {
                    asked.add(msn + " " + mo + " " + len);
                    target.memory = memory;
                    target.offset = 16;
                    return true;
                }

                @Override
                public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
                    final MemorySegment src, final long off, final int len)
                {
                    completed.add(msn + " " + mo + " " + last + " " + solicited + " " + (src == null) + " " + len);
                    return true;
                }
            };
            final FpduDecoder decoder = new FpduDecoder(true);
            final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
            final int first = 2 + 18 + 10;
            rx.put(wire, 0, first).flip();
            assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, handler));
            final TaggedTarget target = new TaggedTarget();
            final int rest = decoder.placeDirect(rx, handler, target, 4096);
            assertEquals(SIZE - 10, rest);
            assertEquals(List.of("3 0 " + SIZE), asked);
            assertEquals(16 + 10, target.offset);
            placeInPieces(decoder, wire, first, memory, (int) target.offset, rest);
            assertEquals(List.of(), completed, "not complete before its CRC arrived");
            rx.clear();
            rx.put(wire, first + rest, wire.length - (first + rest)).flip();
            final FpduDecoder.Status status = decoder.decode(rx, handler);
            if (damaged < 0)
            {
                assertEquals(FpduDecoder.Status.NEED_MORE, status);
                assertEquals(List.of("3 0 true true true " + SIZE), completed);
                assertArrayEquals(payload, memory.asSlice(16, SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                assertTrue(!decoder.insideFpdu());
            }
            else
            {
                assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, status, "damaged at " + damaged);
                assertEquals(TerminateCodes.LLP_CRC_ERROR, decoder.terminateInfo().code());
                assertEquals(List.of(), completed, "the Send completed despite its CRC");
            }
        }
    }

    /** The reader's part: the rest of the payload lands in {@code memory} in a few pieces, each told to the decoder. */
    private static void placeInPieces(final FpduDecoder decoder, final byte[] wire, final int from,
        final MemorySegment memory, final int offset, final int length)
    {
        final ByteBuffer view = memory.asByteBuffer();
        view.position(offset);
        int done = 0;
        while (done < length)
        {
            final int n = Math.min(7_001, length - done);
            final int at = view.position();
            view.put(wire, from + done, n);
            decoder.placed(view, at);
            assertEquals(at + n, view.position());
            done += n;
        }
    }

    /** Feeds the first 1016 bytes of {@code wire} and asks for direct placement. */
    private static int partial(final byte[] wire, final boolean crc, final Placing p, final int minRest,
        final TaggedTarget target)
    {
        final FpduDecoder decoder = new FpduDecoder(crc);
        final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 17);
        rx.put(wire, 0, 1016).flip();
        assertEquals(FpduDecoder.Status.NEED_MORE, decoder.decode(rx, p.handler()));
        final int position = rx.position();
        final int rest = decoder.placeDirect(rx, p.handler(), target, minRest);
        if (rest == 0)
        {
            assertEquals(position, rx.position(), "nothing consumed");
            assertTrue(!decoder.insideFpdu());
        }
        return rest;
    }

    /** Forwards everything to a recorder. */
    private static class Delegating implements io.jdat.engine.channel.ChannelHandler
    {
        private final RecordingHandler to;

        Delegating(final RecordingHandler to)
        {
            this.to = to;
        }

        @Override
        public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
            final MemorySegment src, final long off, final int len)
        {
            return to.onSend(msn, mo, last, solicited, src, off, len);
        }

        @Override
        public boolean onWrite(final int stag, final long at, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            return to.onWrite(stag, at, last, src, off, len);
        }

        @Override
        public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
            final int srcStag, final long srcTo)
        {
            return to.onReadRequest(msn, sinkStag, sinkTo, size, srcStag, srcTo);
        }

        @Override
        public boolean onReadResponse(final int stag, final long at, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            return to.onReadResponse(stag, at, last, src, off, len);
        }

        @Override
        public void onTerminate(final io.jdat.engine.channel.TerminateInfo info)
        {
            to.onTerminate(info);
        }

        @Override
        public void onSent(final io.jdat.engine.channel.OutboundMessage message)
        {
            to.onSent(message);
        }

        @Override
        public void onClosed(final io.jdat.engine.channel.CloseReason reason)
        {
            to.onClosed(reason);
        }
    }
}

package io.jdat.tcp;

import io.jdat.engine.channel.TerminateCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static io.jdat.tcp.Streams.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MpaTest
{
    /** The Request and Reply of rping-siw-relay.pcap (siw to siw): Rev 2, enhanced, IRD 1 / ORD 1, no CRC. */
    private static final String SIW_REQUEST = "4d504120494420526571204672616d65" + "10" + "02" + "0004" + "00010001";
    private static final String SIW_REPLY = "4d504120494420526570204672616d65" + "10" + "02" + "0004" + "00010001";

    private static byte[] encodeRequest(final boolean crc, final Mpa.IrdOrd irdOrd, final byte[] privateData)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        final int length = Mpa.encodeRequest(buffer, crc, irdOrd, privateData);
        assertEquals(length, buffer.position());
        return Arrays.copyOf(buffer.array(), length);
    }

    private static Mpa.Result decode(final byte[] bytes, final boolean request)
    {
        return Mpa.decode(ByteBuffer.wrap(bytes), request);
    }

    private static Mpa.Frame frame(final byte[] bytes, final boolean request)
    {
        final Mpa.Result result = decode(bytes, request);
        assertEquals(Mpa.Status.FRAME, result.status(), result.toString());
        return result.frame();
    }

    private static byte[] frameBytes(final boolean request, final int flags, final int rev, final int pdLength,
        final int actualPd)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(20 + actualPd);
        buffer.put((request ? "MPA ID Req Frame" : "MPA ID Rep Frame").getBytes(StandardCharsets.US_ASCII));
        buffer.put((byte) flags).put((byte) rev).putShort((short) pdLength);
        return buffer.array();
    }

    @Test
    void rev1RequestWithoutPrivateData()
    {
        assertEquals(hex("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)) + "00010000",
            hex(encodeRequest(false, null, null)));
        assertEquals(hex("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)) + "40010003616263",
            hex(encodeRequest(true, null, "abc".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void enhancedRequestIsByteForByteWhatSiwSends()
    {
        assertEquals(SIW_REQUEST, hex(encodeRequest(false, Mpa.IrdOrd.of(1, 1), null)));
    }

    @Test
    void siwRequestDecodesAndOurReplyIsByteForByteWhatSiwAnswers()
    {
        final Mpa.Frame request = frame(Streams.hex(SIW_REQUEST), true);
        assertTrue(request.request());
        assertTrue(request.enhanced());
        assertFalse(request.crc());
        assertFalse(request.markers());
        assertEquals(2, request.revision());
        assertEquals(4, request.pdLength());
        assertEquals(Mpa.IrdOrd.of(1, 1), request.irdOrd());
        assertEquals(0, request.privateData().length);

        final ByteBuffer buffer = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        final int length = Mpa.encodeReply(buffer, request, false, Mpa.replyIrdOrd(request.irdOrd(), 1, 1), null);
        assertEquals(SIW_REPLY, hex(Arrays.copyOf(buffer.array(), length)));

        final Mpa.Frame reply = frame(Streams.hex(SIW_REPLY), false);
        assertEquals(Mpa.ReplyCheck.ACCEPTED, Mpa.checkReply(request, reply));
        assertFalse(Mpa.crcInUse(request, reply));
    }

    @Test
    void rev1InitiatorGetsRev1ReplyWithoutIrdOrdEvenIfItSetTheEnhancedBit()
    {
        final Mpa.Frame request = frame(frameBytes(true, Mpa.FLAG_ENHANCED, 1, 0, 0), true);
        assertFalse(request.enhanced());
        assertEquals(1, Mpa.replyRevision(request));
        assertEquals(0, Mpa.replyFlags(request, false));
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        Mpa.encodeReply(buffer, request, false, null, new byte[] {9});
        buffer.flip();
        final Mpa.Frame reply = Mpa.decode(buffer, false).frame();
        assertEquals(1, reply.revision());
        assertEquals(0, reply.flags());
        assertNull(reply.irdOrd());
        assertArrayEquals(new byte[] {9}, reply.privateData());
        assertEquals(Mpa.ReplyCheck.ACCEPTED, Mpa.checkReply(request, reply));
        assertThrows(IllegalArgumentException.class,
            () -> Mpa.encodeReply(ByteBuffer.allocate(64), request, false, Mpa.IrdOrd.of(1, 1), null));
    }

    @Test
    void enhancedRequestNeedsAnIrdOrdWordInTheReply()
    {
        final Mpa.Frame request = frame(Streams.hex(SIW_REQUEST), true);
        assertThrows(IllegalArgumentException.class,
            () -> Mpa.encodeReply(ByteBuffer.allocate(64), request, false, null, null));
    }

    @Test
    void rev2WithoutEnhancedBitIsAnsweredRev2WithoutWord()
    {
        final Mpa.Frame request = frame(frameBytes(true, 0, 2, 0, 0), true);
        assertFalse(request.enhanced());
        assertEquals(2, Mpa.replyRevision(request));
        assertEquals(0, Mpa.replyFlags(request, false));
    }

    @Test
    void crcIsUsedIfEitherSideAsks()
    {
        final Mpa.Frame plain = frame(encodeRequest(false, null, null), true);
        final Mpa.Frame withCrc = frame(encodeRequest(true, null, null), true);
        assertEquals(0, Mpa.replyFlags(plain, false));
        assertEquals(Mpa.FLAG_CRC, Mpa.replyFlags(plain, true));
        assertEquals(Mpa.FLAG_CRC, Mpa.replyFlags(withCrc, false));
        final Mpa.Frame replyPlain = frame(frameBytes(false, 0, 1, 0, 0), false);
        final Mpa.Frame replyCrc = frame(frameBytes(false, Mpa.FLAG_CRC, 1, 0, 0), false);
        assertFalse(Mpa.crcInUse(plain, replyPlain));
        assertTrue(Mpa.crcInUse(plain, replyCrc));
        assertTrue(Mpa.crcInUse(withCrc, replyPlain));
        assertTrue(Mpa.crcInUse(withCrc, replyCrc));
    }

    @Test
    void replyNeverEchoesMarkersRejectOrUnknownBits()
    {
        final Mpa.Frame request = frame(frameBytes(true, Mpa.FLAG_ENHANCED | Mpa.FLAG_CRC | 0x08, 2, 4, 4), true);
        assertEquals(Mpa.FLAG_CRC | Mpa.FLAG_ENHANCED, Mpa.replyFlags(request, false));
    }

    @Test
    void roundTripOfEveryShape()
    {
        for (final boolean crc : new boolean[] {false, true})
        {
            for (final Mpa.IrdOrd word : new Mpa.IrdOrd[] {null, Mpa.IrdOrd.of(0, 0), Mpa.IrdOrd.of(128, 16383),
                new Mpa.IrdOrd(3, 4, true, true, true, true)})
            {
                for (final int length : new int[] {0, 1, 3, 252, 256})
                {
                    if (word != null && length > 252)
                    {
                        continue;
                    }
                    final byte[] data = new byte[length];
                    Arrays.fill(data, (byte) length);
                    final byte[] bytes = encodeRequest(crc, word, data);
                    assertEquals(Mpa.frameLength(word != null, length), bytes.length);
                    final Mpa.Frame frame = frame(bytes, true);
                    assertEquals(crc, frame.crc());
                    assertEquals(word != null, frame.enhanced());
                    assertEquals(word, frame.irdOrd());
                    assertArrayEquals(data, frame.privateData());
                    assertEquals(bytes.length, frame.frameLength());
                }
            }
        }
    }

    @Test
    void decoderIsIncrementalAndMovesPastTheFrameOnlyWhenComplete()
    {
        final byte[] bytes = encodeRequest(true, Mpa.IrdOrd.of(2, 3), "hello".getBytes(StandardCharsets.US_ASCII));
        for (int available = 0; available < bytes.length; available++)
        {
            final ByteBuffer partial = ByteBuffer.wrap(bytes, 0, available);
            assertEquals(Mpa.Status.NEED_MORE, Mpa.decode(partial, true).status(), "with " + available + " bytes");
            assertEquals(0, partial.position());
        }
        final ByteBuffer whole = ByteBuffer.allocate(100);
        whole.position(10);
        whole.put(bytes).flip().position(10);
        final Mpa.Result result = Mpa.decode(whole, true);
        assertEquals(Mpa.Status.FRAME, result.status());
        assertEquals(10 + bytes.length, whole.position());
        assertEquals("hello", new String(result.frame().privateData(), StandardCharsets.US_ASCII));
    }

    @Test
    void aWrongKeyIsReportedFromItsFirstWrongByte()
    {
        assertEquals(Mpa.Status.BAD_KEY, decode(new byte[] {'G'}, true).status());
        // "MPA ID Re" matches both keys; the tenth byte tells them apart
        final byte[] reply = frameBytes(false, 0, 1, 0, 0);
        assertEquals(Mpa.Status.NEED_MORE, decode(Arrays.copyOf(reply, 9), true).status());
        assertEquals(Mpa.Status.BAD_KEY, decode(Arrays.copyOf(reply, 10), true).status());
        assertEquals(Mpa.Status.BAD_KEY, decode(frameBytes(true, 0, 1, 0, 0), false).status());
        assertNull(decode(reply, true).frame());
    }

    @Test
    void markersAreRefusedAsSoonAsTheHeaderIsIn()
    {
        final byte[] bytes = frameBytes(true, Mpa.FLAG_MARKERS | Mpa.FLAG_CRC, 1, 100, 0);
        final Mpa.Result result = decode(bytes, true);
        assertEquals(Mpa.Status.MARKERS_REQUESTED, result.status());
        assertTrue(result.frame().markers());
        assertTrue(result.frame().crc());
        assertEquals(Mpa.Status.MARKERS_REQUESTED,
            decode(frameBytes(false, Mpa.FLAG_MARKERS, 1, 0, 0), false).status());
    }

    @Test
    void privateDataBeyond256IsAProtocolErrorBeforeItArrives()
    {
        assertEquals(Mpa.Status.PRIVATE_DATA_TOO_LONG, decode(frameBytes(true, 0, 1, 257, 0), true).status());
        assertEquals(Mpa.Status.PRIVATE_DATA_TOO_LONG, decode(frameBytes(true, 0, 1, 0xFFFF, 0), true).status());
        assertEquals(Mpa.Status.PRIVATE_DATA_TOO_LONG,
            decode(frameBytes(true, Mpa.FLAG_ENHANCED, 2, 257, 0), true).status());
        assertEquals(Mpa.Status.NEED_MORE, decode(frameBytes(true, 0, 1, 256, 0), true).status());
        assertEquals(Mpa.Status.FRAME, decode(frameBytes(true, 0, 1, 256, 256), true).status());
        assertEquals(252, frame(frameBytes(true, Mpa.FLAG_ENHANCED, 2, 256, 256), true).privateData().length);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void enhancedWithoutRoomForIrdOrdIsRefused(final int pdLength)
    {
        final Mpa.Result result = decode(frameBytes(true, Mpa.FLAG_ENHANCED, 2, pdLength, pdLength), true);
        assertEquals(Mpa.Status.ENHANCED_WITHOUT_IRD_ORD, result.status());
        assertEquals(pdLength, result.frame().pdLength());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 255})
    void revisionsOtherThanOneAndTwoAreRefused(final int revision)
    {
        final Mpa.Result result = decode(frameBytes(true, 0, revision, 0, 0), true);
        assertEquals(Mpa.Status.BAD_REVISION, result.status());
        assertEquals(revision, result.frame().revision());
    }

    @Test
    void bytesBehindAFrameBeforeTheHandshakeEndsAreExtraData()
    {
        final byte[] bytes = Streams.concat(Streams.hex(SIW_REQUEST), new byte[] {0, 0x22});
        final ByteBuffer buffer = ByteBuffer.wrap(bytes);
        final Mpa.Result result = Mpa.decode(buffer, true);
        assertEquals(Mpa.Status.EXTRA_DATA, result.status());
        assertEquals(Mpa.IrdOrd.of(1, 1), result.frame().irdOrd());
        assertEquals(0, buffer.position());
        assertTrue(Mpa.Status.EXTRA_DATA.isError());
        assertFalse(Mpa.Status.FRAME.isError());
        assertFalse(Mpa.Status.NEED_MORE.isError());
    }

    @Test
    void rejectEchoesCrcAndRevisionAndIsTakenAsAReject()
    {
        final Mpa.Frame request = frame(frameBytes(true, Mpa.FLAG_CRC | Mpa.FLAG_ENHANCED, 2, 4, 4), true);
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        Mpa.encodeReject(buffer, request, null);
        buffer.flip();
        assertEquals(hex("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII)) + "60020000",
            hex(Arrays.copyOf(buffer.array(), buffer.limit())));
        final Mpa.Frame reject = Mpa.decode(buffer, false).frame();
        assertTrue(reject.reject());
        assertEquals(Mpa.ReplyCheck.REJECTED, Mpa.checkReply(request, reject));

        final ByteBuffer unreadable = ByteBuffer.allocate(64);
        Mpa.encodeReject(unreadable, null, new byte[] {1, 2});
        assertEquals(hex("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII)) + "200100020102",
            hex(Arrays.copyOf(unreadable.array(), unreadable.position())));
    }

    @Test
    void aSiwRejectOfAnEnhancedRequestWithShortPrivateDataIsAReject()
    {
        // siw answers by echoing the request's flags with R added and no private data
        final Mpa.Result result = decode(frameBytes(false, Mpa.FLAG_REJECT | Mpa.FLAG_ENHANCED, 2, 0, 0), false);
        assertEquals(Mpa.Status.FRAME, result.status());
        assertTrue(result.frame().reject());
    }

    @Test
    void replyChecks()
    {
        final Mpa.Frame enhanced = frame(Streams.hex(SIW_REQUEST), true);
        final Mpa.Frame rev1 = frame(encodeRequest(false, null, null), true);
        assertEquals(Mpa.ReplyCheck.NOT_ENHANCED,
            Mpa.checkReply(enhanced, frame(frameBytes(false, 0, 1, 0, 0), false)));
        assertEquals(Mpa.ReplyCheck.NOT_ENHANCED,
            Mpa.checkReply(enhanced, frame(frameBytes(false, 0, 2, 4, 4), false)));
        assertEquals(Mpa.ReplyCheck.REVISION_MISMATCH, Mpa.checkReply(rev1, frame(Streams.hex(SIW_REPLY), false)));
        final Mpa.Frame markers = new Mpa.Frame(false, Mpa.FLAG_MARKERS, 1, 0, null, new byte[0]);
        assertEquals(Mpa.ReplyCheck.MARKERS_REQUESTED, Mpa.checkReply(rev1, markers));
        assertEquals(Mpa.ReplyCheck.ACCEPTED, Mpa.checkReply(rev1, frame(frameBytes(false, 0, 1, 0, 0), false)));
    }

    @Test
    void irdOrdWordBits()
    {
        assertEquals(0x00010001, Mpa.IrdOrd.of(1, 1).encode());
        assertEquals(0x3FFF3FFF, Mpa.IrdOrd.of(16383, 16383).encode());
        assertEquals(0x80040000, new Mpa.IrdOrd(4, 0, true, false, false, false).encode());
        assertEquals(0x40000000, new Mpa.IrdOrd(0, 0, false, true, false, false).encode());
        assertEquals(0x00008000, new Mpa.IrdOrd(0, 0, false, false, true, false).encode());
        assertEquals(0x00004000, new Mpa.IrdOrd(0, 0, false, false, false, true).encode());
        for (int bits = 0; bits < 16; bits++)
        {
            final Mpa.IrdOrd word = new Mpa.IrdOrd(bits * 1000, 16383 - bits * 1000, (bits & 1) != 0,
                (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0);
            assertEquals(word, Mpa.IrdOrd.decode(word.encode()));
        }
        assertThrows(IllegalArgumentException.class, () -> Mpa.IrdOrd.of(16384, 0));
        assertThrows(IllegalArgumentException.class, () -> Mpa.IrdOrd.of(0, -1));
    }

    @Test
    void responderWordKeepsPeerToPeerAndPicksOneReadyToReceiveMessage()
    {
        assertEquals(Mpa.IrdOrd.of(5, 6), Mpa.replyIrdOrd(Mpa.IrdOrd.of(1, 2), 5, 6));
        final Mpa.IrdOrd both = Mpa.replyIrdOrd(new Mpa.IrdOrd(4, 4, true, false, true, true), 4, 4);
        assertTrue(both.peerToPeer() && both.writeRtr() && !both.readRtr());
        final Mpa.IrdOrd readOnly = Mpa.replyIrdOrd(new Mpa.IrdOrd(4, 4, true, false, false, true), 4, 4);
        assertTrue(readOnly.peerToPeer() && !readOnly.writeRtr() && readOnly.readRtr());
        final Mpa.IrdOrd none = Mpa.replyIrdOrd(new Mpa.IrdOrd(4, 4, true, true, false, false), 4, 4);
        assertTrue(none.peerToPeer() && none.writeRtr() && !none.readRtr() && !none.zeroLengthSendRtr());
    }

    @Test
    void encodingRefusesTooMuchPrivateDataOrTooLittleRoom()
    {
        assertThrows(IllegalArgumentException.class,
            () -> Mpa.encodeRequest(ByteBuffer.allocate(400), false, Mpa.IrdOrd.of(1, 1), new byte[253]));
        assertThrows(IllegalArgumentException.class,
            () -> Mpa.encodeRequest(ByteBuffer.allocate(400), false, null, new byte[257]));
        assertThrows(IllegalArgumentException.class,
            () -> Mpa.encodeRequest(ByteBuffer.allocate(23), false, Mpa.IrdOrd.of(1, 1), null));
        assertEquals(252, Mpa.maxConsumerPrivateData(true));
        assertEquals(256, Mpa.maxConsumerPrivateData(false));
    }

    @Test
    void handshakeTerminatesUseTheLlpCodes()
    {
        assertEquals(TerminateCodes.LAYER_LLP, Mpa.TERMINATE_BAD_REQUEST_REPLY.layer());
        assertEquals(TerminateCodes.LLP_BAD_REQUEST_REPLY, Mpa.TERMINATE_BAD_REQUEST_REPLY.code());
        assertEquals(TerminateCodes.LLP_INSUFFICIENT_IRD, Mpa.TERMINATE_INSUFFICIENT_IRD.code());
        assertEquals(TerminateCodes.LLP_NO_MATCHING_RTR, Mpa.TERMINATE_NO_MATCHING_RTR.code());
    }
}

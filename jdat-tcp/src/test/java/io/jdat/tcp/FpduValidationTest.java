package io.jdat.tcp;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static io.jdat.tcp.Streams.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every check the decoder makes, each triggered alone in an otherwise valid FPDU (right length
 * framing and right CRC), between two good Sends: the first is delivered, the bad one and
 * everything after it are not, and the Terminate names the RFC's layer, type and code.
 */
class FpduValidationTest
{
    private static final int LLP = TerminateCodes.LAYER_LLP;
    private static final int DDP = TerminateCodes.LAYER_DDP;
    private static final int RDMAP = TerminateCodes.LAYER_RDMAP;

    // a Send, MSN 5, MO 16, two payload bytes
    private static final String SEND = "4143" + "00000000" + "00000000" + "00000005" + "00000010" + "aabb";
    // a Write to STag 0x01020304, TO 0x1122334455667788, one payload byte
    private static final String WRITE = "c140" + "01020304" + "1122334455667788" + "ee";
    // a Read Request, MSN 9
    private static final String READ = "4141" + "00000000" + "00000001" + "00000009" + "00000000"
        + "8c269800" + "00007fb6d8000e00" + "00000040" + "cf6f2900" + "000055c70f0db470";
    // a Terminate (LLP CRC error) without header copy, MSN 1
    private static final String TERMINATE = "4147" + "00000000" + "00000002" + "00000001" + "00000000" + "20020000";

    private static void assertRefused(final String ulpdu, final TerminateInfo expected)
    {
        for (final boolean crc : new boolean[] {false, true})
        {
            final byte[] good = Streams.frame(Streams.hex(SEND), crc);
            final byte[] bad = Streams.frame(Streams.hex(ulpdu), crc);
            final ByteBuffer buffer = ByteBuffer.wrap(Streams.concat(good, bad, good));
            final FpduDecoder decoder = new FpduDecoder(crc);
            final RecordingHandler handler = new RecordingHandler();
            assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, decoder.decode(buffer, handler), ulpdu);
            assertEquals(1, handler.events.size(), "only the good Send before it");
            assertEquals(good.length, buffer.position(), "the position stays at the bad FPDU");
            assertEquals(expected, decoder.terminateInfo(), ulpdu + " crc=" + crc);
            assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, decoder.decode(buffer, handler), "sticky");
            assertEquals(1, handler.events.size());
            assertNull(decoder.receivedTerminate());
        }
    }

    private static void assertAccepted(final String ulpdu)
    {
        final RecordingHandler handler = new RecordingHandler();
        final FpduDecoder decoder = new FpduDecoder(true);
        assertEquals(FpduDecoder.Status.NEED_MORE,
            decoder.decode(ByteBuffer.wrap(Streams.frame(Streams.hex(ulpdu), true)), handler), ulpdu);
        assertEquals(1, handler.events.size());
    }

    private static String replace(final String hex, final int byteOffset, final String with)
    {
        return hex.substring(0, byteOffset * 2) + with + hex.substring(byteOffset * 2 + with.length());
    }

    @Test
    void theSamplesThemselvesAreValid()
    {
        assertAccepted(SEND);
        assertAccepted(WRITE);
        assertAccepted(READ);
        final RecordingHandler handler = new RecordingHandler();
        new FpduDecoder(false).decode(ByteBuffer.wrap(Streams.frame(Streams.hex(TERMINATE), false)), handler);
        assertEquals(List.of(Event.terminate(TerminateInfo.of(LLP, 0, TerminateCodes.LLP_CRC_ERROR))), handler.events);
    }

    @Test
    void aBadCrcIsAnLlpCrcErrorWithNoHeader()
    {
        final byte[] good = Streams.frame(Streams.hex(SEND), true);
        final byte[] bad = Streams.frame(Streams.hex(SEND), true);
        bad[bad.length - 1] ^= 0x01;
        final ByteBuffer buffer = ByteBuffer.wrap(Streams.concat(good, bad));
        final FpduDecoder decoder = new FpduDecoder(true);
        final RecordingHandler handler = new RecordingHandler();
        assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, decoder.decode(buffer, handler));
        assertEquals(TerminateInfo.of(LLP, 0, TerminateCodes.LLP_CRC_ERROR), decoder.terminateInfo());
        assertEquals(1, handler.events.size());

        // without CRC the field is not looked at
        final RecordingHandler unchecked = new RecordingHandler();
        assertEquals(FpduDecoder.Status.NEED_MORE,
            new FpduDecoder(false).decode(ByteBuffer.wrap(Streams.concat(good, bad)), unchecked));
        assertEquals(2, unchecked.events.size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "41"})
    void aUlpduTooShortForTheControlBytesIsAnFpduLengthError(final String ulpdu)
    {
        assertRefused(ulpdu, TerminateInfo.of(LLP, 0, TerminateCodes.LLP_FPDU_MARKER_MISMATCH));
    }

    @Test
    void aUlpduShorterThanItsOpcodesHeaderIsRefusedBeforeAnythingUnderflows()
    {
        final TerminateInfo expected = TerminateInfo.of(LLP, 0, TerminateCodes.LLP_FPDU_MARKER_MISMATCH);
        assertRefused(SEND.substring(0, 17 * 2), expected);
        assertRefused(SEND.substring(0, 4), expected);
        assertRefused(WRITE.substring(0, 13 * 2), expected);
        assertRefused("c142" + "01020304", expected);
        assertRefused(READ.substring(0, 45 * 2), expected);
        assertRefused(READ.substring(0, 18 * 2), expected);
        assertRefused(TERMINATE.substring(0, 21 * 2), expected);
        // exactly the header is fine: an empty segment
        assertAccepted(SEND.substring(0, 18 * 2));
        assertAccepted(WRITE.substring(0, 14 * 2));
    }

    @ParameterizedTest
    @ValueSource(strings = {"40", "42", "43"})
    void aBadDdpVersionIsAnUntaggedOrTaggedBufferVersionError(final String control)
    {
        assertRefused(replace(SEND, 0, control), TerminateInfo.of(DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_INVALID_VERSION));
        final String tagged = Integer.toHexString(Integer.parseInt(control, 16) | 0xC0);
        assertRefused(replace(WRITE, 0, tagged), TerminateInfo.of(DDP, TerminateCodes.DDP_TAGGED_BUFFER,
            TerminateCodes.DDP_TAGGED_INVALID_VERSION));
    }

    @ParameterizedTest
    @ValueSource(strings = {"03", "83", "c3"})
    void aBadRdmapVersionIsARemoteOperationVersionError(final String control)
    {
        assertRefused(replace(SEND, 1, control), TerminateInfo.of(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_INVALID_VERSION));
    }

    @Test
    void undefinedOpcodesAreUnexpectedOpcodesWithNoHeader()
    {
        for (int opcode = 8; opcode < 16; opcode++)
        {
            assertRefused(replace(SEND, 1, "4" + Integer.toHexString(opcode)), TerminateInfo.of(RDMAP,
                TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_UNEXPECTED_OPCODE));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE})
    void sendWithInvalidateIsNotPartOfDat12(final int opcode)
    {
        final String ulpdu = replace(replace(SEND, 1, "4" + opcode), 2, "12345678");
        assertRefused(ulpdu, TerminateInfo.untagged(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE, opcode, 0, 5, 16));
    }

    @Test
    void aTaggedSendOrAnUntaggedWriteIsAnUnexpectedOpcodeNamingTheHeaderAsReceived()
    {
        assertRefused(replace(SEND, 0, "c1"), TerminateInfo.tagged(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE, RdmapOpcode.SEND, 0, 0x0000000000000005L));
        final String untaggedWrite = "4140" + "00000000" + "00000000" + "00000003" + "00000000";
        assertRefused(untaggedWrite, TerminateInfo.untagged(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE, RdmapOpcode.RDMA_WRITE, 0, 3, 0));
        assertRefused(replace(READ, 0, "c1"), TerminateInfo.tagged(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE, RdmapOpcode.RDMA_READ_REQUEST, 0, 0x0000000100000009L));
        assertRefused(replace(TERMINATE, 0, "c1"), TerminateInfo.tagged(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE, RdmapOpcode.TERMINATE, 0, 0x0000000200000001L));
        // a tagged segment too short for even the tagged header names nothing
        assertRefused("c143" + "0000", TerminateInfo.of(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE));
    }

    @Test
    void eachUntaggedOpcodeHasItsQueue()
    {
        final List<String[]> cases = new ArrayList<>();
        cases.add(new String[] {SEND, "00000001"});
        cases.add(new String[] {SEND, "00000002"});
        cases.add(new String[] {SEND, "ffffffff"});
        cases.add(new String[] {replace(SEND, 1, "45"), "00000001"});
        cases.add(new String[] {READ, "00000000"});
        cases.add(new String[] {READ, "00000002"});
        cases.add(new String[] {TERMINATE, "00000000"});
        cases.add(new String[] {TERMINATE, "00000001"});
        for (final String[] c : cases)
        {
            final String ulpdu = replace(c[0], 6, c[1]);
            final ByteBuffer header = ByteBuffer.wrap(Streams.hex(ulpdu));
            assertRefused(ulpdu, TerminateInfo.untagged(DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
                TerminateCodes.DDP_UNTAGGED_INVALID_QN, header.get(1) & 0x0F, header.getInt(6), header.getInt(10),
                header.getInt(14)));
        }
    }

    @Test
    void aReadRequestIsOneWholeSegment()
    {
        assertRefused(replace(READ, 14, "00000004"), TerminateInfo.untagged(DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_INVALID_MO, RdmapOpcode.RDMA_READ_REQUEST, 1, 9, 4));
        assertRefused(replace(READ, 0, "01"), TerminateInfo.untagged(DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG, RdmapOpcode.RDMA_READ_REQUEST, 1, 9, 0));
        assertRefused(READ + "00", TerminateInfo.untagged(DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG, RdmapOpcode.RDMA_READ_REQUEST, 1, 9, 0));
    }

    @Test
    void checksRunInTheDocumentedOrder()
    {
        // DDP version before RDMAP version before opcode before length
        assertRefused("4008", TerminateInfo.of(DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_INVALID_VERSION));
        assertRefused("4188", TerminateInfo.of(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_INVALID_VERSION));
        assertRefused("414f", TerminateInfo.of(RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE));
        // CRC before everything
        final byte[] bad = Streams.frame(Streams.hex("4008"), true);
        bad[bad.length - 2] ^= 0x10;
        final FpduDecoder decoder = new FpduDecoder(true);
        decoder.decode(ByteBuffer.wrap(bad), new RecordingHandler());
        assertEquals(TerminateInfo.of(LLP, 0, TerminateCodes.LLP_CRC_ERROR), decoder.terminateInfo());
    }

    /** With CRC on, one flipped bit anywhere in an FPDU is caught, and nothing of it is delivered. */
    @Test
    void everySingleBitFlipIsACrcErrorWithCrcOn()
    {
        final List<byte[]> fpdus = new ArrayList<>();
        fpdus.add(Streams.frame(Streams.hex(SEND), true));
        fpdus.add(Streams.frame(Streams.hex(READ), true));
        fpdus.add(Streams.frame(Streams.hex(TERMINATE), true));
        final byte[] write = new byte[301];
        new java.util.Random(5).nextBytes(write);
        fpdus.add(Streams.frame(Streams.concat(Streams.hex(WRITE.substring(0, 28)), write), true));
        // enough bytes behind it that a length flipped upward still finds a whole FPDU
        final byte[] filler = new byte[Fpdu.MAX_FPDU_LENGTH];
        for (final byte[] fpdu : fpdus)
        {
            final RecordingHandler good = new RecordingHandler();
            new FpduDecoder(true).decode(ByteBuffer.wrap(fpdu), good);
            assertEquals(1, good.events.size(), "unflipped it is delivered: " + hex(fpdu));
            final ByteBuffer buffer = ByteBuffer.allocateDirect(fpdu.length + filler.length);
            for (int bit = 0; bit < fpdu.length * 8; bit++)
            {
                buffer.clear();
                buffer.put(fpdu).put(filler).flip();
                final int index = bit / 8;
                buffer.put(index, (byte) (buffer.get(index) ^ (1 << (bit % 8))));
                final FpduDecoder decoder = new FpduDecoder(true);
                final RecordingHandler handler = new RecordingHandler();
                assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, decoder.decode(buffer, handler), "bit " + bit);
                assertEquals(TerminateInfo.of(LLP, 0, TerminateCodes.LLP_CRC_ERROR), decoder.terminateInfo());
                assertTrue(handler.events.isEmpty());
                assertEquals(0, buffer.position());
            }
        }
    }
}

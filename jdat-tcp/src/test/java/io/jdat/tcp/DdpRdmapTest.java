package io.jdat.tcp;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static io.jdat.tcp.Streams.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DdpRdmapTest
{
    @Test
    void headerLengthsPerOpcode()
    {
        assertEquals(14, DdpRdmap.headerLength(RdmapOpcode.RDMA_WRITE));
        assertEquals(46, DdpRdmap.headerLength(RdmapOpcode.RDMA_READ_REQUEST));
        assertEquals(14, DdpRdmap.headerLength(RdmapOpcode.RDMA_READ_RESPONSE));
        assertEquals(18, DdpRdmap.headerLength(RdmapOpcode.SEND));
        assertEquals(18, DdpRdmap.headerLength(RdmapOpcode.SEND_WITH_INVALIDATE));
        assertEquals(18, DdpRdmap.headerLength(RdmapOpcode.SEND_WITH_SE));
        assertEquals(18, DdpRdmap.headerLength(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE));
        assertEquals(22, DdpRdmap.headerLength(RdmapOpcode.TERMINATE));
        for (int opcode = 8; opcode < 16; opcode++)
        {
            assertEquals(-1, DdpRdmap.headerLength(opcode));
        }
        assertEquals(70, DdpRdmap.TERMINATE_MAX_LENGTH);
    }

    @Test
    void controlBytesAsSiwReadsThem()
    {
        // siw reads the MPA length and both control bytes as one word: a one-segment Send is 0x4143
        final ByteBuffer buffer = ByteBuffer.allocate(18);
        DdpRdmap.putUntaggedHeader(buffer, 0, RdmapOpcode.SEND, true, 0, 1, 0);
        assertEquals("4143", hex(new byte[] {buffer.get(0), buffer.get(1)}));
        DdpRdmap.putTaggedHeader(buffer, 0, RdmapOpcode.RDMA_READ_RESPONSE, true, 0x8c269800, 0x7fb6d8000e00L);
        assertEquals("c1428c26980000007fb6d8000e00", hex(java.util.Arrays.copyOf(buffer.array(), 14)));
        DdpRdmap.putTaggedHeader(buffer, 0, RdmapOpcode.RDMA_WRITE, false, 1, 2);
        assertEquals(0x81, buffer.get(0) & 0xFF);
        assertEquals(0x40, buffer.get(1) & 0xFF);
    }

    @Test
    void readRequestLayoutMatchesACapturedSiwReadRequest()
    {
        // frame 9 of rping-siw-relay.pcap without its MPA length and CRC
        final String captured = "4141000000000000000100000001000000008c26980000007fb6d8"
            + "000e0000000040cf6f2900000055c70f0db470";
        final ByteBuffer buffer = ByteBuffer.allocate(46);
        DdpRdmap.putUntaggedHeader(buffer, 0, RdmapOpcode.RDMA_READ_REQUEST, true, DdpRdmap.QN_READ_REQUEST, 1, 0);
        DdpRdmap.putReadRequest(buffer, 0, 0x8c269800, 0x00007fb6d8000e00L, 0x40, 0xcf6f2900, 0x000055c70f0db470L);
        assertEquals(captured, hex(buffer.array()));
        assertEquals(0x8c269800, DdpRdmap.readSinkStag(buffer, 0));
        assertEquals(0x00007fb6d8000e00L, DdpRdmap.readSinkTo(buffer, 0));
        assertEquals(0x40, DdpRdmap.readSize(buffer, 0));
        assertEquals(0xcf6f2900, DdpRdmap.readSourceStag(buffer, 0));
        assertEquals(0x000055c70f0db470L, DdpRdmap.readSourceTo(buffer, 0));
        assertEquals(1, DdpRdmap.queueNumber(buffer, 0));
        assertEquals(1, DdpRdmap.msn(buffer, 0));
        assertEquals(0, DdpRdmap.mo(buffer, 0));
    }

    @Test
    void fieldsReadTheSameInEitherBufferOrder()
    {
        final ByteBuffer big = ByteBuffer.allocate(64);
        final ByteBuffer little = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        for (final ByteBuffer buffer : new ByteBuffer[] {big, little})
        {
            DdpRdmap.putTaggedHeader(buffer, 3, RdmapOpcode.RDMA_WRITE, true, 0x01020304, 0x0102030405060708L);
        }
        assertEquals(hex(big.array()), hex(little.array()));
        assertEquals(0x01020304, DdpRdmap.stag(little, 3));
        assertEquals(0x0102030405060708L, DdpRdmap.taggedOffset(little, 3));
        assertTrue(DdpRdmap.isTagged(little, 3));
        assertTrue(DdpRdmap.isLast(little, 3));
        assertEquals(1, DdpRdmap.ddpVersion(little, 3));
        assertEquals(1, DdpRdmap.rdmapVersion(little, 3));
    }

    @Test
    void terminateWithoutHeaderIs22BytesWithLayerEtypeCodeInTheFirstByteAndAHalf()
    {
        final TerminateInfo info = TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR);
        final ByteBuffer buffer = ByteBuffer.allocate(DdpRdmap.TERMINATE_MAX_LENGTH);
        assertEquals(22, DdpRdmap.putTerminate(buffer, 0, info));
        assertEquals(22, DdpRdmap.terminateLength(info));
        assertEquals("20020000", hex(java.util.Arrays.copyOfRange(buffer.array(), 18, 22)));
        assertEquals(info, DdpRdmap.readTerminate(buffer, 0, 22));
    }

    @Test
    void terminateNamingAnUntaggedSegmentCarriesItsDdpHeaderWithD()
    {
        final TerminateInfo info = TerminateInfo.untagged(TerminateCodes.LAYER_DDP,
            TerminateCodes.DDP_UNTAGGED_BUFFER, TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, RdmapOpcode.SEND,
            0, 7, 1024);
        final ByteBuffer buffer = ByteBuffer.allocate(DdpRdmap.TERMINATE_MAX_LENGTH);
        assertEquals(42, DdpRdmap.putTerminate(buffer, 0, info));
        // layer 1, etype 2, code 2, D (0x40 in the third byte); segment length 0 (M clear)
        assertEquals("12024000" + "0000" + "0143" + "00000000" + "00000000" + "00000007" + "00000400",
            hex(java.util.Arrays.copyOfRange(buffer.array(), 18, 42)));
        assertEquals(info, DdpRdmap.readTerminate(buffer, 0, 42));
    }

    @Test
    void terminateNamingATaggedSegmentCarriesItsDdpHeader()
    {
        final TerminateInfo info = TerminateInfo.tagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER,
            TerminateCodes.DDP_TAGGED_BASE_BOUNDS, RdmapOpcode.RDMA_WRITE, 0xABCD0102, 0x1000L);
        final ByteBuffer buffer = ByteBuffer.allocate(DdpRdmap.TERMINATE_MAX_LENGTH);
        assertEquals(38, DdpRdmap.putTerminate(buffer, 0, info));
        assertEquals("11014000" + "0000" + "8140" + "abcd0102" + "0000000000001000",
            hex(java.util.Arrays.copyOfRange(buffer.array(), 18, 38)));
        assertEquals(info, DdpRdmap.readTerminate(buffer, 0, 38));
    }

    @ParameterizedTest
    @ValueSource(ints = {22, 23, 25, 26, 37, 41})
    void aTerminateWhoseHeaderCopyIsCutShortReportsNoHeader(final int length)
    {
        final TerminateInfo info = TerminateInfo.untagged(TerminateCodes.LAYER_RDMAP,
            TerminateCodes.RDMAP_REMOTE_PROTECTION, TerminateCodes.RDMAP_ACCESS_RIGHTS, RdmapOpcode.SEND, 0, 1, 0);
        final ByteBuffer buffer = ByteBuffer.allocate(DdpRdmap.TERMINATE_MAX_LENGTH);
        DdpRdmap.putTerminate(buffer, 0, info);
        final TerminateInfo read = DdpRdmap.readTerminate(buffer, 0, length);
        assertFalse(read.hdrKnown());
        assertEquals(TerminateInfo.of(info.layer(), info.etype(), info.code()), read);
    }

    @Test
    void terminateReadsMDRAndAReadRequestHeaderCopyAsSentByOthers()
    {
        // M, D and R set, segment length 46, a Read Request's DDP header and its 28-byte RDMAP header
        final String body = "1002e000" + "002e" + "4141" + "00000000" + "00000001" + "00000009" + "00000000"
            + "8c269800" + "00007fb6d8000e00" + "00000040" + "cf6f2900" + "000055c70f0db470";
        final ByteBuffer buffer = ByteBuffer.allocate(18 + body.length() / 2);
        buffer.put(18, Streams.hex(body));
        final TerminateInfo read = DdpRdmap.readTerminate(buffer, 0, buffer.capacity());
        assertEquals(TerminateInfo.untagged(1, 0, 2, RdmapOpcode.RDMA_READ_REQUEST, 1, 9, 0), read);
        assertEquals(DdpRdmap.TERMINATE_MAX_LENGTH, buffer.capacity());
    }

    @Test
    void queuesPerOpcode()
    {
        assertEquals(0, DdpRdmap.queueNumber(RdmapOpcode.SEND));
        assertEquals(0, DdpRdmap.queueNumber(RdmapOpcode.SEND_WITH_SE));
        assertEquals(1, DdpRdmap.queueNumber(RdmapOpcode.RDMA_READ_REQUEST));
        assertEquals(2, DdpRdmap.queueNumber(RdmapOpcode.TERMINATE));
        assertEquals(-1, DdpRdmap.queueNumber(RdmapOpcode.RDMA_WRITE));
        assertTrue(DdpRdmap.isTaggedOpcode(RdmapOpcode.RDMA_WRITE));
        assertTrue(DdpRdmap.isTaggedOpcode(RdmapOpcode.RDMA_READ_RESPONSE));
        assertFalse(DdpRdmap.isTaggedOpcode(RdmapOpcode.SEND));
    }
}

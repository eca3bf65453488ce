package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RmrTriplet;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.tcp.DdpRdmap;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.Mpa;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * With CRC, the payload of a large Read Response segment is read from the socket straight into
 * the Read's sink and its CRC checked when the FPDU's end arrives. A peer written with the wire
 * codecs sends the segment's header first and the rest a moment later, so that jdat places the
 * rest directly: with a good CRC the Read completes with the peer's bytes; with one payload byte
 * changed on the way, jdat answers with the LLP CRC-error Terminate, breaks the connection, and
 * the Read never completes successfully.
 */
class TcpCrcPlacementTest
{
    /** One FPDU of the default 64 KiB, most of it placed straight from the socket. */
    private static final int SIZE = 60_000;
    /** What the peer sends first: the length field, the tagged header and a few payload bytes. */
    private static final int FIRST = Fpdu.ULPDU_OFFSET + DdpRdmap.TAGGED_HEADER_LENGTH + 10;

    /** The Read Response jdat receives: sent in two pieces, a byte of its payload changed if {@code damage}. */
    private static DtoStatus readWithResponse(final boolean damage, final byte[] payload, final byte[] landed)
        throws Exception
    {
        try (TcpNode node = TcpNode.open("crc=true"))
        {
            final EventDispatcher crEvd = node.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep ep = node.ep(null);
            final Lmr recvBuffer = node.lmr(64);
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(recvBuffer, 0, 64)}, 100, CompletionFlags.DEFAULT_FLAG);
            final MemorySegment sinkMemory = node.memory(SIZE);
            final Lmr sink = node.lmr(sinkMemory, MemPriv.ALL_FLAG);
            try (RawPeer raw = RawPeer.connect(psp.connQual()))
            {
                raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED | Mpa.FLAG_CRC, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1),
                    null));
                next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
                next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertTrue(raw.readFrame(false).crc());
                raw.crc(true);
                raw.send(RawMessage.write(0, 0, new byte[0]));

                ep.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, SIZE)}, 7,
                    new RmrTriplet(0x1234_5601, 0x10_0000, SIZE), CompletionFlags.DEFAULT_FLAG);
                final ByteBuffer request = raw.readFpdu();
                assertEquals(RdmapOpcode.RDMA_READ_REQUEST, RawPeer.opcode(request));
                final int sinkStag = DdpRdmap.readSinkStag(request, Fpdu.ULPDU_OFFSET);
                final long sinkTo = DdpRdmap.readSinkTo(request, Fpdu.ULPDU_OFFSET);

                final byte[] response = raw.fpdus(new RawMessage(RdmapOpcode.RDMA_READ_RESPONSE, 0, sinkStag, sinkTo,
                    0, 0, 0, payload), b ->
                    {
                    });
                assertEquals(Fpdu.fpduLength(DdpRdmap.TAGGED_HEADER_LENGTH + SIZE), response.length, "one FPDU");
                if (damage)
                {
                    // past what arrives with the header: a byte that goes straight into the sink
                    response[FIRST + 30_000] ^= 0x01;
                }
                raw.write(Arrays.copyOf(response, FIRST));
                // the header alone first: jdat reads it and places the rest as it comes
                Thread.sleep(200);
                raw.write(Arrays.copyOfRange(response, FIRST, response.length));

                final DatEvent read = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(7, read.dto.userCookie, read.toString());
                if (damage)
                {
                    assertTrue(read.dto.status != DtoStatus.SUCCESS, "the Read completed despite the CRC error");
                    final ByteBuffer t = raw.readFpdu();
                    assertEquals(RdmapOpcode.TERMINATE, RawPeer.opcode(t));
                    final TerminateInfo info = DdpRdmap.readTerminate(t, Fpdu.ULPDU_OFFSET, Fpdu.ulpduLength(t, 0));
                    assertEquals(TerminateCodes.LAYER_LLP, info.layer(), info.toString());
                    assertEquals(TerminateCodes.LLP_CRC_ERROR, info.code(), info.toString());
                    assertTrue(raw.endOfStream(), "jdat closed its side after the Terminate");
                    next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
                    final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
                    assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
                }
                MemorySegment.copy(sinkMemory, ValueLayout.JAVA_BYTE, 0, landed, 0, SIZE);
                return read.dto.status;
            }
        }
    }

    @Test
    void aGoodCrcCompletesTheReadWithThePeersBytes() throws Exception
    {
        final byte[] payload = new byte[SIZE];
        new Random(11).nextBytes(payload);
        final byte[] landed = new byte[SIZE];
        assertEquals(DtoStatus.SUCCESS, readWithResponse(false, payload, landed));
        assertArrayEquals(payload, landed);
    }

    @Test
    void aCorruptedPayloadPlacedBeforeItsCrcEndsTheConnectionAndNeverCompletesTheRead() throws Exception
    {
        final byte[] payload = new byte[SIZE];
        new Random(12).nextBytes(payload);
        final DtoStatus status = readWithResponse(true, payload, new byte[SIZE]);
        assertTrue(status != DtoStatus.SUCCESS, "the Read completed successfully despite the CRC error");
        assertEquals(DtoStatus.ERR_FLUSHED, status, "the Read is flushed with the broken connection");
    }
}

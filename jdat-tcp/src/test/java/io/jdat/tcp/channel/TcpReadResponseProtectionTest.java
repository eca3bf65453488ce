package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.next;
import static io.jdat.testkit.ProtectionMatrix.LEN;
import static io.jdat.testkit.ProtectionMatrix.REGION;
import static io.jdat.testkit.ProtectionMatrix.REGION_AT;
import static io.jdat.testkit.ProtectionMatrix.SEGMENT;
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
import io.jdat.testkit.ProtectionMatrix;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The two rows of the protection matrix a consumer cannot produce through the API, because the
 * offender is the peer's side of an RDMA Read: a Read Response into a sink whose LMR was freed
 * after the Read was posted, and a Read Response nobody asked for into memory without remote
 * rights. A peer written with the wire codecs sends them; jdat places nothing (its LMR covers the
 * middle of a larger segment, all of it checksummed), answers with the RFC 5041 tagged-buffer
 * Terminate, and breaks the connection.
 */
class TcpReadResponseProtectionTest
{
    private static final byte[] JUNK = junk();

    private static byte[] junk()
    {
        final byte[] b = new byte[LEN];
        Arrays.fill(b, (byte) 0xA5);
        return b;
    }

    /** jdat's side: an IA with a PSP, an endpoint with a receive posted, and a segment of memory. */
    private record Victim(TcpNode node, EventDispatcher crEvd, PublicServicePoint psp, TcpNode.Ep ep,
        MemorySegment segment)
    {
        static Victim open()
        {
            final TcpNode n = TcpNode.open();
            final EventDispatcher crEvd = n.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = n.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep ep = n.ep(null);
            final Lmr buffer = n.lmr(LEN);
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, LEN)}, 100, CompletionFlags.DEFAULT_FLAG);
            final MemorySegment segment = n.memory(SEGMENT);
            final byte[] random = new byte[SEGMENT];
            new java.util.Random(3).nextBytes(random);
            MemorySegment.copy(random, 0, segment, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, SEGMENT);
            return new Victim(n, crEvd, psp, ep, segment);
        }

        /** A raw peer connected to the endpoint, past the first FPDU (so jdat may send). */
        RawPeer connect() throws Exception
        {
            final RawPeer raw = RawPeer.connect(psp.connQual());
            raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), null));
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            raw.readFrame(false);
            // RFC 5044: the responder speaks after the initiator's first FPDU; a zero-length Write
            raw.send(RawMessage.write(0, 0, new byte[0]));
            return raw;
        }

        /** jdat answered with a Terminate of this tagged-buffer code, closed, and broke the connection. */
        void terminatedAndBroken(final RawPeer raw, final int code) throws Exception
        {
            final ByteBuffer t = raw.readFpdu();
            assertEquals(RdmapOpcode.TERMINATE, RawPeer.opcode(t));
            final TerminateInfo info = DdpRdmap.readTerminate(t, Fpdu.ULPDU_OFFSET, Fpdu.ulpduLength(t, 0));
            assertEquals(TerminateCodes.LAYER_DDP, info.layer(), info.toString());
            assertEquals(TerminateCodes.DDP_TAGGED_BUFFER, info.etype(), info.toString());
            assertEquals(code, info.code(), info.toString());
            assertTrue(raw.endOfStream(), "jdat closed its side after the Terminate");
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
        }
    }

    @Test
    void readResponseIntoASinkFreedAfterThePostFailsWithLocalProtectionAndPlacesNothing() throws Exception
    {
        final Victim v = Victim.open();
        try (TcpNode node = v.node(); RawPeer raw = v.connect())
        {
            final Lmr sink = node.lmr(v.segment().asSlice(REGION_AT, REGION), MemPriv.ALL_FLAG);
            v.ep().ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, LEN)}, 1,
                new RmrTriplet(0x1234_5601, 0x10_0000, LEN), CompletionFlags.DEFAULT_FLAG);
            final ByteBuffer request = raw.readFpdu();
            assertEquals(RdmapOpcode.RDMA_READ_REQUEST, RawPeer.opcode(request));
            final int sinkStag = DdpRdmap.readSinkStag(request, Fpdu.ULPDU_OFFSET);
            final long sinkTo = DdpRdmap.readSinkTo(request, Fpdu.ULPDU_OFFSET);
            assertEquals(LEN, DdpRdmap.readSize(request, Fpdu.ULPDU_OFFSET));
            final ProtectionMatrix.Checked bytes = new ProtectionMatrix.Checked(v.segment());

            // dat_lmr_free with the Read outstanding: the sink has no rights any more
            sink.free();
            raw.send(new RawMessage(RdmapOpcode.RDMA_READ_RESPONSE, 0, sinkStag, sinkTo, 0, 0, 0, JUNK));

            final DatEvent read = next(v.ep().req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(1, read.dto.userCookie, read.toString());
            assertEquals(DtoStatus.ERR_LOCAL_PROTECTION, read.dto.status, read.toString());
            v.terminatedAndBroken(raw, TerminateCodes.DDP_TAGGED_INVALID_STAG);
            System.out.println("MATRIX tcp READ_RESPONSE_TO_FREED_SINK READ: dto=" + read.dto.status
                + " terminate=DDP/tagged/invalid STag victim=BROKEN recvs=FLUSHED bytesChanged=" + bytes.changed()
                + " crc=" + bytes.crc());
            bytes.assertUnchanged("the segment around the sink");
        }
    }

    @Test
    void readResponseNobodyAskedForIntoMemoryWithoutRemoteRightsPlacesNothing() throws Exception
    {
        final Victim v = Victim.open();
        try (TcpNode node = v.node(); RawPeer raw = v.connect())
        {
            final Lmr lmr = node.lmr(v.segment().asSlice(REGION_AT, REGION),
                MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
            final ProtectionMatrix.Checked bytes = new ProtectionMatrix.Checked(v.segment());
            raw.send(new RawMessage(RdmapOpcode.RDMA_READ_RESPONSE, 0, lmr.lmrContext(), lmr.registeredAddress(), 0,
                0, 0, JUNK));
            v.terminatedAndBroken(raw, TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED);
            System.out.println("MATRIX tcp UNSOLICITED_READ_RESPONSE -: terminate=DDP/tagged/STag not associated"
                + " victim=BROKEN recvs=FLUSHED bytesChanged=" + bytes.changed() + " crc=" + bytes.crc());
            bytes.assertUnchanged("the segment around the LMR");
        }
    }
}

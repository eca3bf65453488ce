package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EpParam;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.tcp.DdpRdmap;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.FpduEncoder;
import io.jdat.tcp.Mpa;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Protocol abuse from a connected peer (RFC 5040 §6.1 and §7, RFC 5041 §7), against a jdat
 * responder: more RDMA Read Requests in flight than the IRD granted, a Send longer than the posted
 * receive, an MSN from the future, and a Terminate in the middle of a message. Each ends in the
 * Terminate the RFCs name (or, for the peer's own Terminate, in none), CONNECTION_EVENT_BROKEN,
 * the DTOs' error or flush statuses, and no byte placed that the abuse carried. A Send with no
 * receive posted is {@code TcpWireTest.aSendWithNoReceivePostedIsTerminatedWithNoBuffer}.
 */
class TcpProtocolAbuseTest
{
    /** Larger than both kernels' socket buffers: a Read Response the peer does not read stays in flight. */
    private static final int READ = 16 << 20;
    private static final int RECV = 4096;
    private static final byte UNTOUCHED = (byte) 0xEE;

    /** A jdat responder connected to a raw initiator that has sent its first FPDU. */
    private record Victim(TcpNode node, TcpNode.Ep ep, Lmr lmr, RawPeer raw) implements AutoCloseable
    {
        static Victim open(final int memory) throws Exception
        {
            final TcpNode n = TcpNode.open();
            final EventDispatcher crEvd = n.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = n.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep ep = n.ep(null);
            final Lmr lmr = n.lmr(memory);
            lmr.memory().fill(UNTOUCHED);
            final RawPeer raw = RawPeer.connect(psp.connQual());
            raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), null));
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            raw.readFrame(false);
            // RFC 5044: the responder speaks after the initiator's first FPDU; a zero-length Write
            raw.send(RawMessage.write(0, 0, new byte[0]));
            return new Victim(n, ep, lmr, raw);
        }

        void postRecv(final long cookie, final long at)
        {
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, at, RECV)}, cookie, 0);
        }

        /**
         * The Terminate jdat sent (after whatever Read Responses were in flight), then the end of
         * its stream.
         */
        TerminateInfo terminate() throws Exception
        {
            for (int i = 0; i < 4 * READ / 1024; i++)
            {
                final ByteBuffer f = raw.readFpdu();
                final int op = RawPeer.opcode(f);
                if (op == RdmapOpcode.TERMINATE)
                {
                    final TerminateInfo info = DdpRdmap.readTerminate(f, Fpdu.ULPDU_OFFSET, Fpdu.ulpduLength(f, 0));
                    assertTrue(raw.endOfStream(), "jdat closed its side after the Terminate");
                    return info;
                }
                assertEquals(RdmapOpcode.RDMA_READ_RESPONSE, op, "only Read Responses before the Terminate");
            }
            throw new AssertionError("no Terminate");
        }

        /** No byte of the memory from {@code from} on changed. */
        void untouchedFrom(final long from)
        {
            final byte[] now = lmr.memory().asSlice(from).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            final byte[] before = new byte[now.length];
            Arrays.fill(before, UNTOUCHED);
            assertEquals(-1, Arrays.mismatch(before, now), "a byte changed at "
                + (from + Arrays.mismatch(before, now)));
        }

        @Override
        public void close() throws java.io.IOException
        {
            raw.close();
            node.close();
        }
    }

    @Test
    void moreReadRequestsThanTheIrdGrantedEarnANoBufferTerminateOnQueueOne() throws Exception
    {
        try (Victim v = Victim.open(READ))
        {
            v.postRecv(7, 0);
            final EpParam p = new EpParam();
            v.ep().ep().query(EpParam.FIELD_ALL, p);
            final int ird = p.epAttr.maxRdmaReadIn;
            assertTrue(ird >= 1, p.toString());
            // IRD + 1 Requests at once, each for all of the memory; the peer reads no Response
            final ByteBuffer all = ByteBuffer.allocate(64 * (ird + 1));
            for (int msn = 1; msn <= ird + 1; msn++)
            {
                all.put(v.raw().fpdus(new RawMessage(RdmapOpcode.RDMA_READ_REQUEST, msn, 0x77, 0, READ,
                    v.lmr().rmrContext(), v.lmr().registeredAddress(), new byte[0]), b ->
                    {
                    }));
            }
            v.raw().write(Arrays.copyOf(all.array(), all.position()));
            // the peer reads nothing until jdat broke: a Response it took whole earlier would
            // return its credit before the last Request is seen
            next(v.ep().conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final TerminateInfo t = v.terminate();
            // RFC 5040 §6.1: a Read Request beyond the IRD is a DDP untagged-buffer error on queue 1
            assertEquals(TerminateCodes.LAYER_DDP, t.layer(), t.toString());
            assertEquals(TerminateCodes.DDP_UNTAGGED_BUFFER, t.etype(), t.toString());
            assertEquals(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, t.code(), t.toString());
            assertEquals(1, t.queue(), t.toString());
            assertEquals(ird + 1, t.msn(), t.toString());
            assertEquals(DtoStatus.ERR_FLUSHED, next(v.ep().recv(), EventNumber.DTO_COMPLETION_EVENT).dto.status);
            v.untouchedFrom(0);
        }
    }

    @Test
    void aSendLongerThanThePostedReceiveIsTooLongAndPlacesNothing() throws Exception
    {
        try (Victim v = Victim.open(2 * RECV))
        {
            v.postRecv(7, 0);
            v.postRecv(8, RECV);
            final byte[] payload = new byte[RECV + 1];
            Arrays.fill(payload, (byte) 0x42);
            v.raw().send(RawMessage.send(1, payload));
            final TerminateInfo t = v.terminate();
            assertEquals(TerminateCodes.LAYER_DDP, t.layer(), t.toString());
            assertEquals(TerminateCodes.DDP_UNTAGGED_BUFFER, t.etype(), t.toString());
            assertEquals(TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG, t.code(), t.toString());
            assertEquals(0, t.queue(), t.toString());
            assertEquals(1, t.msn(), t.toString());
            next(v.ep().conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent first = next(v.ep().recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(7, first.dto.userCookie);
            assertEquals(DtoStatus.ERR_LOCAL_LENGTH, first.dto.status, first.toString());
            final DatEvent second = next(v.ep().recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(8, second.dto.userCookie);
            assertEquals(DtoStatus.ERR_FLUSHED, second.dto.status, second.toString());
            v.untouchedFrom(0);
        }
    }

    @Test
    void anMsnFromTheFutureIsOutOfRangeAndPlacesNothing() throws Exception
    {
        try (Victim v = Victim.open(2 * RECV))
        {
            v.postRecv(7, 0);
            v.postRecv(8, RECV);
            final byte[] payload = new byte[100];
            Arrays.fill(payload, (byte) 0x42);
            v.raw().send(RawMessage.send(1, payload));
            final DatEvent first = next(v.ep().recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, first.dto.status, first.toString());
            // MSN 2 is next; 5 skips three messages that never came
            v.raw().send(RawMessage.send(5, payload));
            final TerminateInfo t = v.terminate();
            assertEquals(TerminateCodes.LAYER_DDP, t.layer(), t.toString());
            assertEquals(TerminateCodes.DDP_UNTAGGED_BUFFER, t.etype(), t.toString());
            assertEquals(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, t.code(), t.toString());
            assertEquals(5, t.msn(), t.toString());
            next(v.ep().conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent second = next(v.ep().recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(8, second.dto.userCookie);
            assertEquals(DtoStatus.ERR_FLUSHED, second.dto.status, second.toString());
            v.untouchedFrom(100);
        }
    }

    @Test
    void aTerminateInTheMiddleOfASendBreaksTheConnectionWithoutAnAnswer() throws Exception
    {
        try (Victim v = Victim.open(4 * RECV))
        {
            v.ep().ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(v.lmr(), 0, 4 * RECV)}, 7, 0);
            // the first of several FPDUs of a Send, then the peer's Terminate
            final byte[] payload = new byte[4 * RECV];
            Arrays.fill(payload, (byte) 0x42);
            final FpduEncoder small = new FpduEncoder(false, 1024);
            final ByteBuffer b = ByteBuffer.allocate(8192);
            small.begin(RawMessage.send(1, payload));
            small.encode(b);
            b.flip();
            final int first = Fpdu.fpduLength(Fpdu.ulpduLength(b, 0));
            assertTrue(first < b.limit(), "the Send takes more than one FPDU");
            assertTrue(!DdpRdmap.isLast(b, Fpdu.ULPDU_OFFSET));
            v.raw().write(Arrays.copyOf(b.array(), first));
            final ByteBuffer t = ByteBuffer.allocate(256);
            assertTrue(new FpduEncoder(false).encodeTerminate(t, TerminateInfo.of(TerminateCodes.LAYER_RDMAP,
                TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_CATASTROPHIC_STREAM)));
            v.raw().write(Arrays.copyOf(t.array(), t.position()));

            next(v.ep().conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent recv = next(v.ep().recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(7, recv.dto.userCookie);
            assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, "half a Send never completes: " + recv);
            // a Terminate is not answered with one (RFC 5040 §7.2): the stream just ends
            assertTrue(v.raw().endOfStream(), "jdat sent something after the peer's Terminate");
            v.untouchedFrom(first);
        }
    }
}

package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.SECOND;
import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.tcp.DdpRdmap;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.Mpa;
import io.jdat.testkit.BytePattern;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jdat against a peer written by hand with the wire codecs: the MPA frames and FPDUs jdat sends,
 * byte for byte, and what it does with malformed or hostile ones (a Terminate with the RFC's
 * layer, type and code, a broken connection, and nothing placed).
 */
class TcpWireTest
{
    private static final byte[] HELLO = "raw hello".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WELCOME = "jdat welcome".getBytes(StandardCharsets.UTF_8);
    private static final int MEM = 64 << 10;
    private static final byte UNTOUCHED = (byte) 0xEE;

    /** A jdat server with a PSP, an endpoint and a receive posted into an LMR full of 0xEE. */
    private record Server(TcpNode node, EventDispatcher crEvd, PublicServicePoint psp, TcpNode.Ep ep, Lmr lmr)
    {
        static Server open(final String instanceData)
        {
            final TcpNode n = TcpNode.open(instanceData);
            final EventDispatcher crEvd = n.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = n.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final Lmr lmr = n.lmr(MEM);
            lmr.memory().fill(UNTOUCHED);
            final TcpNode.Ep ep = n.ep(null);
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, MEM)}, 7, CompletionFlags.DEFAULT_FLAG);
            return new Server(n, crEvd, psp, ep, lmr);
        }

        /** Takes the next request, checks its private data, accepts with WELCOME. */
        void accept(final byte[] expected)
        {
            final DatEvent ev = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            final CrParam p = new CrParam();
            ev.crArrival.crHandle.query(CrParam.FIELD_ALL, p);
            assertArrayEquals(expected, Arrays.copyOf(p.privateData, p.privateDataSize));
            ev.crArrival.crHandle.accept(ep.ep(), WELCOME);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @ParameterizedTest(name = "Rev {0}")
    @ValueSource(ints = {1, 2})
    void theReplyAnswersTheRequestAndCrcIsOnWhenTheResponderAsks(final int revision) throws Exception
    {
        final Server s = Server.open("crc=true");
        try (TcpNode _ = s.node(); RawPeer raw = RawPeer.connect(s.psp().connQual()))
        {
            // Rev 2: enhanced, IRD 3 / ORD 2, no CRC asked, no peer-to-peer mode
            final Mpa.IrdOrd word = revision == 2 ? Mpa.IrdOrd.of(3, 2) : null;
            raw.write(RawPeer.frame(true, revision == 2 ? Mpa.FLAG_ENHANCED : 0, revision, word, HELLO));
            s.accept(HELLO);
            final Mpa.Frame reply = raw.readFrame(false);
            assertEquals(revision, reply.revision());
            assertTrue(reply.crc(), "the responder asked for CRC: " + reply);
            assertFalse(reply.reject() || reply.markers());
            assertArrayEquals(WELCOME, reply.privateData());
            if (revision == 2)
            {
                assertTrue(reply.enhanced(), reply.toString());
                // RFC 6581: the responder's ORD is at most the initiator's IRD, its IRD covers the initiator's ORD
                assertEquals(3, reply.irdOrd().ord());
                assertTrue(reply.irdOrd().ird() >= 2, reply.irdOrd().toString());
                assertFalse(reply.irdOrd().peerToPeer());
            }
            else
            {
                assertFalse(reply.enhanced());
                assertNull(reply.irdOrd());
            }
            raw.crc(true);

            // the responder sent nothing behind its Reply: the initiator speaks first
            raw.socket.setSoTimeout(200);
            assertThrowsTimeout(raw);
            raw.socket.setSoTimeout(5000);

            final byte[] payload = new byte[3000];
            Arrays.fill(payload, (byte) 0x42);
            raw.send(RawMessage.send(1, payload));
            final DatEvent recv = next(s.ep().recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
            assertEquals(3000, recv.dto.transferredLength);
            assertTrue(BytePattern.all(s.lmr().memory(), 0, 3000, (byte) 0x42));

            // jdat's Send: one FPDU with a good CRC, queue 0, MSN 1, MO 0, L set
            BytePattern.fill(s.lmr().memory(), 8192, 100, 3);
            s.ep().ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(s.lmr(), 8192, 100)}, 9,
                CompletionFlags.DEFAULT_FLAG);
            final ByteBuffer f = raw.readFpdu();
            assertTrue(raw.crcValid(f), "CRC32C of jdat's FPDU");
            assertNotEquals(0, Fpdu.getCrc(f, 0, Fpdu.ulpduLength(f, 0)));
            final int seg = Fpdu.ULPDU_OFFSET;
            assertEquals(RdmapOpcode.SEND, RawPeer.opcode(f));
            assertEquals(DdpRdmap.UNTAGGED_HEADER_LENGTH + 100, Fpdu.ulpduLength(f, 0));
            assertFalse(DdpRdmap.isTagged(f, seg));
            assertTrue(DdpRdmap.isLast(f, seg));
            assertEquals(1, DdpRdmap.ddpVersion(f, seg));
            assertEquals(1, DdpRdmap.rdmapVersion(f, seg));
            assertEquals(DdpRdmap.QN_SEND, DdpRdmap.queueNumber(f, seg));
            assertEquals(1, DdpRdmap.msn(f, seg));
            assertEquals(0, DdpRdmap.mo(f, seg));
            final MemorySegment body = MemorySegment.ofBuffer(f).asSlice(seg + DdpRdmap.UNTAGGED_HEADER_LENGTH, 100);
            assertEquals(-1, BytePattern.mismatch(body, 0, 100, 3));
        }
    }

    private static void assertThrowsTimeout(final RawPeer raw) throws Exception
    {
        try
        {
            final int b = raw.socket.getInputStream().read();
            throw new AssertionError("the responder sent before the initiator's first FPDU: " + b);
        }
        catch (final java.net.SocketTimeoutException e)
        {
            // nothing came
        }
    }

    @Test
    void theInitiatorSendsAnEnhancedPeerToPeerRequestAndTheReadyToReceiveWrite() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
            TcpNode c = TcpNode.open())
        {
            final Lmr lmr = c.lmr(4096);
            final TcpNode.Ep client = c.ep(null);
            client.ep().connect(c.address, listener.getLocalPort(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            try (RawPeer raw = new RawPeer(listener.accept()))
            {
                final Mpa.Frame request = raw.readFrame(true);
                assertEquals(Mpa.REVISION_2, request.revision());
                assertEquals(Mpa.FLAG_ENHANCED, request.flags(), "E only: no markers, no CRC by default");
                assertArrayEquals(HELLO, request.privateData());
                final Mpa.IrdOrd word = request.irdOrd();
                assertEquals(4, word.ird(), "max_rdma_read_in of the endpoint");
                assertEquals(4, word.ord(), "max_rdma_read_out of the endpoint");
                assertTrue(word.peerToPeer() && word.writeRtr() && !word.readRtr() && !word.zeroLengthSendRtr(),
                    word.toString());
                // nothing follows the Request before the Reply
                raw.socket.setSoTimeout(200);
                assertThrowsTimeout(raw);
                raw.socket.setSoTimeout(5000);

                raw.write(RawPeer.frame(false, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.replyIrdOrd(word, 2, 1),
                    WELCOME));
                final DatEvent up = next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertArrayEquals(WELCOME, Arrays.copyOf(up.connection.privateData, up.connection.privateDataSize));

                // the ready-to-receive message: a zero-length RDMA Write, STag 0, TO 0, L set
                final ByteBuffer rtr = raw.readFpdu();
                assertTrue(raw.crcValid(rtr));
                assertEquals(RdmapOpcode.RDMA_WRITE, RawPeer.opcode(rtr));
                assertEquals(DdpRdmap.TAGGED_HEADER_LENGTH, Fpdu.ulpduLength(rtr, 0));
                assertTrue(DdpRdmap.isTagged(rtr, Fpdu.ULPDU_OFFSET) && DdpRdmap.isLast(rtr, Fpdu.ULPDU_OFFSET));
                assertEquals(0, DdpRdmap.stag(rtr, Fpdu.ULPDU_OFFSET));
                assertEquals(0, DdpRdmap.taggedOffset(rtr, Fpdu.ULPDU_OFFSET));

                // then the consumer's Send, MSN 1
                client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 10)}, 1, CompletionFlags.DEFAULT_FLAG);
                final ByteBuffer send = raw.readFpdu();
                assertEquals(RdmapOpcode.SEND, RawPeer.opcode(send));
                assertEquals(1, DdpRdmap.msn(send, Fpdu.ULPDU_OFFSET));
            }
        }
    }

    /**
     * A responder that does not wait for the initiator's first FPDU (jdat's own with
     * {@code responder_waits=false}, or once {@code responder_wait_ms} ran out) may have its first
     * Send arrive in the same segment as its Reply: those bytes belong to the connection, not to
     * the handshake.
     */
    @Test
    void aSendThatArrivesWithTheReplyIsDelivered() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
            TcpNode c = TcpNode.open())
        {
            final Lmr lmr = c.lmr(4096);
            lmr.memory().fill(UNTOUCHED);
            final TcpNode.Ep client = c.ep(null);
            client.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 4096)}, 5, CompletionFlags.DEFAULT_FLAG);
            client.ep().connect(c.address, listener.getLocalPort(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            try (RawPeer raw = new RawPeer(listener.accept()))
            {
                raw.readFrame(true);
                // no peer-to-peer mode: the initiator sends no ready-to-receive message
                final byte[] reply = RawPeer.frame(false, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1),
                    WELCOME);
                final byte[] payload = new byte[100];
                Arrays.fill(payload, (byte) 0x42);
                final byte[] send = raw.fpdus(RawMessage.send(1, payload), b ->
                {
                });
                final byte[] both = Arrays.copyOf(reply, reply.length + send.length);
                System.arraycopy(send, 0, both, reply.length, send.length);
                raw.write(both);

                next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                final DatEvent recv = next(client.recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
                assertEquals(100, recv.dto.transferredLength);
                assertTrue(BytePattern.all(lmr.memory(), 0, 100, (byte) 0x42));
                assertTrue(BytePattern.all(lmr.memory(), 100, 4096 - 100, UNTOUCHED));
            }
        }
    }

    @Test
    void aReplyWithRejectIsAPeerRejectionAndAnEndOfStreamANonPeerOne() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
            TcpNode c = TcpNode.open())
        {
            final TcpNode.Ep first = c.ep(null);
            first.ep().connect(c.address, listener.getLocalPort(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            try (RawPeer raw = new RawPeer(listener.accept()))
            {
                raw.readFrame(true);
                raw.write(RawPeer.frame(false, Mpa.FLAG_REJECT, Mpa.REVISION_2, null, null));
                next(first.conn(), EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            }
            final TcpNode.Ep second = c.ep(null);
            second.ep().connect(c.address, listener.getLocalPort(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            try (Socket s = listener.accept())
            {
                s.shutdownOutput();
                next(second.conn(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            }
        }
    }

    @Test
    void aRequestWithMarkersOrBytesBehindItIsRefusedBeforeTheConsumerSeesIt() throws Exception
    {
        final Server s = Server.open("");
        try (TcpNode _ = s.node())
        {
            try (RawPeer raw = RawPeer.connect(s.psp().connQual()))
            {
                raw.write(RawPeer.frame(true, Mpa.FLAG_MARKERS | Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1),
                    HELLO));
                assertTrue(raw.readFrame(false).reject(), "markers are refused with R set");
                assertTrue(raw.endOfStream());
            }
            try (RawPeer raw = RawPeer.connect(s.psp().connQual()))
            {
                // RFC 5044: nothing may be pipelined behind the Request
                final byte[] request = RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1),
                    HELLO);
                final byte[] withExtra = Arrays.copyOf(request, request.length + 8);
                raw.write(withExtra);
                assertTrue(raw.readFrame(false).reject(), "bytes behind the Request are refused with R set");
                assertTrue(raw.endOfStream());
            }
            assertTrue(TcpNode.quiet(s.crEvd(), 200), "no connection request reached the consumer");
        }
    }

    /** Ways to break the protocol in the initiator's first FPDU, and the Terminate each one earns. */
    enum Bad
    {
        CRC(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR, (raw, lmr) -> raw.fpdus(
            RawMessage.send(1, new byte[100]), b -> b.put(b.limit() - 1, (byte) (b.get(b.limit() - 1) ^ 1)))),
        SHORT_LENGTH(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_FPDU_MARKER_MISMATCH, (raw, lmr) ->
        {
            // ULPDU_Length 1: not even the two control bytes
            final ByteBuffer b = ByteBuffer.allocate(Fpdu.fpduLength(1));
            Fpdu.putUlpduLength(b, 0, 1);
            b.put(2, (byte) 0x41);
            raw.recrc(b);
            return b.array();
        }),
        DDP_VERSION(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_INVALID_VERSION, (raw, lmr) -> raw.fpdus(RawMessage.send(1, new byte[100]),
                damage(raw, b -> b.put(2, (byte) ((b.get(2) & ~DdpRdmap.DDP_VERSION_MASK) | 2))))),
        RDMAP_VERSION(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_INVALID_VERSION, (raw, lmr) -> raw.fpdus(RawMessage.send(1, new byte[100]),
                damage(raw, b -> b.put(3, (byte) (b.get(3) & ~DdpRdmap.RDMAP_VERSION_MASK))))),
        QUEUE_NUMBER(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_INVALID_QN,
            (raw, lmr) -> raw.fpdus(RawMessage.send(1, new byte[100]),
                damage(raw, b -> b.putInt(2 + DdpRdmap.UNTAGGED_QN_OFFSET, 3)))),
        SEND_WITH_INVALIDATE(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE, (raw, lmr) -> raw.fpdus(RawMessage.send(1, new byte[100]),
                damage(raw, b -> b.put(3, (byte) ((b.get(3) & ~DdpRdmap.RDMAP_OPCODE_MASK)
                    | RdmapOpcode.SEND_WITH_INVALIDATE))))),
        WRONG_MSN(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
            TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, (raw, lmr) -> raw.fpdus(RawMessage.send(2, new byte[100]),
                b ->
                {
                })),
        WRITE_OUT_OF_BOUNDS(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER,
            TerminateCodes.DDP_TAGGED_BASE_BOUNDS, (raw, lmr) -> raw.fpdus(RawMessage.write(lmr.rmrContext(),
                lmr.registeredAddress() + MEM - 50, new byte[100]), b ->
                {
                })),
        FORGED_STAG(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER, TerminateCodes.DDP_TAGGED_INVALID_STAG,
            (raw, lmr) -> raw.fpdus(RawMessage.write(lmr.rmrContext() ^ 0x5500, lmr.registeredAddress(),
                new byte[100]), b ->
                {
                }));

        final int layer;
        final int etype;
        final int code;
        final BiFunction<RawPeer, Lmr, byte[]> bytes;

        Bad(final int layer, final int etype, final int code, final BiFunction<RawPeer, Lmr, byte[]> bytes)
        {
            this.layer = layer;
            this.etype = etype;
            this.code = code;
            this.bytes = bytes;
        }

        /** A change to an encoded FPDU whose CRC is then made right again. */
        private static Consumer<ByteBuffer> damage(final RawPeer raw, final Consumer<ByteBuffer> change)
        {
            return b ->
            {
                change.accept(b);
                raw.recrc(b);
            };
        }
    }

    @ParameterizedTest
    @EnumSource(Bad.class)
    void aMalformedOrHostileFpduEarnsATerminateBreaksTheConnectionAndPlacesNothing(final Bad bad) throws Exception
    {
        final Server s = Server.open("");
        try (TcpNode _ = s.node(); RawPeer raw = RawPeer.connect(s.psp().connQual()))
        {
            raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED | Mpa.FLAG_CRC, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1),
                HELLO));
            s.accept(HELLO);
            assertTrue(raw.readFrame(false).crc());
            raw.crc(true);
            raw.write(bad.bytes.apply(raw, s.lmr()));

            final ByteBuffer t = raw.readFpdu();
            assertTrue(raw.crcValid(t), "the Terminate's CRC");
            assertEquals(RdmapOpcode.TERMINATE, RawPeer.opcode(t));
            assertEquals(DdpRdmap.QN_TERMINATE, DdpRdmap.queueNumber(t, Fpdu.ULPDU_OFFSET));
            assertEquals(1, DdpRdmap.msn(t, Fpdu.ULPDU_OFFSET));
            final TerminateInfo info = DdpRdmap.readTerminate(t, Fpdu.ULPDU_OFFSET, Fpdu.ulpduLength(t, 0));
            assertEquals(bad.layer, info.layer(), info.toString());
            assertEquals(bad.etype, info.etype(), info.toString());
            assertEquals(bad.code, info.code(), info.toString());
            assertTrue(raw.endOfStream(), "jdat closed its side after the Terminate");

            next(s.ep().conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent recv = next(s.ep().recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertNotEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
            assertTrue(BytePattern.all(s.lmr().memory(), 0, MEM, UNTOUCHED), "nothing was placed");
        }
    }

    @Test
    void aSendWithNoReceivePostedIsTerminatedWithNoBuffer() throws Exception
    {
        final TcpNode n = TcpNode.open();
        try (n)
        {
            final EventDispatcher crEvd = n.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = n.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep ep = n.ep(null);
            try (RawPeer raw = RawPeer.connect(psp.connQual()))
            {
                raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), null));
                next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
                next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                raw.readFrame(false);
                // RFC 5040: no receiver-not-ready on iWARP; a Send without a buffer ends the stream
                raw.send(RawMessage.send(1, new byte[10]));
                final ByteBuffer t = raw.readFpdu();
                final TerminateInfo info = DdpRdmap.readTerminate(t, Fpdu.ULPDU_OFFSET, Fpdu.ulpduLength(t, 0));
                assertEquals(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, info.code(), info.toString());
                assertTrue(info.hdrKnown() && !info.tagged() && info.msn() == 1, info.toString());
                next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            }
        }
    }

    @Test
    void theResponderConsumesTheReadyToReceiveWriteAndBreaksOnThePeersTerminate() throws Exception
    {
        final TcpNode n = TcpNode.open();
        try (n)
        {
            final Lmr lmr = n.lmr(4096);
            final EventDispatcher crEvd = n.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = n.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep ep = n.ep(null);
            try (RawPeer raw = RawPeer.connect(psp.connQual()))
            {
                raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2,
                    new Mpa.IrdOrd(1, 1, true, false, true, false), null));
                next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
                next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                final Mpa.IrdOrd word = raw.readFrame(false).irdOrd();
                assertTrue(word.peerToPeer() && word.writeRtr() && !word.readRtr(), word.toString());
                // the consumer's Send waits for the ready-to-receive message
                ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 16)}, 5, CompletionFlags.DEFAULT_FLAG);
                raw.socket.setSoTimeout(200);
                assertThrowsTimeout(raw);
                raw.socket.setSoTimeout(5000);
                raw.send(RawMessage.write(0, 0, new byte[0]));
                final ByteBuffer send = raw.readFpdu();
                assertEquals(RdmapOpcode.SEND, RawPeer.opcode(send));
                assertEquals(1, DdpRdmap.msn(send, Fpdu.ULPDU_OFFSET));
                next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);

                final ByteBuffer term = ByteBuffer.allocate(128);
                new io.jdat.tcp.FpduEncoder(false).encodeTerminate(term, TerminateInfo.of(TerminateCodes.LAYER_RDMAP,
                    TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_CATASTROPHIC_STREAM));
                raw.write(Arrays.copyOf(term.array(), term.position()));
                next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
                assertTrue(raw.endOfStream());
            }
        }
    }

    @Test
    void aFirstFpduOtherThanTheAgreedReadyToReceiveWriteIsTerminated() throws Exception
    {
        final Server s = Server.open("");
        try (TcpNode _ = s.node(); RawPeer raw = RawPeer.connect(s.psp().connQual()))
        {
            raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2,
                new Mpa.IrdOrd(1, 1, true, false, true, false), HELLO));
            s.accept(HELLO);
            raw.readFrame(false);
            raw.send(RawMessage.send(1, new byte[100]));
            final ByteBuffer t = raw.readFpdu();
            final TerminateInfo info = DdpRdmap.readTerminate(t, Fpdu.ULPDU_OFFSET, Fpdu.ulpduLength(t, 0));
            assertEquals(TerminateCodes.LAYER_LLP, info.layer(), info.toString());
            assertEquals(TerminateCodes.LLP_NO_MATCHING_RTR, info.code(), info.toString());
            next(s.ep().conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            assertTrue(BytePattern.all(s.lmr().memory(), 0, MEM, UNTOUCHED), "nothing was placed");
        }
    }
}

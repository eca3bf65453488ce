package io.jdat.tcp.channel;

import static io.jdat.testkit.FuzzVictim.READ_SINK;
import static io.jdat.testkit.FuzzVictim.READ_SIZE;
import static io.jdat.testkit.FuzzVictim.RECV_SIZE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jdat.ConnectFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.tcp.DdpRdmap;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.FpduDecoder;
import io.jdat.tcp.FpduEncoder;
import io.jdat.tcp.Mpa;
import io.jdat.testkit.BytePattern;
import io.jdat.testkit.FuzzInput;
import io.jdat.testkit.FuzzVictim;
import io.jdat.testkit.GuardedRegions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: the whole receive path of a tcp IA, from the bytes a peer writes on a TCP socket to
 * the consumer's events and registered memory. A raw socket plays the peer: it connects to a PSP
 * of a jdat IA (or lets a jdat endpoint connect to it), sends an MPA frame from the input, and
 * when that opened the connection, writes the rest of the input as its FPDUs, then closes its side.
 *
 * <p>Input: byte 0 options ({@link #OPT_ACTIVE} jdat connects and the frame is the peer's Reply,
 * else the peer connects and the frame is its Request; {@link #OPT_REJECT} the consumer rejects
 * the Request; {@link #OPT_FIX_CRC} the CRC of every whole FPDU is made right before sending;
 * {@link #OPT_READ} jdat posts an RDMA Read once connected; {@link #OPT_SPLIT} the stream is
 * written in pieces with pauses between them, so that jdat reads FPDUs cut short and places large
 * RDMA Writes and Sends straight from the socket: the third of the receives posted is large enough
 * for that), bytes 1-2 the frame's length, the
 * frame, then the stream. STags and tagged offsets in the stream are read relative to what the
 * peer was given: STag field {@code x} selects by {@code x & 3} region A's remote context, region
 * B's local context (no remote rights), a forged context, or {@code x} itself; a TO is an offset
 * from the selected region's base.
 *
 * <p>For every input: no exception leaves jdat (none reaches the log or an uncaught-exception
 * handler); the outcome of the handshake is the one RFC 5044 and RFC 6581 give for the frame; jdat
 * closes the socket within 5 s, and everything it sent before is well-formed (its FPDUs decode
 * with the agreed CRC; a Terminate is the last of them and never a local catastrophic error,
 * which here would mean an exception inside the engine); the connection ends with BROKEN (after
 * a Terminate) or DISCONNECTED; every posted DTO completes exactly once and none with a local
 * protection error; no byte around the registered regions, nor any byte of region B, changes;
 * and the sockets of ended connections are given back (the open file descriptors stay within
 * {@link #FD_SLACK} of their number after the first input).
 */
class TcpReceiveFuzzTest
{
    static final int OPT_ACTIVE = 1;
    static final int OPT_REJECT = 2;
    static final int OPT_FIX_CRC = 4;
    static final int OPT_READ = 8;
    static final int OPT_SPLIT = 16;
    /** {@link #OPT_SPLIT}: bytes per piece, pause after each, and the most pieces before the rest goes at once. */
    private static final int SPLIT_PIECE = 3000;
    private static final int SPLIT_PAUSE_MS = 2;
    private static final int SPLIT_MAX = 16;

    /** guard | A | guard | B | guard ({@link GuardedRegions}) */
    private static final int A_SIZE = 32768;
    /** A third receive, large enough for a Send whose payload is read straight into it, in region A's upper half. */
    private static final int LARGE_RECV = 16384;
    private static final int LARGE_RECV_AT = A_SIZE - LARGE_RECV;
    private static final long SECOND = 1_000_000L;
    private static final byte[] HELLO = "fuzz".getBytes(StandardCharsets.US_ASCII);

    private static TcpNode node;
    private static FuzzVictim v;
    private static PublicServicePoint psp;
    private static Lmr a;
    private static Lmr b;
    private static ServerSocket listener;
    /** RDMA Reads an endpoint of the IA serves at most ({@code max_rdma_read_per_ep}). */
    private static int maxReadsIn;
    /** The IRD and ORD a Request without the RFC 6581 word stands for ({@code rev1_ird_ord}'s default). */
    private static final int REV1_IRD_ORD = 1;
    /** Open file descriptors after the first input (-1 before), and how many more may be open. */
    private static long baselineFds = -1;
    private static final int FD_SLACK = 64;

    @BeforeAll
    static void open() throws IOException
    {
        node = TcpNode.open("");
        v = new FuzzVictim(node, A_SIZE);
        a = v.a;
        b = v.b;
        psp = node.ia.pspCreateAny(v.crEvd, PspFlags.CONSUMER_FLAG);
        maxReadsIn = node.query().maxRdmaReadPerEpIn;
        listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        listener.setSoTimeout(5000);
    }

    @AfterAll
    static void close() throws IOException
    {
        if (STRAY_INTERRUPTS.get() > 0)
        {
            System.out.println("TcpReceiveFuzzTest: input threads resumed after " + STRAY_INTERRUPTS.get()
                + " interrupts no time box asked for");
        }
        v.close();
        listener.close();
        node.close();
    }

    // ---------------------------------------------------------------- seeds

    static Stream<Arguments> seeds()
    {
        final byte[] payload = new byte[40];
        Arrays.fill(payload, (byte) 7);
        final List<Arguments> seeds = new ArrayList<>();
        for (final boolean crc : new boolean[] {false, true})
        {
            final int flags = Mpa.FLAG_ENHANCED | (crc ? Mpa.FLAG_CRC : 0);
            final byte[] request = RawPeer.frame(true, flags, Mpa.REVISION_2, Mpa.IrdOrd.of(4, 4), HELLO);
            final byte[] reply = RawPeer.frame(false, flags, Mpa.REVISION_2, Mpa.IrdOrd.of(4, 4), HELLO);
            final byte[] stream = fpdus(crc,
                RawMessage.send(1, payload),
                RawMessage.write(0, 100, payload),
                new RawMessage(RdmapOpcode.RDMA_READ_REQUEST, 1, 0x77, 0x5000, 64, 0, 200,
                    new byte[0]),
                new RawMessage(RdmapOpcode.RDMA_READ_RESPONSE, 0, 0, READ_SINK, 0, 0, 0,
                    new byte[READ_SIZE]),
                RawMessage.send(2, payload));
            seeds.add(arguments(input(crc ? OPT_FIX_CRC : 0, request, stream)));
            seeds.add(arguments(input(OPT_ACTIVE | OPT_READ | (crc ? OPT_FIX_CRC : 0), reply, stream)));
        }
        seeds.add(arguments(input(OPT_REJECT, RawPeer.frame(true, 0, Mpa.REVISION_1, null, HELLO), new byte[0])));
        // a Request whose initiator would issue more RDMA Reads than an endpoint serves: the
        // accept fails, and nothing else may make it fail
        seeds.add(arguments(input(0, RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1000),
            HELLO), new byte[0])));
        // a Write one byte past region A, and one into region B
        seeds.add(arguments(input(0, RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), HELLO),
            fpdus(false, RawMessage.write(0, A_SIZE - 10, payload)))));
        seeds.add(arguments(input(0, RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), HELLO),
            fpdus(false, RawMessage.write(1, 0, payload)))));
        // large Writes arriving in pieces (placed straight from the socket): into region A, one
        // byte past its end, into region B, and a second segment past the end after a good first
        final byte[] large = new byte[20_000];
        Arrays.fill(large, (byte) 9);
        final byte[] p2p = RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), HELLO);
        seeds.add(arguments(input(OPT_SPLIT, p2p, fpdus(false, RawMessage.write(0, 100, large),
            RawMessage.send(1, payload)))));
        seeds.add(arguments(input(OPT_SPLIT, p2p,
            fpdus(false, RawMessage.write(0, A_SIZE - large.length + 1, large)))));
        seeds.add(arguments(input(OPT_SPLIT, p2p, fpdus(false, RawMessage.write(1, 0, large)))));
        seeds.add(arguments(input(OPT_SPLIT, p2p, fpdus(false, RawMessage.write(0, 0, large),
            RawMessage.write(0, A_SIZE - 100, large)))));
        // a large third Send, read straight into the large receive, with and without CRC; and one
        // too long for its receive
        final byte[] largeSend = new byte[LARGE_RECV - 1000];
        Arrays.fill(largeSend, (byte) 5);
        final byte[] p2pCrc = RawPeer.frame(true, Mpa.FLAG_ENHANCED | Mpa.FLAG_CRC, Mpa.REVISION_2,
            Mpa.IrdOrd.of(1, 1), HELLO);
        for (final boolean crc : new boolean[] {false, true})
        {
            seeds.add(arguments(input(OPT_SPLIT | (crc ? OPT_FIX_CRC : 0), crc ? p2pCrc : p2p, fpdus(crc,
                RawMessage.send(1, payload), RawMessage.send(2, payload),
                RawMessage.send(3, largeSend)))));
        }
        seeds.add(arguments(input(OPT_SPLIT, p2p, fpdus(false,
            RawMessage.send(1, payload), RawMessage.send(2, payload), RawMessage.send(3, large)))));
        return seeds.stream();
    }

    private static byte[] fpdus(final boolean crc, final OutboundMessage... messages)
    {
        final FpduEncoder e = new FpduEncoder(crc);
        final ByteBuffer out = ByteBuffer.allocate(1 << 16);
        for (final OutboundMessage m : messages)
        {
            e.begin(m);
            if (!e.encode(out))
            {
                throw new IllegalStateException("seed too large");
            }
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    private static byte[] input(final int options, final byte[] frame, final byte[] stream)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(options);
        out.write(frame.length >>> 8);
        out.write(frame.length);
        out.writeBytes(frame);
        out.writeBytes(stream);
        return out.toByteArray();
    }

    // ---------------------------------------------------------------- the target

    @MethodSource("seeds")
    @FuzzTest(maxDuration = "8s")
    void bytesFromARawPeer(final byte[] input) throws Exception
    {
        FuzzInput.run("tcp-fuzz-input", () -> oneInput(input), e ->
        {
            // an input ended by an interrupt is no finding, and nothing is left to release
        });
    }

    private void oneInput(final byte[] input) throws Exception
    {
        if (input == null || input.length < 3)
        {
            return;
        }
        final int options = input[0];
        final int frameLength = Math.min(((input[1] & 0xFF) << 8) | (input[2] & 0xFF), input.length - 3);
        final byte[] frame = Arrays.copyOfRange(input, 3, 3 + frameLength);
        final byte[] stream = Arrays.copyOfRange(input, 3 + frameLength, input.length);

        v.clear();
        BytePattern.fill(v.regionA(), 0, A_SIZE, 11);
        final Endpoint ep = node.ia.epCreate(node.pz, v.recvEvd, v.reqEvd, v.connEvd, null);
        final Run run = new Run(ep);
        try
        {
            if ((options & OPT_ACTIVE) != 0)
            {
                run.active(frame);
            }
            else
            {
                run.passive(frame, (options & OPT_REJECT) != 0);
            }
            if (run.socket != null)
            {
                run.exchange(stream, options);
            }
            v.accountFor(run.posted, STRAY_INTERRUPTS);
        }
        finally
        {
            run.closeSocket();
            ep.free();
        }
        assertEquals(List.of(), v.failures, "jdat logged or threw");
        v.checkMemory();
        checkDescriptors();
    }

    /**
     * Ended connections give their sockets back: the open file descriptors stay near what they
     * were after the first input (released ones may take a moment).
     */
    private static void checkDescriptors()
    {
        if (baselineFds < 0)
        {
            baselineFds = FuzzVictim.openFds();
            return;
        }
        final long open = FuzzVictim.settle(FuzzVictim::openFds, baselineFds + FD_SLACK);
        assertTrue(open <= baselineFds + FD_SLACK, "file descriptors: " + open + " open, " + baselineFds
            + " after the first input: ended connections keep theirs");
    }

    /** One connection attempt and what came of it. */
    private static final class Run
    {
        final Endpoint ep;
        Socket socket;
        /** The frames of the handshake, as the initiator and the responder sent them. */
        Mpa.Frame request;
        Mpa.Frame reply;
        boolean established;
        /** Posted DTOs (cookie → recv or request EVD) that must each complete once. */
        final Map<Long, EventDispatcher> posted = new HashMap<>();

        Run(final Endpoint ep)
        {
            this.ep = ep;
        }

        /** The peer connects with {@code frame} as its Request. */
        void passive(final byte[] frame, final boolean reject) throws Exception
        {
            socket = new Socket();
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), (int) psp.connQual()), 5000);
            socket.setSoTimeout(5000);
            socket.setTcpNoDelay(true);
            socket.getOutputStream().write(frame);
            final Mpa.Result r = Mpa.decode(ByteBuffer.wrap(frame), true);
            final boolean refusedRtr = r.status() == Mpa.Status.FRAME && r.frame().irdOrd() != null
                && r.frame().irdOrd().peerToPeer() && !r.frame().irdOrd().writeRtr() && r.frame().irdOrd().readRtr();
            if (r.status() == Mpa.Status.FRAME && !refusedRtr)
            {
                // a complete, acceptable Request: the consumer hears of it
                final DatEvent cr = next(v.crEvd, "a connection request for " + r.frame());
                assertTrue(cr.is(EventNumber.CONNECTION_REQUEST_EVENT), cr.toString());
                request = r.frame();
                if (reject)
                {
                    cr.crArrival.crHandle.reject();
                    final Mpa.Frame answer = readFrame(false);
                    assertTrue(answer.reject(), "a reject is a Reply with R set: " + answer);
                    assertEndOfStream(readRest());
                    socket.close();
                    socket = null;
                    return;
                }
                post(RECV_SIZE, 1);
                post(RECV_SIZE, 2);
                v.postRecv(ep, posted, 3, LARGE_RECV_AT, LARGE_RECV);
                cr.crArrival.crHandle.accept(ep, HELLO);
                reply = tryReadFrame(false);
                if (reply == null)
                {
                    // the endpoint cannot serve the RDMA Reads the initiator asked for: the
                    // connection is reset, and the consumer's accept fails. Only then: an accept
                    // that fails for any other reason is a finding, not this outcome
                    final int asked = request.irdOrd() != null ? request.irdOrd().ord() : REV1_IRD_ORD;
                    assertTrue(asked > maxReadsIn, "no Reply to " + request + ", although the " + asked
                        + " RDMA Reads it asks to issue fit the endpoint's " + maxReadsIn);
                    final DatEvent ev = next(v.connEvd, "the failed accept");
                    assertTrue(ev.is(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR), ev.toString());
                    socket.close();
                    socket = null;
                    return;
                }
                assertEquals(Mpa.ReplyCheck.ACCEPTED, Mpa.checkReply(request, reply), reply + " to " + request);
                if (request.enhanced())
                {
                    // RFC 6581: the responder reads no more than the initiator serves, and serves
                    // at least what the initiator reads
                    assertTrue(reply.irdOrd().ord() <= request.irdOrd().ird(), reply + " to " + request);
                    assertTrue(reply.irdOrd().ird() >= request.irdOrd().ord(), reply + " to " + request);
                }
                if (request.irdOrd() == null || !request.irdOrd().peerToPeer())
                {
                    expectEstablished();
                }
                return;
            }
            if (r.status() == Mpa.Status.NEED_MORE)
            {
                // the peer gives up before its Request is complete
                socket.shutdownOutput();
            }
            // refused: a Reply with R set (not for a wrong key: that is no MPA peer), then the end
            final byte[] rest = readRest();
            if (r.status() != Mpa.Status.EXTRA_DATA)
            {
                if (rest.length > 0)
                {
                    assertNotEquals(Mpa.Status.BAD_KEY, r.status(), "no Reply to a stranger");
                    final Mpa.Result answer = Mpa.decode(ByteBuffer.wrap(rest), false);
                    assertEquals(Mpa.Status.FRAME, answer.status(), "jdat's refusal of " + r.status());
                    assertTrue(answer.frame().reject(), answer.frame().toString());
                }
                FuzzVictim.assertNoEvent(v.crEvd, "no connection request for a Request that is " + r.status());
            }
            else
            {
                // bytes behind the Request: refused, or seen after the request was raised and the
                // request withdrawn; either way the consumer cannot accept it
                final DatEvent late = new DatEvent();
                if (v.crEvd.dequeue(late) == DatStatus.SUCCESS)
                {
                    late.crArrival.crHandle.reject();
                }
            }
            socket.close();
            socket = null;
        }

        /** jdat connects; the peer answers its Request with {@code frame}. */
        void active(final byte[] frame) throws Exception
        {
            ep.connect(node.address, listener.getLocalPort(), 5 * SECOND, HELLO, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT_FLAG);
            socket = listener.accept();
            socket.setSoTimeout(5000);
            socket.setTcpNoDelay(true);
            request = readFrame(true);
            socket.getOutputStream().write(frame);
            final Mpa.Result r = Mpa.decode(ByteBuffer.wrap(frame), false);
            if (r.status() == Mpa.Status.NEED_MORE)
            {
                socket.shutdownOutput();
            }
            final EventNumber expected;
            // bytes behind a whole Reply are the responder's first FPDUs: the connection reads them
            if (r.status() == Mpa.Status.FRAME || r.status() == Mpa.Status.EXTRA_DATA)
            {
                final Mpa.Frame f = r.frame();
                final Mpa.IrdOrd word = f.irdOrd();
                expected = switch (Mpa.checkReply(request, f))
                {
                    // RFC 6581: a peer-to-peer Reply must choose the zero-length Write jdat offered
                    case ACCEPTED -> word != null && word.peerToPeer() && (request.irdOrd() == null
                        || !request.irdOrd().peerToPeer() || !word.writeRtr())
                        ? EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED : EventNumber.CONNECTION_EVENT_ESTABLISHED;
                    case REJECTED -> EventNumber.CONNECTION_EVENT_PEER_REJECTED;
                    default -> EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED;
                };
            }
            else
            {
                expected = EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED;
            }
            final DatEvent ev = next(v.connEvd, "the outcome of the Reply " + r.status());
            assertTrue(ev.is(expected), "expected " + expected + " for " + r.status() + " " + r.frame() + ", got "
                + ev);
            if (ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
            {
                reply = r.frame();
                established = true;
                post(RECV_SIZE, 1);
                post(RECV_SIZE, 2);
                v.postRecv(ep, posted, 3, LARGE_RECV_AT, LARGE_RECV);
                return;
            }
            // jdat closed its side: nothing more than the Request came
            assertEndOfStream(readRest());
            socket.close();
            socket = null;
        }

        private void expectEstablished()
        {
            final DatEvent ev = next(v.connEvd, "ESTABLISHED after the Reply");
            assertTrue(ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED), ev.toString());
            established = true;
        }

        private void post(final int size, final long cookie)
        {
            v.postRecv(ep, posted, cookie, (cookie - 1) * size, size);
        }

        /** Writes the stream, closes the peer's side, and reads everything jdat sent until it closed. */
        void exchange(final byte[] stream, final int options) throws Exception
        {
            final boolean crc = Mpa.crcInUse(request, reply);
            if (established && (options & OPT_READ) != 0)
            {
                v.postRead(ep, posted);
            }
            final byte[] bytes = adapt(stream, crc && (options & OPT_FIX_CRC) != 0);
            try
            {
                int at = 0;
                for (int i = 0; (options & OPT_SPLIT) != 0 && i < SPLIT_MAX && bytes.length - at > SPLIT_PIECE; i++)
                {
                    socket.getOutputStream().write(bytes, at, SPLIT_PIECE);
                    at += SPLIT_PIECE;
                    Thread.sleep(SPLIT_PAUSE_MS);
                }
                socket.getOutputStream().write(bytes, at, bytes.length - at);
                socket.shutdownOutput();
            }
            catch (final SocketException e)
            {
                // jdat already terminated and reset the connection: what it sent is still readable
            }
            final byte[] sent = readRest();
            // every byte jdat sent after the handshake is a well-formed FPDU; a Terminate comes last
            final FpduDecoder decoder = new FpduDecoder(crc);
            final ByteBuffer in = ByteBuffer.allocate(Math.max(Fpdu.MAX_FPDU_LENGTH, sent.length));
            in.put(sent).flip();
            final Collector seen = new Collector();
            final FpduDecoder.Status status = decoder.decode(in, seen);
            assertTrue(status == FpduDecoder.Status.NEED_MORE || status == FpduDecoder.Status.TERMINATE_RECEIVED,
                "jdat sent a stream its own decoder refuses: " + status + " " + decoder.terminateInfo());
            assertEquals(0, in.remaining(), "bytes after jdat's last FPDU or Terminate");
            final TerminateInfo terminate = decoder.receivedTerminate();
            if (terminate != null)
            {
                assertFalse(localCatastrophic(terminate), "an exception inside jdat: " + terminate);
            }
            socket.close();
            socket = null;

            // the connection ends: after a Terminate it is broken
            DatEvent ev = next(v.connEvd, "the end of the connection");
            if (!established && ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
            {
                established = true;
                ev = next(v.connEvd, "the end of the connection");
            }
            if (established)
            {
                assertTrue(ev.is(EventNumber.CONNECTION_EVENT_BROKEN)
                    || ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED),
                    ev.toString());
                if (terminate != null)
                {
                    assertTrue(ev.is(EventNumber.CONNECTION_EVENT_BROKEN), "a Terminate, then " + ev);
                }
            }
            else
            {
                // a peer-to-peer responder that never got a proper ready-to-receive message
                assertTrue(ev.is(EventNumber.CONNECTION_EVENT_BROKEN)
                    || ev.is(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR)
                    || ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED), ev.toString());
            }
        }

        /** jdat's MPA frame, or null if it closed or reset the connection before sending one. */
        private Mpa.Frame tryReadFrame(final boolean expectRequest) throws IOException
        {
            final byte[] header;
            try
            {
                header = socket.getInputStream().readNBytes(Mpa.HEADER_LENGTH);
            }
            catch (final SocketException e)
            {
                return null;
            }
            return header.length == 0 ? null : frame(header, expectRequest);
        }

        private Mpa.Frame readFrame(final boolean expectRequest) throws IOException
        {
            return frame(socket.getInputStream().readNBytes(Mpa.HEADER_LENGTH), expectRequest);
        }

        private Mpa.Frame frame(final byte[] header, final boolean expectRequest) throws IOException
        {
            assertEquals(Mpa.HEADER_LENGTH, header.length, "jdat's MPA frame was cut short");
            final int pd = ((header[Mpa.PD_LENGTH_OFFSET] & 0xFF) << 8) | (header[Mpa.PD_LENGTH_OFFSET + 1] & 0xFF);
            assertTrue(pd <= Mpa.MAX_PRIVATE_DATA_LENGTH, "jdat's PD_Length " + pd);
            final byte[] rest = socket.getInputStream().readNBytes(pd);
            assertEquals(pd, rest.length);
            final byte[] all = Arrays.copyOf(header, Mpa.HEADER_LENGTH + pd);
            System.arraycopy(rest, 0, all, Mpa.HEADER_LENGTH, pd);
            final Mpa.Result r = Mpa.decode(ByteBuffer.wrap(all), expectRequest);
            assertEquals(Mpa.Status.FRAME, r.status(), "jdat's own MPA frame");
            return r.frame();
        }

        /** Everything jdat sends until it closes; fails if it does not close within 5 s. */
        private byte[] readRest() throws IOException
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final InputStream in = socket.getInputStream();
            final byte[] buf = new byte[8192];
            while (true)
            {
                final int n;
                try
                {
                    n = in.read(buf);
                }
                catch (final SocketTimeoutException e)
                {
                    throw new AssertionError("jdat did not close the connection within 5 s", e);
                }
                catch (final SocketException e)
                {
                    // reset: the end too
                    return out.toByteArray();
                }
                if (n < 0)
                {
                    return out.toByteArray();
                }
                out.write(buf, 0, n);
            }
        }

        private void assertEndOfStream(final byte[] rest)
        {
            assertArrayEquals(new byte[0], rest, "jdat sent bytes where it should only have closed");
        }

        void closeSocket() throws IOException
        {
            if (socket != null)
            {
                socket.close();
            }
        }
    }

    /** Whether a Terminate reports an error of the sender itself rather than of the segment it got. */
    static boolean localCatastrophic(final TerminateInfo t)
    {
        return switch (t.layer())
        {
            case TerminateCodes.LAYER_RDMAP -> t.etype() == TerminateCodes.RDMAP_LOCAL_CATASTROPHIC;
            case TerminateCodes.LAYER_DDP -> t.etype() == TerminateCodes.DDP_LOCAL_CATASTROPHIC;
            default -> t.code() == TerminateCodes.LLP_LOCAL_CATASTROPHIC;
        };
    }

    /**
     * The stream as the peer sends it: in every whole FPDU the STag and TO fields are resolved
     * against the regions ({@link TcpReceiveFuzzTest}), and the CRC is made right if asked.
     */
    private static byte[] adapt(final byte[] stream, final boolean fixCrc)
    {
        final byte[] s = stream.clone();
        final ByteBuffer buf = ByteBuffer.wrap(s);
        int at = 0;
        while (at + 2 <= s.length)
        {
            final int ulpdu = buf.getShort(at) & 0xFFFF;
            final int covered = (2 + ulpdu + 3) & ~3;
            if (at + covered + 4 > s.length)
            {
                break;
            }
            final int seg = at + 2;
            if (ulpdu >= 2)
            {
                final boolean tagged = (s[seg] & DdpRdmap.DDP_FLAG_TAGGED) != 0;
                final int opcode = s[seg + 1] & DdpRdmap.RDMAP_OPCODE_MASK;
                if (tagged && ulpdu >= DdpRdmap.TAGGED_HEADER_LENGTH)
                {
                    resolve(buf, seg + DdpRdmap.TAGGED_STAG_OFFSET, seg + DdpRdmap.TAGGED_TO_OFFSET);
                }
                else if (!tagged && opcode == RdmapOpcode.RDMA_READ_REQUEST
                    && ulpdu >= DdpRdmap.READ_REQUEST_LENGTH)
                {
                    resolve(buf, seg + DdpRdmap.READ_SOURCE_STAG_OFFSET, seg + DdpRdmap.READ_SOURCE_TO_OFFSET);
                }
            }
            if (fixCrc)
            {
                final CRC32C c = new CRC32C();
                c.update(s, at, covered);
                ByteBuffer.wrap(s, at + covered, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) c.getValue());
            }
            at += covered + 4;
        }
        return s;
    }

    private static void resolve(final ByteBuffer buf, final int stagAt, final int toAt)
    {
        final int field = buf.getInt(stagAt);
        final long offset = buf.getLong(toAt);
        switch (field & 3)
        {
            case 0 ->
            {
                buf.putInt(stagAt, a.rmrContext());
                buf.putLong(toAt, a.registeredAddress() + offset);
            }
            case 1 ->
            {
                buf.putInt(stagAt, b.lmrContext());
                buf.putLong(toAt, b.registeredAddress() + offset);
            }
            case 2 ->
            {
                buf.putInt(stagAt, a.rmrContext() ^ 0x100);
                buf.putLong(toAt, a.registeredAddress() + offset);
            }
            default ->
            {
                // the raw value
            }
        }
    }

    /**
     * Interrupts of an input's thread that no time box asked for: under the fuzzer something outside
     * the provider sets the interrupt status of an input's thread now and then (see ShmRingFuzzTest),
     * and a wait ended by one would leave the input half way, its events to the next input.
     */
    private static final java.util.concurrent.atomic.AtomicInteger STRAY_INTERRUPTS =
        new java.util.concurrent.atomic.AtomicInteger();

    private static DatEvent next(final EventDispatcher evd, final String what)
    {
        return FuzzInput.next(evd, what, STRAY_INTERRUPTS);
    }

    /** Takes jdat's FPDUs without judging them (the decoder's checks are what matters). */
    private static final class Collector implements ChannelHandler
    {
        @Override
        public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
            final MemorySegment src, final long off, final int len)
        {
            return true;
        }

        @Override
        public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            return true;
        }

        @Override
        public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
            final int srcStag, final long srcTo)
        {
            return true;
        }

        @Override
        public boolean onReadResponse(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            return true;
        }

        @Override
        public void onTerminate(final TerminateInfo info)
        {
        }

        @Override
        public void onSent(final OutboundMessage message)
        {
        }

        @Override
        public void onClosed(final CloseReason reason)
        {
        }
    }
}

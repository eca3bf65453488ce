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
import io.jdat.EpAttr;
import io.jdat.EvdFlags;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.tcp.DdpRdmap;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.Mpa;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Large Sends, whose payload jdat reads from the socket straight into the receive buffer at the
 * head of the receive queue. A peer written with the wire codecs sends each message's first FPDU
 * header first and the rest a moment later, so that jdat places the rest directly: the receives
 * complete with the peer's bytes (also two Sends in a row, the second's header read right after
 * the first's payload, a receive buffer of two segments, and an SRQ's buffers, which are filled by
 * copying); a Send
 * longer than its buffer fails as before, and with CRC a payload byte changed on the way ends the
 * connection with the LLP CRC-error Terminate and the receive is flushed, never reported good.
 */
class TcpSendPlacementTest
{
    /** One FPDU of the default 64 KiB, most of it placed straight from the socket. */
    private static final int SIZE = 60_000;
    /** What the peer sends first: the length field, the untagged header and a few payload bytes. */
    private static final int FIRST = Fpdu.ULPDU_OFFSET + DdpRdmap.UNTAGGED_HEADER_LENGTH + 10;

    /** What jdat saw: the receive completions, the bytes in the receive memory, a Terminate if one came. */
    private record Outcome(List<DatEvent> recvs, byte[] landed, TerminateInfo terminate)
    {
    }

    /**
     * Connects a raw peer to a jdat endpoint, posts one receive per entry of {@code recvs} (each
     * a list of segment lengths, laid out one after the other in one LMR) and sends
     * {@code payloads} as Sends: the first FPDU's first bytes, a pause, then the rest; a payload
     * byte of the first Send changed if {@code damage}.
     */
    private static Outcome exchange(final boolean crc, final int[][] recvs, final byte[][] payloads,
        final boolean damage) throws Exception
    {
        return exchange(crc, recvs, payloads, damage, false);
    }

    /** As above, the receives posted to an SRQ the endpoint uses if {@code srq}. */
    private static Outcome exchange(final boolean crc, final int[][] recvs, final byte[][] payloads,
        final boolean damage, final boolean srq) throws Exception
    {
        try (TcpNode node = TcpNode.open(crc ? "crc=true" : ""))
        {
            final EventDispatcher crEvd = node.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final SharedReceiveQueue queue = srq ? node.ia.srqCreate(node.pz, new SrqAttr(8, 4)) : null;
            final TcpNode.Ep ep;
            if (srq)
            {
                final EventDispatcher recv = node.evd(64, EvdFlags.DTO_FLAG);
                final EventDispatcher req = node.evd(64, EvdFlags.DTO_FLAG);
                final EventDispatcher conn = node.evd(16, EvdFlags.CONNECTION_FLAG);
                // the read limits the raw peer asks for
                final EpAttr attr = new EpAttr();
                attr.maxRdmaReadIn = 1;
                attr.maxRdmaReadOut = 1;
                ep = new TcpNode.Ep(node.ia.epCreateWithSrq(node.pz, recv, req, conn, queue, attr), recv, req, conn);
            }
            else
            {
                ep = node.ep(null);
            }
            int total = 0;
            for (final int[] r : recvs)
            {
                total += Arrays.stream(r).sum();
            }
            final MemorySegment memory = node.memory(total);
            final io.jdat.Lmr lmr = node.lmr(memory, MemPriv.ALL_FLAG);
            long at = 0;
            for (int i = 0; i < recvs.length; i++)
            {
                final LmrTriplet[] iov = new LmrTriplet[recvs[i].length];
                for (int s = 0; s < iov.length; s++)
                {
                    iov[s] = LmrTriplet.of(lmr, at, recvs[i][s]);
                    at += recvs[i][s];
                }
                if (srq)
                {
                    queue.postRecv(iov.length, iov, 100 + i);
                }
                else
                {
                    ep.ep().postRecv(iov.length, iov, 100 + i, CompletionFlags.DEFAULT_FLAG);
                }
            }
            try (RawPeer raw = RawPeer.connect(psp.connQual()))
            {
                raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED | (crc ? Mpa.FLAG_CRC : 0), Mpa.REVISION_2,
                    Mpa.IrdOrd.of(1, 1), null));
                next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
                next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertEquals(crc, raw.readFrame(false).crc());
                raw.crc(crc);
                raw.send(RawMessage.write(0, 0, new byte[0]));

                final ByteArrayOutputStream wire = new ByteArrayOutputStream();
                for (int i = 0; i < payloads.length; i++)
                {
                    final byte[] fpdus = raw.fpdus(RawMessage.send(i + 1, payloads[i]), b ->
                    {
                    });
                    if (damage && i == 0)
                    {
                        // past what arrives with the header: a byte that goes straight into the buffer
                        fpdus[FIRST + SIZE / 2] ^= 0x01;
                    }
                    wire.write(fpdus);
                }
                final byte[] all = wire.toByteArray();
                raw.write(Arrays.copyOf(all, FIRST));
                // the header alone first: jdat reads it and places the rest as it comes
                Thread.sleep(200);
                raw.write(Arrays.copyOfRange(all, FIRST, all.length));

                final List<DatEvent> events = new ArrayList<>();
                TerminateInfo terminate = null;
                final DatEvent first = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
                events.add(first);
                if (first.dto.status == DtoStatus.SUCCESS)
                {
                    for (int i = 1; i < payloads.length; i++)
                    {
                        events.add(next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT));
                    }
                }
                else
                {
                    final ByteBuffer t = raw.readFpdu();
                    assertEquals(RdmapOpcode.TERMINATE, RawPeer.opcode(t));
                    terminate = DdpRdmap.readTerminate(t, Fpdu.ULPDU_OFFSET, Fpdu.ulpduLength(t, 0));
                    assertTrue(raw.endOfStream(), "jdat closed its side after the Terminate");
                    next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
                    for (int i = 1; i < recvs.length; i++)
                    {
                        events.add(next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT));
                    }
                }
                final byte[] landed = new byte[total];
                MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, 0, landed, 0, total);
                return new Outcome(events, landed, terminate);
            }
        }
    }

    private static byte[] random(final int seed, final int size)
    {
        final byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void assertReceived(final Outcome o, final byte[]... payloads)
    {
        int at = 0;
        for (int i = 0; i < payloads.length; i++)
        {
            final DatEvent e = o.recvs().get(i);
            assertEquals(DtoStatus.SUCCESS, e.dto.status, e.toString());
            assertEquals(100 + i, e.dto.userCookie, e.toString());
            assertEquals(payloads[i].length, e.dto.transferredLength, e.toString());
            assertArrayEquals(payloads[i], Arrays.copyOfRange(o.landed(), at, at + payloads[i].length), "Send " + i);
            at += payloads[i].length;
        }
    }

    @Test
    void aLargeSendLandsInItsReceiveBuffer() throws Exception
    {
        final byte[] p = random(1, SIZE);
        assertReceived(exchange(false, new int[][] {{SIZE}}, new byte[][] {p}, false), p);
    }

    @Test
    void aLargeSendWithCrcLandsInItsReceiveBuffer() throws Exception
    {
        final byte[] p = random(2, SIZE);
        assertReceived(exchange(true, new int[][] {{SIZE}}, new byte[][] {p}, false), p);
    }

    @Test
    void twoSendsInARowLandInTwoReceives() throws Exception
    {
        final byte[] p = random(3, SIZE);
        final byte[] q = random(4, SIZE);
        assertReceived(exchange(false, new int[][] {{SIZE}, {SIZE}}, new byte[][] {p, q}, false), p, q);
        assertReceived(exchange(true, new int[][] {{SIZE}, {SIZE}}, new byte[][] {p, q}, false), p, q);
    }

    @Test
    void aReceiveBufferOfTwoSegmentsIsFilledInOrder() throws Exception
    {
        final byte[] p = random(5, SIZE);
        assertReceived(exchange(false, new int[][] {{SIZE / 3, SIZE - SIZE / 3}}, new byte[][] {p}, false), p);
    }

    @Test
    void largeSendsOverAnSrqLandInItsBuffers() throws Exception
    {
        final byte[] p = random(8, SIZE);
        final byte[] q = random(9, SIZE);
        assertReceived(exchange(false, new int[][] {{SIZE}, {SIZE}}, new byte[][] {p, q}, false, true), p, q);
        assertReceived(exchange(true, new int[][] {{SIZE}, {SIZE}}, new byte[][] {p, q}, false, true), p, q);
    }

    @Test
    void aSendLongerThanItsBufferFailsTheReceiveAsBefore() throws Exception
    {
        final Outcome o = exchange(false, new int[][] {{SIZE - 1}}, new byte[][] {random(6, SIZE)}, false);
        assertEquals(DtoStatus.ERR_LOCAL_LENGTH, o.recvs().getFirst().dto.status, o.recvs().toString());
        assertEquals(TerminateCodes.LAYER_DDP, o.terminate().layer(), o.terminate().toString());
        assertEquals(TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG, o.terminate().code(), o.terminate().toString());
        assertTrue(Arrays.equals(new byte[SIZE - 1], o.landed()), "nothing of the Send was placed");
    }

    @Test
    void aCorruptedSendPlacedBeforeItsCrcEndsTheConnectionAndIsNeverReportedGood() throws Exception
    {
        final Outcome o = exchange(true, new int[][] {{SIZE}, {SIZE}}, new byte[][] {random(7, SIZE)}, true);
        for (final DatEvent e : o.recvs())
        {
            assertEquals(DtoStatus.ERR_FLUSHED, e.dto.status, "flushed with the broken connection: " + e);
        }
        assertEquals(2, o.recvs().size());
        assertEquals(TerminateCodes.LAYER_LLP, o.terminate().layer(), o.terminate().toString());
        assertEquals(TerminateCodes.LLP_CRC_ERROR, o.terminate().code(), o.terminate().toString());
    }
}

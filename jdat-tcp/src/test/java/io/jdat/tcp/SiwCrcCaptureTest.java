package io.jdat.tcp;

import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real bytes with CRC: a jdat rping client (instance data {@code crc=true}) against a Linux siw
 * rping server ({@code interop/siw-interop}'s guest), both directions of the TCP stream. siw's
 * Reply and CRC-protected FPDUs decode with CRC checking on; our encoder, given the same messages,
 * produces siw's FPDUs byte for byte, CRC32c included; our Reply to the captured Request is siw's.
 */
class SiwCrcCaptureTest
{
    /** siw's RDMA Read sink (the server's rdma_buf). */
    private static final int SIW_SINK_STAG = 0x97724700;
    private static final long SIW_SINK_TO = 0x00005604d5fb3100L;
    /** jdat's start buffer (the Read's source) and its RDMA buffer (the Write's target). */
    private static final int JDAT_START_STAG = 0x301;
    private static final long JDAT_START_TO = 0x00007fcc40318000L;
    private static final int JDAT_RDMA_STAG = 0x401;
    private static final long JDAT_RDMA_TO = 0x00007fcc40319000L;
    /** What both sides' IRD/ORD words say: IRD 1 and ORD 1, peer-to-peer with a zero-length Write. */
    private static final Mpa.IrdOrd P2P_WRITE_1_1 = new Mpa.IrdOrd(1, 1, true, false, true, false);

    private static List<byte[]> segments(final String name) throws IOException
    {
        final List<byte[]> segments = new ArrayList<>();
        try (InputStream in = SiwCrcCaptureTest.class.getResourceAsStream(name))
        {
            assertNotNull(in, name);
            final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line = reader.readLine(); line != null; line = reader.readLine())
            {
                if (!line.isBlank() && !line.startsWith("#"))
                {
                    segments.add(Streams.hex(line.trim()));
                }
            }
        }
        return segments;
    }

    private static List<byte[]> fromSiw() throws IOException
    {
        return segments("rping-jdat-siw-crc-server-to-client.hex");
    }

    private static List<byte[]> fromJdat() throws IOException
    {
        return segments("rping-jdat-siw-crc-client-to-server.hex");
    }

    /** The FPDUs after the handshake frame, as one stream. */
    private static byte[] fpdus(final List<byte[]> segments)
    {
        return Streams.concat(segments.subList(1, segments.size()).toArray(new byte[0][]));
    }

    /** rping's ping buffer of 64 bytes: "rdma-ping-N: ", 50 characters counting up from {@code first}, NUL. */
    private static byte[] ping(final int n, final char first)
    {
        final StringBuilder text = new StringBuilder("rdma-ping-" + n + ": ");
        for (int i = 0; i < 50; i++)
        {
            text.append((char) (first + i));
        }
        return (text + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    private static List<TestMessage> siwMessages()
    {
        return List.of(
            TestMessage.readRequest(1, SIW_SINK_STAG, SIW_SINK_TO, 64, JDAT_START_STAG, JDAT_START_TO),
            TestMessage.send(1, new byte[16]),
            TestMessage.write(JDAT_RDMA_STAG, JDAT_RDMA_TO, ping(0, 'A')),
            TestMessage.send(2, new byte[16]),
            TestMessage.readRequest(2, SIW_SINK_STAG, SIW_SINK_TO, 64, JDAT_START_STAG, JDAT_START_TO),
            TestMessage.send(3, new byte[16]),
            TestMessage.write(JDAT_RDMA_STAG, JDAT_RDMA_TO, ping(1, 'B')),
            TestMessage.send(4, new byte[16]));
    }

    @Test
    void siwsReplyAcceptsOurRequestWithCrcAndItsFpdusPassTheCrcCheck() throws IOException
    {
        final Mpa.Result request = Mpa.decode(ByteBuffer.wrap(fromJdat().get(0)), true);
        final Mpa.Result reply = Mpa.decode(ByteBuffer.wrap(fromSiw().get(0)), false);
        assertEquals(Mpa.Status.FRAME, request.status());
        assertEquals(Mpa.Status.FRAME, reply.status());
        assertEquals(Mpa.ReplyCheck.ACCEPTED, Mpa.checkReply(request.frame(), reply.frame()));
        assertTrue(reply.frame().crc() && reply.frame().enhanced());
        assertTrue(Mpa.crcInUse(request.frame(), reply.frame()));
        assertEquals(P2P_WRITE_1_1, reply.frame().irdOrd());

        final RecordingHandler handler = new RecordingHandler();
        final Feeder.Outcome outcome = Feeder.feed(new FpduDecoder(true), handler, fpdus(fromSiw()));
        assertEquals(FpduDecoder.Status.NEED_MORE, outcome.status());
        assertEquals(0, outcome.leftInBuffer());
        assertEquals(List.of(
            Event.readRequest(1, SIW_SINK_STAG, SIW_SINK_TO, 64, JDAT_START_STAG, JDAT_START_TO),
            Event.send(1, 0, true, false, new byte[16]),
            Event.write(JDAT_RDMA_STAG, JDAT_RDMA_TO, true, ping(0, 'A')),
            Event.send(2, 0, true, false, new byte[16]),
            Event.readRequest(2, SIW_SINK_STAG, SIW_SINK_TO, 64, JDAT_START_STAG, JDAT_START_TO),
            Event.send(3, 0, true, false, new byte[16]),
            Event.write(JDAT_RDMA_STAG, JDAT_RDMA_TO, true, ping(1, 'B')),
            Event.send(4, 0, true, false, new byte[16])), handler.events);
    }

    @Test
    void ourEncoderWritesSiwsFpdusCrcIncluded() throws IOException
    {
        assertArrayEquals(fpdus(fromSiw()), Streams.encode(new FpduEncoder(true), siwMessages()));
    }

    @Test
    void ourRequestIsTheOneSiwAcceptedAndOurReplyToItIsSiws() throws IOException
    {
        final byte[] captured = fromJdat().get(0);
        final ByteBuffer request = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeRequest(request, true, P2P_WRITE_1_1, null);
        assertArrayEquals(captured, Arrays.copyOf(request.array(), request.position()));

        final Mpa.Frame frame = Mpa.decode(ByteBuffer.wrap(captured), true).frame();
        final ByteBuffer reply = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeReply(reply, frame, false, Mpa.replyIrdOrd(frame.irdOrd(), 1, 1), null);
        assertArrayEquals(fromSiw().get(0), Arrays.copyOf(reply.array(), reply.position()));
    }

    @Test
    void oneChangedByteInSiwsWriteIsACrcError() throws IOException
    {
        final List<byte[]> segments = fromSiw();
        // the third FPDU is the first Write; change a byte of its ping text
        final byte[] write = segments.get(3).clone();
        write[40] ^= 0x01;
        segments.set(3, write);
        final FpduDecoder decoder = new FpduDecoder(true);
        final RecordingHandler handler = new RecordingHandler();
        final Feeder.Outcome outcome = Feeder.feed(decoder, handler, fpdus(segments));
        assertEquals(FpduDecoder.Status.PROTOCOL_ERROR, outcome.status());
        assertEquals(TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR),
            decoder.terminateInfo());
        // the Read Request and the Send before it were delivered, nothing of the Write
        assertEquals(2, handler.events.size());
    }
}

package io.jdat.tcp;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Real bytes: both directions of a siw-to-siw rping session (the TCP payloads of
 * {@code rping-siw-relay.pcap}, one segment per line in the resources) go through the MPA
 * decoder and then, segment by segment as TCP delivered them, through the FPDU decoder; and our
 * encoder, given the same messages, produces the captured FPDUs byte for byte.
 */
class SiwCaptureTest
{
    private static final int CLIENT_STAG = 0x8c269800;
    private static final long CLIENT_TO = 0x00007fb6d8000e00L;
    private static final int SERVER_STAG = 0xcf6f2900;
    private static final long SERVER_TO = 0x000055c70f0db470L;
    private static final int SERVER_WRITE_STAG = 0xf055ce00;
    private static final long SERVER_WRITE_TO = 0x000055c70f0d8140L;

    private static List<byte[]> segments(final String name) throws IOException
    {
        final List<byte[]> segments = new ArrayList<>();
        try (InputStream in = SiwCaptureTest.class.getResourceAsStream(name))
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

    /** rping's ping buffer: "rdma-ping-N: " then 50 characters counting up from {@code first}, then NUL. */
    private static byte[] ping(final int n, final char first)
    {
        final StringBuilder text = new StringBuilder("rdma-ping-" + n + ": ");
        for (int i = 0; i < 50; i++)
        {
            text.append((char) (first + i));
        }
        return (text + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    /** rping's {addr, rkey, len} advertisement, as sent in its Sends. */
    private static byte[] advertisement(final long address, final int rkey, final int length)
    {
        return ByteBuffer.allocate(16).putLong(address).putInt(rkey).putInt(length).array();
    }

    private static List<Event> decodeDirection(final List<byte[]> segments, final Mpa.Frame[] handshake,
        final boolean initiator)
    {
        // the handshake frame came alone in the first TCP segment, as the startup rule requires
        final ByteBuffer first = ByteBuffer.wrap(segments.get(0));
        final Mpa.Result result = Mpa.decode(first, initiator);
        assertEquals(Mpa.Status.FRAME, result.status());
        handshake[initiator ? 0 : 1] = result.frame();

        final byte[][] rest = segments.subList(1, segments.size()).toArray(new byte[0][]);
        final int[] next = {0};
        final int[] lengths = new int[rest.length];
        for (int i = 0; i < rest.length; i++)
        {
            lengths[i] = rest[i].length;
        }
        final RecordingHandler handler = new RecordingHandler();
        final Feeder.Outcome outcome = Feeder.feed(new FpduDecoder(false), handler, Streams.concat(rest),
            () -> lengths[next[0]++], Feeder.receiveBuffer(true));
        assertEquals(FpduDecoder.Status.NEED_MORE, outcome.status());
        assertEquals(0, outcome.leftInBuffer());
        return handler.events;
    }

    @Test
    void bothDirectionsOfASiwRpingSessionDecode() throws IOException
    {
        final Mpa.Frame[] handshake = new Mpa.Frame[2];
        final List<Event> fromClient = decodeDirection(segments("rping-siw-client-to-server.hex"), handshake, true);
        final List<Event> fromServer = decodeDirection(segments("rping-siw-server-to-client.hex"), handshake, false);

        assertEquals(Mpa.IrdOrd.of(1, 1), handshake[0].irdOrd());
        assertEquals(Mpa.ReplyCheck.ACCEPTED, Mpa.checkReply(handshake[0], handshake[1]));
        assertFalse(Mpa.crcInUse(handshake[0], handshake[1]));

        assertEquals(List.of(
            Event.send(1, 0, true, false, advertisement(SERVER_TO, SERVER_STAG, 64)),
            Event.readResponse(CLIENT_STAG, CLIENT_TO, true, ping(0, 'A')),
            Event.send(2, 0, true, false, advertisement(SERVER_WRITE_TO, SERVER_WRITE_STAG, 64)),
            Event.send(3, 0, true, false, advertisement(SERVER_TO, SERVER_STAG, 64)),
            Event.readResponse(CLIENT_STAG, CLIENT_TO, true, ping(1, 'B')),
            Event.send(4, 0, true, false, advertisement(SERVER_WRITE_TO, SERVER_WRITE_STAG, 64))), fromClient);

        assertEquals(List.of(
            Event.readRequest(1, CLIENT_STAG, CLIENT_TO, 64, SERVER_STAG, SERVER_TO),
            Event.send(1, 0, true, false, new byte[16]),
            Event.write(SERVER_WRITE_STAG, SERVER_WRITE_TO, true, ping(0, 'A')),
            Event.send(2, 0, true, false, new byte[16]),
            Event.readRequest(2, CLIENT_STAG, CLIENT_TO, 64, SERVER_STAG, SERVER_TO),
            Event.send(3, 0, true, false, new byte[16]),
            Event.write(SERVER_WRITE_STAG, SERVER_WRITE_TO, true, ping(1, 'B')),
            Event.send(4, 0, true, false, new byte[16])), fromServer);
    }

    @Test
    void ourEncoderProducesTheCapturedFpdusByteForByte() throws IOException
    {
        final List<TestMessage> serverMessages = List.of(
            TestMessage.readRequest(1, CLIENT_STAG, CLIENT_TO, 64, SERVER_STAG, SERVER_TO),
            TestMessage.send(1, new byte[16]),
            TestMessage.write(SERVER_WRITE_STAG, SERVER_WRITE_TO, ping(0, 'A')),
            TestMessage.send(2, new byte[16]),
            TestMessage.readRequest(2, CLIENT_STAG, CLIENT_TO, 64, SERVER_STAG, SERVER_TO),
            TestMessage.send(3, new byte[16]),
            TestMessage.write(SERVER_WRITE_STAG, SERVER_WRITE_TO, ping(1, 'B')),
            TestMessage.send(4, new byte[16]));
        final List<byte[]> server = segments("rping-siw-server-to-client.hex");
        assertArrayEquals(Streams.concat(server.subList(1, server.size()).toArray(new byte[0][])),
            Streams.encode(new FpduEncoder(false, 1448), serverMessages));

        final List<TestMessage> clientMessages = List.of(
            TestMessage.send(1, advertisement(SERVER_TO, SERVER_STAG, 64)),
            TestMessage.readResponse(CLIENT_STAG, CLIENT_TO, ping(0, 'A')),
            TestMessage.send(2, advertisement(SERVER_WRITE_TO, SERVER_WRITE_STAG, 64)),
            TestMessage.send(3, advertisement(SERVER_TO, SERVER_STAG, 64)),
            TestMessage.readResponse(CLIENT_STAG, CLIENT_TO, ping(1, 'B')),
            TestMessage.send(4, advertisement(SERVER_WRITE_TO, SERVER_WRITE_STAG, 64)));
        final List<byte[]> client = segments("rping-siw-client-to-server.hex");
        assertArrayEquals(Streams.concat(client.subList(1, client.size()).toArray(new byte[0][])),
            Streams.encode(new FpduEncoder(false), clientMessages));

        // and the handshake: siw's Request is what we send for IRD 1 / ORD 1, its Reply what we answer
        final ByteBuffer request = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeRequest(request, false, Mpa.IrdOrd.of(1, 1), null);
        assertArrayEquals(client.get(0), java.util.Arrays.copyOf(request.array(), request.position()));
        final Mpa.Frame siwRequest = Mpa.decode(ByteBuffer.wrap(client.get(0)), true).frame();
        final ByteBuffer reply = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeReply(reply, siwRequest, false, Mpa.replyIrdOrd(siwRequest.irdOrd(), 1, 1), null);
        assertArrayEquals(server.get(0), java.util.Arrays.copyOf(reply.array(), reply.position()));
    }
}

package io.jdat.tcp.channel;

import static io.jdat.testkit.WireMessages.readRequest;
import static io.jdat.testkit.WireMessages.send;
import static io.jdat.testkit.WireMessages.terminate;
import static io.jdat.testkit.WireMessages.write;
import static io.jdat.tcp.channel.TcpNode.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.testkit.BytePattern;
import io.jdat.testkit.TsharkCapture;
import io.jdat.testkit.WireMessages;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Wireshark reads what the tcp provider itself puts on the wire: two IAs of this JVM, connected
 * over 127.0.0.1 with 1448-byte FPDUs, exchange every opcode both ways (Send, Send with SE, RDMA
 * Write, RDMA Read Request and Response) through the DAT API, and end with an RDMA Read of an
 * STag the responder does not have, which it answers with a Terminate (RFC 5040: RDMAP, remote
 * protection error, invalid STag). tshark captured it all; its decode must show no malformed
 * frame and no error, a good CRC on every FPDU when CRC is on (none checked when off), the MPA
 * Request and Reply with the CRC flag as negotiated, and each direction's messages exactly as
 * posted: opcodes, MSNs of the Send and Read Request queues, STags, tagged offsets, lengths and
 * the Terminate's layer, type and code, with the segments of each message in order.
 */
@Tag("tshark")
class TsharkProviderTest
{
    private static final int MSS = 1448;
    private static final IaAddress LOCAL = IaAddress.parse("127.0.0.1");

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {false, true})
    void everyOpcodeThroughTheProviderDecodesCleanly(final boolean crc) throws Exception
    {
        try (TcpNode server = TcpNode.open("mss=" + MSS);
            TcpNode client = TcpNode.open("mss=" + MSS + (crc ? " crc=true" : "")))
        {
            final EventDispatcher crEvd = server.evd(4, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final int port = (int) psp.connQual();
            try (TsharkCapture capture = TsharkCapture.start("lo", "tcp port " + port))
            {
                boolean passed = false;
                try
                {
                    final Expected expected = exchange(server, client, crEvd, port);
                    capture.stop();
                    check(capture, crc, port, expected);
                    passed = true;
                }
                finally
                {
                    if (!passed)
                    {
                        capture.keep();
                    }
                }
            }
        }
    }

    /** What each direction must carry. */
    private record Expected(List<String> fromClient, List<String> fromServer)
    {
    }

    /** Runs the exchange through the API, checking every completion and byte; returns what was sent. */
    private static Expected exchange(final TcpNode server, final TcpNode client, final EventDispatcher crEvd,
        final int port)
    {
        final Lmr sm = server.lmr(1 << 20);
        // the client's STag differs from the server's: one region registered before
        client.lmr(4096);
        final Lmr cm = client.lmr(1 << 20);
        final long s = sm.registeredAddress();
        final long c = cm.registeredAddress();
        final int sStag = sm.rmrContext();
        final int cStag = cm.rmrContext();
        final TcpNode.Ep sEp = server.ep(null);
        final TcpNode.Ep cEp = client.ep(null);
        sEp.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 8192)}, 100, 0);
        sEp.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 8192, 8192)}, 101, 0);
        cEp.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 8192)}, 200, 0);
        cEp.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(cm, 8192, 8192)}, 201, 0);

        cEp.ep().connect(LOCAL, port, 5 * SECOND, "tshark".getBytes(), Qos.BEST_EFFORT, 0);
        TcpNode.next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(sEp.ep(), null);
        TcpNode.next(sEp.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        TcpNode.next(cEp.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);

        // the client: Send, Send with SE (two gather segments), RDMA Write, RDMA Read of what it wrote
        BytePattern.fill(cm.memory(), 16384, 5, 1);
        cEp.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(cm, 16384, 5)}, 1, 0);
        completed(cEp.req(), 1, 5);
        completed(sEp.recv(), 100, 5);
        assertTrue(BytePattern.mismatch(sm.memory(), 0, 5, 1) < 0, "the Send's bytes");
        BytePattern.fill(cm.memory(), 32768, 5000, 2);
        cEp.ep().postSend(2, new LmrTriplet[] {LmrTriplet.of(cm, 32768, 2000), LmrTriplet.of(cm, 34768, 3000)}, 2,
            CompletionFlags.SOLICITED_WAIT_FLAG);
        completed(cEp.req(), 2, 5000);
        completed(sEp.recv(), 101, 5000);
        assertTrue(BytePattern.mismatch(sm.memory(), 8192, 5000, 2) < 0, "the Send with SE's bytes");
        BytePattern.fill(cm.memory(), 65536, 10_000, 3);
        cEp.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(cm, 65536, 10_000)}, 3,
            new RmrTriplet(sStag, s + 65536, 10_000), 0);
        completed(cEp.req(), 3, 10_000);
        cEp.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(cm, 131072, 10_000)}, 4,
            new RmrTriplet(sStag, s + 65536, 10_000), 0);
        completed(cEp.req(), 4, 10_000);
        assertTrue(BytePattern.mismatch(cm.memory(), 131072, 10_000, 3) < 0, "the RDMA Read's bytes (of the Write)");

        // the server: the same four the other way
        BytePattern.fill(sm.memory(), 200_000, 7, 4);
        sEp.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(sm, 200_000, 7)}, 11, 0);
        completed(sEp.req(), 11, 7);
        completed(cEp.recv(), 200, 7);
        assertTrue(BytePattern.mismatch(cm.memory(), 0, 7, 4) < 0, "the server's Send's bytes");
        BytePattern.fill(sm.memory(), 210_000, 3000, 5);
        sEp.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(sm, 210_000, 3000)}, 12,
            CompletionFlags.SOLICITED_WAIT_FLAG);
        completed(sEp.req(), 12, 3000);
        completed(cEp.recv(), 201, 3000);
        assertTrue(BytePattern.mismatch(cm.memory(), 8192, 3000, 5) < 0, "the server's Send with SE's bytes");
        BytePattern.fill(sm.memory(), 262144, 20_000, 6);
        sEp.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(sm, 262144, 20_000)}, 13,
            new RmrTriplet(cStag, c + 262144, 20_000), 0);
        completed(sEp.req(), 13, 20_000);
        sEp.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(sm, 393216, 20_000)}, 14,
            new RmrTriplet(cStag, c + 262144, 20_000), 0);
        completed(sEp.req(), 14, 20_000);
        assertTrue(BytePattern.mismatch(sm.memory(), 393216, 20_000, 6) < 0, "the server's RDMA Read's bytes");

        // a violation: a Read of an STag the server never registered
        final int bad = ~sStag;
        cEp.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(cm, 524288, 100)}, 5,
            new RmrTriplet(bad, s, 100), 0);
        final DatEvent refused = TcpNode.next(cEp.req(), EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(5, refused.dto.userCookie);
        assertEquals(DtoStatus.ERR_REMOTE_ACCESS, refused.dto.status, refused.toString());
        TcpNode.next(cEp.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
        TcpNode.next(sEp.conn(), EventNumber.CONNECTION_EVENT_BROKEN);

        return new Expected(List.of(
            // RFC 6581 peer-to-peer mode: the ready-to-receive message, a zero-length RDMA Write
            write("WRITE", 0, 0, 0),
            send(false, 1, 5),
            send(true, 2, 5000),
            write("WRITE", sStag, s + 65536, 10_000),
            readRequest(1, cStag, c + 131072, 10_000, sStag, s + 65536),
            write("READ_RESPONSE", sStag, s + 393216, 20_000),
            readRequest(2, cStag, c + 524288, 100, bad & 0xFFFF_FFFFL, s)),
            List.of(
                write("READ_RESPONSE", cStag, c + 131072, 10_000),
                send(false, 1, 7),
                send(true, 2, 3000),
                write("WRITE", cStag, c + 262144, 20_000),
                readRequest(1, sStag, s + 393216, 20_000, cStag, c + 262144),
                // RDMAP layer (0), remote protection error (1), invalid STag (0)
                terminate(1, 0, 1, 0)));
    }

    private static void check(final TsharkCapture capture, final boolean crc, final int port, final Expected expected)
        throws Exception
    {
        for (final TsharkCapture.MpaFrame frame : capture.handshake())
        {
            assertEquals(crc, frame.crc(), "the CRC flag: " + frame);
        }

        final List<TsharkCapture.Fpdu> fpdus = capture.fpdus();
        final WireMessages.Connection connection = WireMessages.ofOneConnection(fpdus, port);
        final List<WireMessages.Message> fromClient = connection.fromClient();
        final List<WireMessages.Message> fromServer = connection.fromServer();
        assertEquals(expected.fromClient(), WireMessages.texts(fromClient), "client to server: " + fromClient);
        assertEquals(expected.fromServer(), WireMessages.texts(fromServer), "server to client: " + fromServer);
        // segmented at the MSS: 5000 bytes take four FPDUs of at most 1448 bytes, 20000 bytes fifteen
        assertEquals(4, fromClient.get(2).segments(), fromClient.toString());
        assertEquals(15, fromServer.get(3).segments(), fromServer.toString());

        final int[] verdicts = capture.crcVerdicts();
        assertEquals(0, verdicts[1], "FPDUs with a bad CRC");
        assertEquals(crc ? fpdus.size() : 0, verdicts[0], "FPDUs whose CRC Wireshark checked and found good");
    }

    private static void completed(final EventDispatcher evd, final long cookie, final long length)
    {
        final DatEvent ev = TcpNode.next(evd, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
        assertEquals(cookie, ev.dto.userCookie, ev.toString());
        assertEquals(length, ev.dto.transferredLength, ev.toString());
    }
}

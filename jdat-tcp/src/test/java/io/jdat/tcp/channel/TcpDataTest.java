package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.testkit.BytePattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Send, RDMA Write and RDMA Read across a real TCP connection in one JVM, every byte checked, in
 * the configurations the wire allows: large FPDUs, one Ethernet MSS per FPDU with CRC (so a
 * message is many DDP segments), CRC asked by one side only, MPA Rev 1, and without
 * peer-to-peer mode.
 */
class TcpDataTest
{
    private static final int MEM = 2 << 20;
    private static final int[] SENDS = {0, 1, 1447, 1448, 65536, 200_000};
    private static final int RDMA = 300_000;

    @ParameterizedTest(name = "client [{0}] server [{1}]")
    @CsvSource(delimiter = '|', value = {
        "|",
        "crc=true mss=1448|crc=true mss=1448",
        "crc=true|mss=200",
        "mpa_revision=1|",
        "p2p=false|crc=true"})
    void sendWriteAndReadArriveIntact(final String clientData, final String serverData)
    {
        try (TcpNode c = TcpNode.open(clientData == null ? "" : clientData);
            TcpNode s = TcpNode.open(serverData == null ? "" : serverData))
        {
            final Lmr cm = c.lmr(MEM);
            final Lmr sm = s.lmr(MEM);
            final TcpConnectionTest.Pair pair = TcpConnectionTest.connect(c, s, null, null);
            final TcpNode.Ep client = pair.client();
            final TcpNode.Ep server = pair.server();

            // Sends, the largest ones gathered from three pieces
            long at = 0;
            for (int i = 0; i < SENDS.length; i++)
            {
                server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, at, SENDS[i])}, 100 + i,
                    CompletionFlags.DEFAULT_FLAG);
                at += SENDS[i];
            }
            at = 0;
            for (int i = 0; i < SENDS.length; i++)
            {
                final int n = SENDS[i];
                BytePattern.fill(cm.memory(), at, n, i);
                final LmrTriplet[] iov = n < 3 ? new LmrTriplet[] {LmrTriplet.of(cm, at, n)}
                    : new LmrTriplet[] {LmrTriplet.of(cm, at, n / 3), LmrTriplet.of(cm, at + n / 3, n / 3),
                        LmrTriplet.of(cm, at + 2 * (n / 3), n - 2 * (n / 3))};
                client.ep().postSend(iov.length, iov, 10 + i, CompletionFlags.DEFAULT_FLAG);
                at += n;
            }
            at = 0;
            for (int i = 0; i < SENDS.length; i++)
            {
                completed(client.req(), 10 + i, SENDS[i]);
                completed(server.recv(), 100 + i, SENDS[i]);
                assertEquals(-1, BytePattern.mismatch(sm.memory(), at, SENDS[i], i), "bytes of Send " + i);
                at += SENDS[i];
            }

            // an RDMA Write into the server's memory
            final long writeAt = 512 << 10;
            BytePattern.fill(cm.memory(), writeAt, RDMA, 21);
            client.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(cm, writeAt, RDMA)}, 20,
                new RmrTriplet(sm.rmrContext(), sm.registeredAddress() + writeAt, RDMA), CompletionFlags.DEFAULT_FLAG);
            completed(client.req(), 20, RDMA);

            // an RDMA Read of the server's memory; it also orders the Write before it on the wire
            final long readAt = 1 << 20;
            BytePattern.fill(sm.memory(), readAt, RDMA, 22);
            client.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(cm, readAt, RDMA)}, 30,
                new RmrTriplet(sm.rmrContext(), sm.registeredAddress() + readAt, RDMA), CompletionFlags.DEFAULT_FLAG);
            completed(client.req(), 30, RDMA);
            assertEquals(-1, BytePattern.mismatch(cm.memory(), readAt, RDMA, 22), "bytes of the RDMA Read");
            assertEquals(-1, BytePattern.mismatch(sm.memory(), writeAt, RDMA, 21), "bytes of the RDMA Write");

            // the server answers with a Send of its own
            client.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 4096)}, 40, CompletionFlags.DEFAULT_FLAG);
            BytePattern.fill(sm.memory(), 0, 4096, 23);
            server.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 4096)}, 41, CompletionFlags.DEFAULT_FLAG);
            completed(server.req(), 41, 4096);
            completed(client.recv(), 40, 4096);
            assertEquals(-1, BytePattern.mismatch(cm.memory(), 0, 4096, 23), "bytes of the server's Send");
        }
    }

    @ParameterizedTest(name = "client [{0}]")
    @CsvSource(delimiter = '|', value = {"p2p=true|true", "p2p=false|false", "mpa_revision=1|false"})
    void theResponderSpeaksFirstOnlyInPeerToPeerMode(final String clientData, final boolean p2p)
    {
        // the responder holds its Send for a minute, not the default second: within the five
        // seconds each completion is waited for, only the initiator's first FPDU (or, peer to
        // peer, its ready-to-receive message) can let it go
        try (TcpNode c = TcpNode.open(clientData); TcpNode s = TcpNode.open("responder_wait_ms=60000"))
        {
            final Lmr cm = c.lmr(8192);
            final Lmr sm = s.lmr(8192);
            final TcpConnectionTest.Pair pair = TcpConnectionTest.connect(c, s, null, null);
            pair.client().ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 64)}, 1,
                CompletionFlags.DEFAULT_FLAG);
            pair.server().ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 64)}, 2,
                CompletionFlags.DEFAULT_FLAG);
            BytePattern.fill(sm.memory(), 4096, 64, 5);
            pair.server().ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(sm, 4096, 64)}, 3,
                CompletionFlags.DEFAULT_FLAG);
            if (p2p)
            {
                // the initiator's ready-to-receive message opened the responder's side
                completed(pair.client().recv(), 1, 64);
            }
            else
            {
                // RFC 5044: the responder waits for the initiator's first FPDU
                assertTrue(TcpNode.quiet(pair.client().recv(), 300), "the responder sent first");
                BytePattern.fill(cm.memory(), 4096, 64, 6);
                pair.client().ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(cm, 4096, 64)}, 4,
                    CompletionFlags.DEFAULT_FLAG);
                completed(pair.server().recv(), 2, 64);
                completed(pair.client().recv(), 1, 64);
                assertEquals(-1, BytePattern.mismatch(sm.memory(), 0, 64, 6));
            }
            assertEquals(-1, BytePattern.mismatch(cm.memory(), 0, 64, 5));
            completed(pair.server().req(), 3, 64);
        }
    }

    @org.junit.jupiter.api.Test
    void aResponderThatNeedNotWaitSendsFirst()
    {
        try (TcpNode c = TcpNode.open("p2p=false"); TcpNode s = TcpNode.open("responder_waits=false"))
        {
            final Lmr cm = c.lmr(8192);
            final Lmr sm = s.lmr(8192);
            final TcpConnectionTest.Pair pair = TcpConnectionTest.connect(c, s, null, null);
            pair.client().ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 64)}, 1,
                CompletionFlags.DEFAULT_FLAG);
            BytePattern.fill(sm.memory(), 4096, 64, 7);
            // as OFED dapltest's performance server: its first Send before anything of the client's
            pair.server().ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(sm, 4096, 64)}, 3,
                CompletionFlags.DEFAULT_FLAG);
            completed(pair.client().recv(), 1, 64);
            assertEquals(-1, BytePattern.mismatch(cm.memory(), 0, 64, 7));
            completed(pair.server().req(), 3, 64);
        }
    }

    @org.junit.jupiter.api.Test
    void aResponderWhoseInitiatorStaysSilentSendsAfterResponderWaitMs()
    {
        // longer than the default (1 s) by more than a tick: a responder that held its Send for the
        // default instead would send within the quiet time below
        try (TcpNode c = TcpNode.open("p2p=false"); TcpNode s = TcpNode.open("responder_wait_ms=2500"))
        {
            assertEquals("2500", s.query().transportAttr("jdat.tcp.responder_wait_ms"));
            final Lmr cm = c.lmr(8192);
            final Lmr sm = s.lmr(8192);
            final TcpConnectionTest.Pair pair = TcpConnectionTest.connect(c, s, null, null);
            pair.client().ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 64)}, 1,
                CompletionFlags.DEFAULT_FLAG);
            BytePattern.fill(sm.memory(), 4096, 64, 8);
            // the initiator (no peer-to-peer mode) never speaks first, as siw's under dapltest -T P
            pair.server().ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(sm, 4096, 64)}, 3,
                CompletionFlags.DEFAULT_FLAG);
            assertTrue(TcpNode.quiet(pair.client().recv(), 1500), "the responder did not hold its Send for"
                + " responder_wait_ms");
            completed(pair.client().recv(), 1, 64);
            assertEquals(-1, BytePattern.mismatch(cm.memory(), 0, 64, 8));
            completed(pair.server().req(), 3, 64);
        }
    }

    @org.junit.jupiter.api.Test
    void manyConnectionsOfOneIaCarryTrafficAtOnce() throws Exception
    {
        final int connections = 6;
        // Sends at even positions (15 receives: the default max_recv_dtos is 16), Writes at odd ones
        final int messages = 30;
        final int size = 20_000;
        try (TcpNode c = TcpNode.open(); TcpNode s = TcpNode.open("mss=1448"))
        {
            final java.util.List<java.util.concurrent.CompletableFuture<Void>> runs = new java.util.ArrayList<>();
            for (int k = 0; k < connections; k++)
            {
                final int seed = k;
                final Lmr cm = c.lmr((long) messages * size);
                final Lmr sm = s.lmr((long) messages * size);
                final TcpConnectionTest.Pair pair = TcpConnectionTest.connect(c, s, null, null);
                for (int i = 0; i < messages; i += 2)
                {
                    pair.server().ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, (long) i * size, size)}, i,
                        CompletionFlags.DEFAULT_FLAG);
                }
                runs.add(java.util.concurrent.CompletableFuture.runAsync(() ->
                {
                    for (int i = 0; i < messages; i++)
                    {
                        BytePattern.fill(cm.memory(), (long) i * size, size, seed * 100 + i);
                        final LmrTriplet[] iov = {LmrTriplet.of(cm, (long) i * size, size)};
                        if (i % 2 == 0)
                        {
                            pair.client().ep().postSend(1, iov, i, CompletionFlags.DEFAULT_FLAG);
                        }
                        else
                        {
                            // odd messages go by RDMA Write straight into the receive area of the message
                            pair.client().ep().postRdmaWrite(1, iov, i, new RmrTriplet(sm.rmrContext(),
                                sm.registeredAddress() + (long) i * size, size), CompletionFlags.DEFAULT_FLAG);
                        }
                        if (i >= 8)
                        {
                            completed(pair.client().req(), i - 8, size);
                        }
                    }
                    for (int i = messages - 8; i < messages; i++)
                    {
                        completed(pair.client().req(), i, size);
                    }
                    for (int i = 0; i < messages; i += 2)
                    {
                        final DatEvent ev = next(pair.server().recv(), EventNumber.DTO_COMPLETION_EVENT);
                        assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
                        assertEquals(size, ev.dto.transferredLength);
                    }
                    // a Read after the Writes returns only once they were placed (RDMAP ordering)
                    pair.client().ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 16)}, 999,
                        new RmrTriplet(sm.rmrContext(), sm.registeredAddress(), 16), CompletionFlags.DEFAULT_FLAG);
                    completed(pair.client().req(), 999, 16);
                    for (int i = 0; i < messages; i++)
                    {
                        assertEquals(-1, BytePattern.mismatch(sm.memory(), (long) i * size, size, seed * 100 + i),
                            "connection " + seed + " message " + i);
                    }
                }, task -> Thread.ofPlatform().daemon().name("conn-" + seed).start(task)));
            }
            for (final var r : runs)
            {
                r.get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Writes into, and Reads into, memory on the Java heap (a {@code long[]}, which no byte buffer
     * can view): large payloads cannot go straight from the socket there and are copied, every
     * byte arriving all the same.
     */
    @org.junit.jupiter.api.Test
    void largeWritesAndReadsIntoHeapMemoryArrive()
    {
        try (TcpNode c = TcpNode.open("");
            TcpNode s = TcpNode.open(""))
        {
            final Lmr cm = c.lmr(java.lang.foreign.MemorySegment.ofArray(new long[MEM / 8]), io.jdat.MemPriv.ALL_FLAG);
            final Lmr sm = s.lmr(java.lang.foreign.MemorySegment.ofArray(new long[MEM / 8]), io.jdat.MemPriv.ALL_FLAG);
            final Lmr local = c.lmr(MEM);
            final TcpConnectionTest.Pair pair = TcpConnectionTest.connect(c, s, null, null);
            final TcpNode.Ep client = pair.client();
            BytePattern.fill(local.memory(), 0, RDMA, 31);
            client.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local, 0, RDMA)}, 1,
                new RmrTriplet(sm.rmrContext(), sm.registeredAddress() + 8, RDMA), CompletionFlags.DEFAULT_FLAG);
            completed(client.req(), 1, RDMA);
            BytePattern.fill(sm.memory(), 1 << 20, RDMA, 32);
            client.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(cm, 16, RDMA)}, 2,
                new RmrTriplet(sm.rmrContext(), sm.registeredAddress() + (1 << 20), RDMA),
                CompletionFlags.DEFAULT_FLAG);
            completed(client.req(), 2, RDMA);
            assertEquals(-1, BytePattern.mismatch(cm.memory(), 16, RDMA, 32), "bytes of the RDMA Read");
            // the Read came after the Write on the same connection: the Write was placed first
            assertEquals(-1, BytePattern.mismatch(sm.memory(), 8, RDMA, 31), "bytes of the RDMA Write");
        }
    }

    static void completed(final io.jdat.EventDispatcher evd, final long cookie, final long length)
    {
        final DatEvent ev = next(evd, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
        assertEquals(cookie, ev.dto.userCookie, ev.toString());
        assertEquals(length, ev.dto.transferredLength, ev.toString());
    }
}

package io.jdat.tcp.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testkit.PeerProcess;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The tcp provider between two network namespaces joined by a veth pair ({@link Netns}), a
 * {@link FaultPeer} JVM in each: the server in b, the client in a, both with a 2 s liveness
 * bound. Each run is {@link FaultSession}'s validated transaction matrix with its books kept on
 * both sides. Clean link: rounds pass with CRC off and on, waiting and polling. Under loss,
 * delay, reordering and duplication (netem, see {@link Netns} for kernels without it): every
 * round passes and nothing is flushed, or, where TCP's retransmissions stalled past the liveness
 * bound, the connection breaks with both sides told and every DTO booked; the kernel's counters
 * show the fault was there. A link down for half a second: the connection rides it out. A link
 * down for good, and a link that stops carrying one way first so that bytes stay unacknowledged:
 * both ends report BROKEN or DISCONNECTED within the liveness bound, every posted DTO is
 * accounted for exactly once (succeeded or flushed), and once the link is up again a new
 * connection passes.
 */
@Tag("netns")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NamespaceFaultTest
{
    private static final long LIVENESS_MS = 2000;
    /** The event may come up to one liveness tick and a keepalive interval's rounding late. */
    private static final long DETECTION_MARGIN_MS = 1500;
    private static final String CLIENT_IA = "address=" + Netns.ADDRESS_A + " liveness_ms=" + LIVENESS_MS;

    private static Netns net;
    private static PeerProcess server;
    private static PeerProcess client;
    private static long port;
    private static int runs;

    @BeforeAll
    static void start() throws Exception
    {
        net = Netns.create();
        server = new PeerProcess(Netns.in(net.b), FaultPeer.class, "serve", "address=" + Netns.ADDRESS_B,
            "liveness_ms=" + LIVENESS_MS);
        port = Long.parseLong(server.await("READY ", 30));
        client = new PeerProcess(Netns.in(net.a), FaultPeer.class, "client");
    }

    @AfterAll
    static void stop() throws Exception
    {
        try
        {
            for (final PeerProcess p : new PeerProcess[] {client, server})
            {
                if (p != null)
                {
                    try
                    {
                        p.tell("quit");
                        p.process().waitFor(5, TimeUnit.SECONDS);
                    }
                    finally
                    {
                        p.close();
                    }
                }
            }
        }
        finally
        {
            if (net != null)
            {
                net.close();
            }
        }
    }

    @AfterEach
    void healTheLink() throws Exception
    {
        net.clear();
        net.linkUp();
    }

    /** A client run's and the server session's report lines, as key=value maps. */
    private record Run(Map<String, String> client, Map<String, String> server)
    {
    }

    /** Starts run {@code name}; its connection is established when this returns. */
    private static String begin(final long rounds, final long millis, final boolean light, final boolean poll,
        final String instanceData) throws Exception
    {
        return begin(Netns.ADDRESS_B, port, rounds, millis, light, poll, instanceData);
    }

    /** Starts run {@code name} against the server at {@code address}:{@code serverPort}. */
    private static String begin(final String address, final long serverPort, final long rounds, final long millis,
        final boolean light, final boolean poll, final String instanceData) throws Exception
    {
        final String name = "r" + ++runs;
        client.tell("RUN " + name + " " + address + " " + serverPort + " " + rounds + " " + millis + " "
            + (light ? "light" : "full") + " " + (poll ? "poll" : "wait") + " " + CLIENT_IA + " " + instanceData);
        client.await("RUN " + name + " CONNECTED", 20);
        return name;
    }

    /** Waits for the end of run {@code name} on both sides. */
    private static Run end(final String name, final long seconds) throws Exception
    {
        final Map<String, String> c = fields(client.await("RUN " + name + " END", seconds));
        final Map<String, String> s = fields(server.await("SESSION " + runs + " END", seconds));
        return new Run(c, s);
    }

    private static Map<String, String> fields(final String line)
    {
        final Map<String, String> m = new HashMap<>();
        for (final String word : line.trim().split("\\s+"))
        {
            final int eq = word.indexOf('=');
            if (eq > 0)
            {
                m.put(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return m;
    }

    /** posted/succeeded/flushed of one side's books. */
    private static long[] books(final Map<String, String> side, final String which)
    {
        final String[] v = side.get(which).split("/");
        return new long[] {Long.parseLong(v[0]), Long.parseLong(v[1]), Long.parseLong(v[2])};
    }

    /** A run that ended as the client meant: graceful disconnect, every DTO succeeded but the Recvs it flushed. */
    private static void assertClean(final Run r, final long rounds)
    {
        final String all = r.client() + " / " + r.server();
        assertEquals("DISCONNECTED", r.client().get("event"), all);
        assertEquals("DISCONNECTED", r.server().get("event"), all);
        final long[] requests = books(r.client(), "requests");
        assertEquals(requests[0], requests[1], "every request succeeded: " + all);
        assertEquals(0, requests[2], all);
        assertTrue(Long.parseLong(r.client().get("rounds")) >= rounds, all);
        assertEquals(r.client().get("rounds"), r.server().get("rounds"), all);
        assertEquals("0", r.server().get("bad"), "Sends the server found not intact: " + all);
        final long[] acks = books(r.server(), "acks");
        assertEquals(acks[0], acks[1], "every ack succeeded: " + all);
        assertEquals(Long.parseLong(r.server().get("rounds")), acks[0], all);
        // the Recvs still posted at the disconnect are flushed, each once
        final long[] clientRecvs = books(r.client(), "receives");
        assertEquals(clientRecvs[0], clientRecvs[1] + clientRecvs[2], all);
        assertEquals(FaultSession.CLIENT_RECVS, clientRecvs[2], all);
        final long[] serverRecvs = books(r.server(), "receives");
        assertEquals(serverRecvs[0], serverRecvs[1] + serverRecvs[2], all);
        assertEquals(FaultSession.SERVER_RECVS, serverRecvs[2], all);
    }

    @ParameterizedTest(name = "[{0}, {1}]")
    @CsvSource({"crc=false, wait", "crc=true, poll"})
    @Order(1)
    void theTransactionMatrixPassesAcrossTheVethPair(final String crc, final String mode) throws Exception
    {
        final String name = begin(3, 0, false, mode.equals("poll"), crc);
        assertClean(end(name, 30), 3);
    }

    @ParameterizedTest
    @EnumSource(Netns.Fault.class)
    @Order(2)
    void aFaultyLinkSlowsTheRoundsButEveryByteArrives(final Netns.Fault fault) throws Exception
    {
        PeerProcess relay = null;
        String address = Netns.ADDRESS_B;
        long serverPort = port;
        if (fault == Netns.Fault.DELAY && !net.netem)
        {
            // no netem: the 50 ms each way come from a relay in the client's namespace that holds
            // every byte that long (DelayRelay), instead of from the link
            System.err.println("note: no netem here; the 50 ms delay each way is made by a relay (DelayRelay)");
            relay = new PeerProcess(Netns.in(net.a), DelayRelay.class, Netns.ADDRESS_A, Netns.ADDRESS_B,
                Long.toString(port), "50");
            serverPort = Long.parseLong(relay.await("READY ", 30));
            address = Netns.ADDRESS_A;
        }
        else
        {
            net.apply(fault);
        }
        final Map<String, Long> before = net.tcpCounters();
        final Run r;
        try
        {
            final String name = begin(address, serverPort, 0, 2500, false, false, "crc=true");
            r = end(name, 60);
        }
        finally
        {
            if (relay != null)
            {
                relay.close();
            }
        }
        final Map<String, Long> after = net.tcpCounters();
        if (r.client().get("event").equals("DISCONNECTED") && books(r.client(), "requests")[2] == 0)
        {
            assertClean(r, 1);
        }
        else
        {
            // TCP stalled past the liveness bound (a segment lost again and again, each retransmission
            // waiting twice as long): a legitimate end, as long as it was reported and booked
            System.out.println(fault + ": the connection broke after " + r.client().get("rounds") + " rounds: " + r);
            assertAccounted(r);
        }
        // the fault was really there
        final String counters = "TCP counters before " + before + "\nafter " + after;
        switch (fault)
        {
            case LOSS -> assertTrue(after.get("RetransSegs") > before.get("RetransSegs"), counters);
            case DUPLICATE -> assertTrue(after.get("TCPDSACKOldSent") > before.get("TCPDSACKOldSent"), counters);
            case REORDER -> assertTrue(after.get("TCPOFOQueue") > before.get("TCPOFOQueue"), counters);
            case DELAY ->
            {
                // a round waits for its Reads and its ack: at least one round trip of 2 x 50 ms
                final long perRound = Long.parseLong(r.client().get("ms")) / Long.parseLong(r.client().get("rounds"));
                assertTrue(perRound >= 100, "a round took " + perRound + " ms: " + r.client());
            }
        }
    }

    @Test
    @Order(3)
    void aLinkDownForHalfASecondIsRiddenOut() throws Exception
    {
        final String name = begin(0, 3000, false, false, "");
        Thread.sleep(300);
        net.linkDown();
        Thread.sleep(500);
        net.linkUp();
        assertClean(end(name, 30), 1);
    }

    @Test
    @Order(4)
    void aLinkDownForGoodBreaksBothEndsWithinTheLivenessBoundAndEveryDtoIsAccountedFor() throws Exception
    {
        final String name = begin(0, 60_000, false, false, "");
        Thread.sleep(300);
        final long downAt = System.currentTimeMillis();
        net.linkDown();
        final Run r = assertBrokenOff(name, downAt, "the link went down");
        final long[] requests = books(r.client(), "requests");
        // in the middle of the traffic: the client's requests were cut off, or they had all
        // completed and the server's ack of the round was on the link (the server counts the
        // round, the client does not)
        final boolean ackInFlight = Long.parseLong(r.server().get("rounds")) > Long.parseLong(r.client().get("rounds"));
        assertTrue(requests[2] > 0 || ackInFlight, "the link went down in the middle of the traffic: " + r);

        // the link back: a new connection passes
        net.linkUp();
        final String again = begin(2, 0, false, false, "");
        assertClean(end(again, 30), 2);
    }

    @Test
    @Order(5)
    void aPeerWhosePacketsStopComingBackIsBrokenOffWithinTheBoundEvenWithItsLastBytesUnacknowledged()
        throws Exception
    {
        // light rounds: a few bytes in flight at a time, no RDMA Read outstanding, sends never blocked
        final String name = begin(0, 60_000, true, false, "");
        Thread.sleep(300);
        final long cutAt = System.currentTimeMillis();
        // from now on nothing of b reaches a: b's next ack and its TCP ACKs of a's Sends are lost,
        // so one end or both hold bytes the peer never acknowledges, which keepalive does not probe
        net.dropArrivals(net.a);
        Thread.sleep(300);
        // then nothing at all, so that neither end hears of the other's close
        net.linkDown();
        assertBrokenOff(name, cutAt, "b's packets stopped reaching a");
    }

    /**
     * Run {@code name} ended on both sides with BROKEN or DISCONNECTED within the liveness bound
     * of {@code cutAt}, every DTO accounted for once, all Sends intact.
     */
    private static Run assertBrokenOff(final String name, final long cutAt, final String what) throws Exception
    {
        final Run r = end(name, (LIVENESS_MS + DETECTION_MARGIN_MS) / 1000 + 10);
        assertAccounted(r);
        final String all = r.client() + " / " + r.server();
        System.out.println(what + ": the client noticed " + r.client().get("event") + " after "
            + (Long.parseLong(r.client().get("at")) - cutAt) + " ms, the server " + r.server().get("event")
            + " after " + (Long.parseLong(r.server().get("at")) - cutAt) + " ms");
        for (final Map<String, String> side : List.of(r.client(), r.server()))
        {
            final long after = Long.parseLong(side.get("at")) - cutAt;
            assertTrue(after >= 0 && after <= LIVENESS_MS + DETECTION_MARGIN_MS,
                "the end was noticed " + after + " ms after " + what + ": " + all);
        }
        return r;
    }

    /**
     * Both sides ended with BROKEN or DISCONNECTED (a hang would have failed the run), every DTO
     * either succeeded or was flushed (the peers check "once" themselves), all Sends intact.
     */
    private static void assertAccounted(final Run r)
    {
        final String all = r.client() + " / " + r.server();
        for (final Map<String, String> side : List.of(r.client(), r.server()))
        {
            assertTrue(side.get("event").equals("BROKEN") || side.get("event").equals("DISCONNECTED"), all);
        }
        for (final String[] book : new String[][] {{"c", "requests"}, {"c", "receives"}, {"s", "receives"},
            {"s", "acks"}})
        {
            final long[] b = books(book[0].equals("c") ? r.client() : r.server(), book[1]);
            assertEquals(b[0], b[1] + b[2], "each " + book[1] + " succeeded or was flushed: " + all);
        }
        assertEquals("0", r.server().get("bad"), "Sends the server found not intact: " + all);
    }
}

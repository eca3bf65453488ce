package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat dtest -s} and {@code jdat dtest -h} as two peers on dtest's wire: the out-of-band
 * message on a TCP port, the PSP on a connection qualifier, the phases; on the providers that
 * leave the JVM. Then what a broken or hostile DAPL peer sends: each run ends with one clear
 * error line, never a hang.
 */
class DtestPeersTest
{
    /** The server on a thread of its own, with {@code args} after its ports. */
    private static CompletableFuture<Run> server(final int oob, final long qual, final String... args)
    {
        final List<String> a = new ArrayList<>(List.of("dtest", "-s", "--oob-port", Integer.toString(oob),
            "--conn-qual", Long.toString(qual), "--timeout", "20"));
        a.addAll(List.of(args));
        return CompletableFuture.supplyAsync(() -> Run.jdat(a.toArray(String[]::new)));
    }

    private static Run client(final int oob, final long qual, final String... args)
    {
        final List<String> a = new ArrayList<>(List.of("dtest", "-h", "127.0.0.1", "--oob-port",
            Integer.toString(oob), "--conn-qual", Long.toString(qual), "--timeout", "20"));
        a.addAll(List.of(args));
        return Run.jdat(a.toArray(String[]::new));
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    private static long qual(final String provider) throws IOException
    {
        return "tcp".equals(provider) ? freePort() : ThreadLocalRandom.current().nextInt(20_000, 40_000);
    }

    @ParameterizedTest
    @CsvSource({"tcp, -b 512 -B 10", "shm, -b 512 -B 10", "tcp, -b 4096 -B 10 -u", "tcp, -W -b 1024 -B 20",
        "shm, -D -b 256 -B 10", "tcp, -p -w -b 100 -B 33"})
    void clientAndServerPassThroughTheOutOfBandStep(final String provider, final String options) throws Exception
    {
        final int oob = freePort();
        final long qual = qual(provider);
        final String[] opts = ("-P " + provider + " " + options).split(" ");
        final CompletableFuture<Run> s = server(oob, qual, opts);
        final Run c = client(oob, qual, opts);
        final Run sr = s.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.code(), c.all() + "\nserver:\n" + sr.all());
        assertEquals(0, sr.code(), sr.all());
        assertTrue(c.out().contains("client: the server runs " + ("tcp".equals(provider) ? "ofa-v2-iwarp" : "shm")
            + " and advertises " + ("tcp".equals(provider) ? "127.0.0.1" : "no IPv4 address")), c.all());
        assertTrue(sr.out().contains("server: listening on ") && sr.out().contains("all checks passed"), sr.all());
        assertTrue(c.out().contains("all checks passed"), c.all());
    }

    @Test
    void theAdvertisedAddressIsDialledUnlessConnectAddressSaysOtherwise() throws Exception
    {
        final int oob = freePort();
        final long qual = freePort();
        // the server advertises an address nobody can dial; --connect-address dials 127.0.0.1 instead
        final CompletableFuture<Run> s = server(oob, qual, "-P", "tcp", "--advertise", "192.0.2.1",
            "--advertise-provider", "somewhere-else");
        final Run c = client(oob, qual, "-P", "tcp", "--connect-address", "127.0.0.1");
        final Run sr = s.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.code(), c.all() + "\nserver:\n" + sr.all());
        assertTrue(c.out().contains("the server runs somewhere-else and advertises 192.0.2.1"), c.all());
        assertTrue(c.out().contains("client: connected to 127.0.0.1:" + qual), c.all());
        assertEquals(0, sr.code(), sr.all());
    }

    @Test
    void differentBufferSizesFailOnBothSidesWithTheReason() throws Exception
    {
        final int oob = freePort();
        final long qual = freePort();
        final CompletableFuture<Run> s = server(oob, qual, "-P", "tcp", "-b", "512");
        final Run c = client(oob, qual, "-P", "tcp", "-b", "256");
        final Run sr = s.get(60, TimeUnit.SECONDS);
        assertEquals(Jdat.EXIT_FAILED, c.code(), c.all());
        assertTrue(c.oneErrorLine() && c.err().contains("the peer's buffer is 512 bytes (its -b), this side's -b is "
            + "256: run both ends with the same -b"), c.all());
        assertEquals(Jdat.EXIT_FAILED, sr.code(), sr.all());
        assertTrue(sr.oneErrorLine() && sr.err().contains("the peer's buffer is 256 bytes"), sr.all());
    }

    @ParameterizedTest
    @CsvSource({
        "shortOob, server, the server's out-of-band message is 100 bytes, dtest's is 128",
        "privateData, client, CONNECTION_EVENT_PEER_REJECTED",
        "replyData, server, client: the peer's accept private data byte 0 is 1, dtest's is 2 (bytes 2..49)",
        "tripletSize, server, Recv of the peer's RMR triplet on client ep: the peer sent 20 bytes, dtest's RMR "
            + "triplet is 16"})
    void aBrokenPeerEndsTheClientsRunWithTheReason(final String fault, final String who, final String expected)
        throws Exception
    {
        final int oob = freePort();
        final long qual = freePort();
        final boolean byServer = "server".equals(who);
        final CompletableFuture<Run> s = byServer ? server(oob, qual, "-P", "tcp", "--inject-fault", fault)
            : server(oob, qual, "-P", "tcp");
        final long start = System.nanoTime();
        final Run c = byServer ? client(oob, qual, "-P", "tcp")
            : client(oob, qual, "-P", "tcp", "--inject-fault", fault);
        final Run sr = s.get(60, TimeUnit.SECONDS);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15), "took longer than a failure should: "
            + (System.nanoTime() - start) / 1e9 + " s\n" + c.all() + "\nserver:\n" + sr.all());
        assertEquals(Jdat.EXIT_FAILED, c.code(), c.all());
        assertTrue(c.oneErrorLine() && c.err().contains(expected), c.all());
        assertEquals(Jdat.EXIT_FAILED, sr.code(), sr.all());
        assertTrue(sr.oneErrorLine(), sr.all());
        if ("privateData".equals(fault))
        {
            assertTrue(sr.err().contains("server: rejected the connection: the peer's connection request private data "
                + "byte 0 is 7, dtest's is 1 (bytes 1..48)"), sr.all());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"silent", "garbage", "no-address"})
    void aHostileOutOfBandServerEndsTheClientWithTheReason(final String kind) throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0))
        {
            final CompletableFuture<Void> peer = CompletableFuture.runAsync(() ->
            {
                try (Socket s = listener.accept())
                {
                    final OutputStream out = s.getOutputStream();
                    if ("silent".equals(kind))
                    {
                        Thread.sleep(4000);
                        return;
                    }
                    final byte[] m = new byte[128];
                    final byte[] text = ("garbage".equals(kind) ? "HTTP/1.0 200 OK\r\n"
                        : "0000:00000000:00000000:00000000:ofa-v2-iwarp").getBytes(StandardCharsets.US_ASCII);
                    System.arraycopy(text, 0, m, 0, text.length);
                    out.write(m);
                    out.flush();
                    Thread.sleep(500);
                }
                catch (final IOException | InterruptedException e)
                {
                    throw new IllegalStateException(e);
                }
            });
            final Run c = Run.jdat("dtest", "-P", "tcp", "-h", "127.0.0.1", "--oob-port",
                Integer.toString(listener.getLocalPort()), "--timeout", "2");
            assertEquals(Jdat.EXIT_FAILED, c.code(), c.all());
            assertTrue(c.oneErrorLine(), c.all());
            assertTrue(c.err().contains(switch (kind)
            {
                case "silent" -> "sent 0 of dtest's 128-byte out-of-band message within 2.0 s";
                case "garbage" -> "the server's out-of-band message is not dtest's \"lid:qpn:scope:address:provider\": "
                    + "'HTTP/1.0 200 OK\\x0d\\x0a'";
                default -> "the server's out-of-band message names no address";
            }), c.all());
            peer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void noServerAtAllEndsTheClientAtItsTimeout()
    {
        final Run c;
        try
        {
            c = Run.jdat("dtest", "-P", "tcp", "-h", "127.0.0.1", "--oob-port", Integer.toString(freePort()),
                "--timeout", "1");
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
        assertEquals(Jdat.EXIT_FAILED, c.code(), c.all());
        assertTrue(c.oneErrorLine() && c.err().contains("cannot reach the dtest server's out-of-band port"), c.all());
    }
}

package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat test client} on dapltest's wire, its default: the client of a real dapltest server
 * or, without {@code --server}, of a jdat test server in this process. Its options, and a server
 * that is no dapltest server: the run ends with one line, never hangs.
 */
class DapltestClientOptionsTest
{
    @ParameterizedTest
    @ValueSource(strings = {"test client -P tcp -s 127.0.0.1 transaction --jdat-protocol --test-ports 62001"
        + "|--test-ports is an option of dapltest's wire, not of --jdat-protocol",
        "test client -P tcp transaction --jdat-protocol --settle 10|--settle is an option of dapltest's wire",
        "test client --inject-corruption performance|dapltest's performance test checks no data: "
            + "--inject-corruption needs --jdat-protocol",
        "test client -s 127.0.0.1 quit --test-ports 62001|a quit has no test connections",
        "test client transaction --test-ports 0|--test-ports must be 1 to 4294967295",
        "test client transaction client SR 0 server SR 1|on dapltest's wire every op moves 1 byte or more"})
    void badOptionsAreOneLineAndExitTwo(final String lineAndError)
    {
        final String[] w = lineAndError.split("\\|");
        final Run r = Run.jdat(w[0].split(" "));
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine() && r.err().contains(w[1]), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "shm"})
    void withoutServerAServerInThisProcessServesDapltestsWire(final String provider)
    {
        final Run r = Run.jdat("test", "client", "-P", provider, "transaction", "-V", "-t", "2", "-w",
            "2", "-i", "5", "client", "SR", "256", "server", "RW", "4096", "client", "RR", "4096");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("jdat test transaction on dapltest's wire"), r.all());
        assertTrue(r.out().contains("jdat test server: session 1: dapltest transaction passed"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
    }

    /** dapltest's -r and -Q: RSPs the server reserves, and a CNO the client waits on. */
    @ParameterizedTest
    @ValueSource(strings = {"--rsp", "--cno", "--rsp --cno", "--rsp --poll", "--poll"})
    void everyCompletionAndServicePointModePassesOnDapltestsWire(final String mode)
    {
        final String line = "test client transaction -V -t 2 -w 2 -i 10 " + mode
            + " client SR 1 server SR 256 client RR 65536 4 server RW 100 3 client RW 1 server RR 7 2";
        final Run r = Run.jdat(line.split(" +"));
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains((mode.contains("--rsp") ? ", RSP" : ", PSP")), r.all());
        // the server says what it served: the client's completion mode and service points came on the wire
        final String served = (mode.contains("--poll") ? "poll" : mode.contains("--cno") ? "cno" : "wait") + ", "
            + (mode.contains("--rsp") ? "RSP" : "PSP") + ", validated";
        assertTrue(r.out().contains("session 1: dapltest transaction, 2 thread(s) x 2 EP(s) x 10 iteration(s), "
            + served), r.all());
        assertTrue(r.out().contains("jdat test server: session 1: dapltest transaction passed"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
        assertTrue(r.err().isEmpty(), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void aCorruptedByteIsCaughtByTheClientsValidation(final String provider)
    {
        final Run r = Run.jdat("test", "client", "-P", provider, "--inject-corruption", "transaction", "-V", "-i",
            "5");
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        // the client's first sink is the server's SR 4096 (op 1); the damaged byte is in its middle
        assertTrue(r.err().contains("validation on client thread 0 ep 0, iteration 0, op 1 (server SR): byte 2048 "
            + "of 4096 is 0xfe, expected 0x01"), r.all());
        assertFalse(r.out().contains("all checks passed"), r.all());
    }

    @Test
    void quitStopsTheServerInThisProcessOnDapltestsWire()
    {
        final Run r = Run.jdat("test", "client", "quit");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("jdat test server: session 1: dapltest quit"), r.all());
        assertTrue(r.out().contains("answered the quit and stops"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback RW 4096", "shm RR 1000 3", "loopback RW 64 -m p -p 4", "tcp RR 4096 2"})
    void thePerformanceTestRunsOnDapltestsWireToo(final String line)
    {
        final String[] w = line.split(" ");
        final java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("test", "client", "-P", w[0],
            "performance", "-i", "100"));
        args.addAll(java.util.List.of(w).subList(1, w.length));
        final Run r = Run.jdat(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().matches("(?s).*100 operations in [0-9.]+ s: \\d+ ops/s.*"), r.all());
        assertTrue(r.out().contains("dapltest performance done: the client's sync arrived after its 100 + 100 "
            + w[1] + " ops"), r.all());
    }

    @Test
    void aSettlePauseOutOfRangeIsAUsageError()
    {
        final Run r = Run.jdat("test", "client", "-P", "tcp", "-s", "127.0.0.1", "transaction",
            "--settle", "-1");
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine() && r.err().contains("--settle must be 0 to 60000 ms"), r.all());
    }

    @Test
    void aServerThatIsNotThereEndsTheRunWithTheReason() throws IOException
    {
        final int port;
        try (ServerSocket s = new ServerSocket(0))
        {
            port = s.getLocalPort();
        }
        final Run r = Run.jdat("test", "client", "-P", "tcp", "-s", "127.0.0.1:" + port, "--timeout", "5",
            "transaction", "-i", "1");
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine() && r.err().contains("127.0.0.1:" + port), r.all());
    }

    @Test
    void aPeerThatAnswersMpaWithGarbageEndsTheRun() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0))
        {
            final Thread peer = new Thread(() ->
            {
                try (Socket s = listener.accept())
                {
                    final OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.0 400 Bad Request\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    out.flush();
                    Thread.sleep(1000);
                }
                catch (final IOException | InterruptedException e)
                {
                    // the test checks the client
                }
            });
            peer.start();
            final Run r = Run.jdat("test", "client", "-P", "tcp", "-s", "127.0.0.1:" + listener.getLocalPort(),
                "--timeout", "5", "transaction", "-i", "1");
            peer.join(10_000);
            assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
            assertTrue(r.oneErrorLine(), r.all());
        }
    }
}

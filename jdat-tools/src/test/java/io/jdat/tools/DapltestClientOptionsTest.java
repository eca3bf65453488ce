package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat test client transaction --dapltest}: the client of a real dapltest server. Its
 * options, and a server that is no dapltest server: the run ends with one line, never hangs.
 */
class DapltestClientOptionsTest
{
    @ParameterizedTest
    @ValueSource(strings = {"test client -P tcp transaction --dapltest --rsp",
        "test client -P tcp -s 127.0.0.1 transaction --dapltest --cno"})
    void badOptionsAreOneLineAndExitTwo(final String line)
    {
        final Run r = Run.jdat(line.split(" "));
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine() && r.err().contains("--dapltest takes neither --rsp nor --cno yet"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "shm"})
    void withoutServerAServerInThisProcessServesDapltestsWire(final String provider)
    {
        final Run r = Run.jdat("test", "client", "-P", provider, "transaction", "--dapltest", "-V", "-t", "2", "-w",
            "2", "-i", "5", "client", "SR", "256", "server", "RW", "4096", "client", "RR", "4096");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("jdat test server: session 1: dapltest transaction passed"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback RW 4096", "shm RR 1000 3", "loopback RW 64 -m p -p 4"})
    void thePerformanceTestRunsOnDapltestsWireToo(final String line)
    {
        final String[] w = line.split(" ");
        final java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("test", "client", "-P", w[0],
            "performance", "--dapltest", "-i", "100"));
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
        final Run r = Run.jdat("test", "client", "-P", "tcp", "-s", "127.0.0.1", "transaction", "--dapltest",
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
            "transaction", "--dapltest", "-i", "1");
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
                "--timeout", "5", "transaction", "--dapltest", "-i", "1");
            peer.join(10_000);
            assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
            assertTrue(r.oneErrorLine(), r.all());
        }
    }
}

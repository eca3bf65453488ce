package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat test server} in a second JVM and {@code jdat test client} in this one: the
 * validated transaction test across two processes, through a PSP and through RSPs, on every
 * provider that leaves the JVM; then {@code quit}, after which the server exits 0 having
 * reported every session passed.
 */
class TwoProcessTestCommandTest
{
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void validatedTransactionsPassAgainstAServerInAnotherProcess(final String provider) throws Exception
    {
        final int port = freePort(provider);
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final Process server = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            Jdat.class.getName(), "test", "server", "-P", provider, "-n", Integer.toString(port))
            .redirectErrorStream(true).start();
        final StringBuilder serverOut = new StringBuilder();
        try (BufferedReader lines = new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)))
        {
            awaitLine(lines, serverOut, "listening on");
            final String address = ("tcp".equals(provider) ? "127.0.0.1" : "shm") + ":" + port;

            final Run psp = Run.jdat("test", "client", "-P", provider, "-s", address, "transaction", "-V", "-i", "20",
                "-t", "2", "-w", "2");
            assertEquals(0, psp.code(), psp.all());
            assertTrue(psp.out().contains("all checks passed"), psp.all());

            final Run rsp = Run.jdat("test", "client", "-P", provider, "-s", address, "transaction", "-V", "-i", "20",
                "--rsp", "client", "SR", "256", "server", "SR", "256", "client", "RW", "8192", "2", "server", "RR",
                "1000");
            assertEquals(0, rsp.code(), rsp.all());
            assertTrue(rsp.out().contains("all checks passed"), rsp.all());

            final Run quit = Run.jdat("test", "client", "-P", provider, "-s", address, "quit");
            assertEquals(0, quit.code(), quit.all());

            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server did not exit after quit:\n" + serverOut);
            String line;
            while ((line = lines.readLine()) != null)
            {
                serverOut.append(line).append('\n');
            }
            assertEquals(0, server.exitValue(), serverOut.toString());
            final String log = serverOut.toString();
            // dapltest's wire, the default: the server's own verdict of each session, and the RSPs it reserved
            assertTrue(log.contains("session 1: dapltest transaction passed")
                && log.contains("session 2: dapltest transaction, 1 thread(s) x 1 EP(s) x 20 iteration(s), wait, RSP")
                && log.contains("session 2: dapltest transaction passed") && log.contains("session 3: dapltest quit"),
                log);
        }
        finally
        {
            server.destroyForcibly();
        }
    }

    /** A TCP port nobody listens on, or for shm a random qualifier in the same range. */
    private static int freePort(final String provider) throws IOException
    {
        if (!"tcp".equals(provider))
        {
            return ThreadLocalRandom.current().nextInt(20_000, 60_000);
        }
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    /** Reads the server's output until a line contains {@code marker}; fails when it ends first. */
    private static void awaitLine(final BufferedReader lines, final StringBuilder seen, final String marker)
        throws IOException
    {
        String line;
        while ((line = lines.readLine()) != null)
        {
            seen.append(line).append('\n');
            if (line.contains(marker))
            {
                return;
            }
        }
        throw new AssertionError("the server ended before saying '" + marker + "':\n" + seen);
    }
}

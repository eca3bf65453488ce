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
        // read all along, so that every failure below shows what the server said until then
        final ServerOutput serverOut = new ServerOutput(server);
        try
        {
            serverOut.await("listening on", 60);
            final String address = ("tcp".equals(provider) ? "127.0.0.1" : "shm") + ":" + port;

            final Run psp = Run.jdat("test", "client", "-P", provider, "-s", address, "transaction", "-V", "-i", "20",
                "-t", "2", "-w", "2");
            assertEquals(0, psp.code(), () -> psp.all() + serverOut);
            assertTrue(psp.out().contains("all checks passed"), () -> psp.all() + serverOut);

            final Run rsp = Run.jdat("test", "client", "-P", provider, "-s", address, "transaction", "-V", "-i", "20",
                "--rsp", "client", "SR", "256", "server", "SR", "256", "client", "RW", "8192", "2", "server", "RR",
                "1000");
            assertEquals(0, rsp.code(), () -> rsp.all() + serverOut);
            assertTrue(rsp.out().contains("all checks passed"), () -> rsp.all() + serverOut);

            final Run quit = Run.jdat("test", "client", "-P", provider, "-s", address, "quit");
            assertEquals(0, quit.code(), () -> quit.all() + serverOut);

            assertTrue(server.waitFor(30, TimeUnit.SECONDS), () -> "the server did not exit after quit" + serverOut);
            final String log = serverOut.untilEnd();
            assertEquals(0, server.exitValue(), log);
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

    /** The server's output, read by a thread of its own as it comes. */
    private static final class ServerOutput
    {
        private final StringBuilder text = new StringBuilder();
        private final Thread reader;
        private boolean ended;

        ServerOutput(final Process server)
        {
            reader = Thread.ofPlatform().daemon().name("server-output").start(() -> read(server));
        }

        private void read(final Process server)
        {
            try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = lines.readLine()) != null)
                {
                    append(line);
                }
            }
            catch (final IOException e)
            {
                append("(reading the server's output failed: " + e + ")");
            }
            finally
            {
                synchronized (this)
                {
                    ended = true;
                    notifyAll();
                }
            }
        }

        private synchronized void append(final String line)
        {
            text.append(line).append('\n');
            notifyAll();
        }

        /** Waits until a line contains {@code marker}; fails when the output ends or time runs out first. */
        synchronized void await(final String marker, final int seconds) throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (text.indexOf(marker) < 0)
            {
                final long left = deadline - System.nanoTime();
                if (ended || left <= 0)
                {
                    throw new AssertionError("the server did not say '" + marker + "'" + this);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        /** All of it, once the server has closed its output (or after 30 s). */
        String untilEnd() throws InterruptedException
        {
            reader.join(TimeUnit.SECONDS.toMillis(30));
            return toString();
        }

        @Override
        public synchronized String toString()
        {
            return "\n--- the server's output\n" + text;
        }
    }
}

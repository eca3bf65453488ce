package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server process stopped with Ctrl-C (SIGINT) or SIGTERM while it listens removes its
 * listening file on the way out, as the kernel frees a TCP port, so that nothing of it is left in
 * the address directory.
 */
class ShmSignalTest
{
    private static final long QUAL = 6170;

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @ParameterizedTest(name = "SIG{0}")
    @ValueSource(strings = {"INT", "TERM"})
    void aListenerStoppedByASignalRemovesItsListeningFile(final String signal) throws Exception
    {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        // env --default-signal: a JVM started with SIGINT ignored (a background job of a script)
        // would keep ignoring it; Ctrl-C in a terminal is never ignored
        final Process server = new ProcessBuilder("env", "--default-signal=INT,TERM", java,
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
            ShmPeer.class.getName(), dir.toString(), "srv", Long.toString(QUAL), "sink")
            .redirectErrorStream(true).start();
        final StringBuilder output = new StringBuilder();
        try
        {
            final BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8));
            final CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> readUntil(lines, "READY",
                output), task -> Thread.ofPlatform().daemon().name("server-output").start(task));
            assertTrue(ready.get(30, TimeUnit.SECONDS), "the server never listened:\n" + output);
            final Path listening = dir.resolve("srv").resolve("l-" + QUAL);
            assertTrue(Files.exists(listening), "no listening file " + listening);

            final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(server.pid())).start();
            assertEquals(0, kill.waitFor(), "kill -" + signal);
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server did not exit on SIG" + signal);
            // a JVM ended by a signal exits with 128 + its number (SIGINT 2, SIGTERM 15)
            assertEquals(signal.equals("INT") ? 130 : 143, server.exitValue(), output.toString());
            assertFalse(Files.exists(listening), "SIG" + signal + " left the listening file behind: "
                + TestFiles.files(dir.resolve("srv")));
        }
        finally
        {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static boolean readUntil(final BufferedReader lines, final String marker, final StringBuilder seen)
    {
        try
        {
            String line;
            while ((line = lines.readLine()) != null)
            {
                synchronized (seen)
                {
                    seen.append(line).append('\n');
                }
                if (line.equals(marker))
                {
                    return true;
                }
            }
            return false;
        }
        catch (final IOException e)
        {
            return false;
        }
    }
}

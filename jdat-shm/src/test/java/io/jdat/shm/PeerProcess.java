package io.jdat.shm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ShmPeer} in a second JVM (the same {@code java} and class path as the test's), with
 * its output read line by line on a daemon thread, so that waiting for a line has a timeout.
 */
final class PeerProcess implements AutoCloseable
{
    final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> all = new ArrayList<>();

    PeerProcess(final Path dir, final String address, final long qual, final String mode)
    {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        try
        {
            process = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss2m",
                "-cp", System.getProperty("java.class.path"), ShmPeer.class.getName(), dir.toString(), address,
                Long.toString(qual), mode).redirectErrorStream(true).start();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = r.readLine()) != null)
                {
                    lines.add(line);
                }
            }
            catch (final IOException e)
            {
                lines.add("(output lost: " + e + ")");
            }
        }, "peer-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Waits for a line equal to {@code expected}; fails with everything the peer printed otherwise. */
    void await(final String expected, final long seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true)
        {
            final String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null)
            {
                throw new AssertionError("the peer did not print " + expected + " within " + seconds + " s: " + all);
            }
            all.add(line);
            if (line.equals(expected))
            {
                return;
            }
            if (line.startsWith("FAIL"))
            {
                drain();
                throw new AssertionError("the peer failed: " + String.join("\n", all));
            }
        }
    }

    /** Waits for the exit; its code, or fails after {@code seconds}. */
    int exit(final long seconds) throws InterruptedException
    {
        if (!process.waitFor(seconds, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("the peer did not exit within " + seconds + " s: " + all);
        }
        return process.exitValue();
    }

    String output() throws InterruptedException
    {
        drain();
        return String.join("\n", all);
    }

    private void drain() throws InterruptedException
    {
        String line;
        while ((line = lines.poll(100, TimeUnit.MILLISECONDS)) != null)
        {
            all.add(line);
        }
    }

    /** SIGSTOP: the process stays, but does nothing (in particular it stops consuming its rings). */
    void freeze() throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("bash", "-c", "kill -STOP " + process.pid()).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0)
        {
            throw new AssertionError("kill -STOP " + process.pid() + " failed");
        }
        // the signal is delivered asynchronously: wait until every thread of the process stopped
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!allStopped())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("process " + process.pid() + " did not stop");
            }
            Thread.sleep(1);
        }
    }

    private boolean allStopped() throws IOException
    {
        try (var tasks = java.nio.file.Files.list(Path.of("/proc", Long.toString(process.pid()), "task")))
        {
            for (final Path task : tasks.toList())
            {
                final String stat = java.nio.file.Files.readString(task.resolve("stat"));
                final char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'T' && state != 't')
                {
                    return false;
                }
            }
            return true;
        }
    }

    /** SIGKILL (Process.destroyForcibly on Unix), then waits until it is gone. */
    void kill() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
        }
    }
}

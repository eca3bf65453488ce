package io.jdat.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The {@code main} of a test class in a second JVM (the same {@code java} and class path as the
 * test's), with its output read line by line on a daemon thread, so that waiting for a line has a
 * timeout. A peer prints {@code FAIL ...} when something went wrong on its side; every wait fails
 * on that line with everything the peer printed.
 */
public final class PeerProcess implements AutoCloseable
{
    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> all = new ArrayList<>();

    /** What a peer process's {@code main} does; it may throw anything. */
    @FunctionalInterface
    public interface Main
    {
        void run() throws Exception;
    }

    /**
     * The whole {@code main} of a peer process: runs {@code body} and exits 0, or, when it
     * throws, prints {@code FAIL} with what it threw and its stack trace (the test reads them
     * from the output) and exits 1.
     */
    public static void runMain(final Main body)
    {
        try
        {
            body.run();
        }
        catch (final Throwable t)
        {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        System.out.flush();
        System.exit(0);
    }

    /** {@code main} of {@code mainClass} with {@code args}. */
    public PeerProcess(final Class<?> mainClass, final String... args)
    {
        this(List.of(), mainClass, args);
    }

    /**
     * {@code main} of {@code mainClass} with {@code args}, its command line behind {@code prefix}
     * (for example {@code ip netns exec NS}, to run it in a network namespace).
     */
    public PeerProcess(final List<String> prefix, final Class<?> mainClass, final String... args)
    {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss2m",
            "-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(args));
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader r = process.inputReader(StandardCharsets.UTF_8))
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

    /** The process, to wait for it or to ask for its id. */
    public Process process()
    {
        return process;
    }

    /**
     * Waits for a line starting with {@code prefix}; returns the rest of it, trimmed. Fails with
     * everything the peer printed otherwise.
     */
    public String await(final String prefix, final long seconds) throws InterruptedException
    {
        final String line = awaitLine(l -> l.startsWith(prefix), prefix, seconds);
        return line.substring(prefix.length()).trim();
    }

    /** Waits for a line equal to {@code expected}; fails with everything the peer printed otherwise. */
    public void awaitExactly(final String expected, final long seconds) throws InterruptedException
    {
        awaitLine(expected::equals, expected, seconds);
    }

    private String awaitLine(final Predicate<String> wanted, final String what, final long seconds)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true)
        {
            final String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null)
            {
                throw new AssertionError("the peer did not print " + what + " within " + seconds + " s: " + all);
            }
            all.add(line);
            if (wanted.test(line))
            {
                return line;
            }
            if (line.startsWith("FAIL"))
            {
                drain();
                throw new AssertionError("the peer failed: " + String.join("\n", all));
            }
        }
    }

    /** Writes one line to the peer's standard input. */
    public void tell(final String line) throws IOException
    {
        final OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Waits for the exit; its code, or fails after {@code seconds}. */
    public int exit(final long seconds) throws InterruptedException
    {
        if (!process.waitFor(seconds, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("the peer did not exit within " + seconds + " s: " + all);
        }
        return process.exitValue();
    }

    /** Everything the peer printed so far. */
    public String output() throws InterruptedException
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

    /** SIGKILL (Process.destroyForcibly on Unix), then waits until it is gone. */
    public void kill() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Sends a signal by name ({@code STOP}, {@code CONT}) with kill(1); after {@code STOP}, waits
     * until every thread of the process is stopped (Linux {@code /proc}), since the signal takes
     * effect a little after kill(1) returns. A stopped process stays, but does nothing (in
     * particular it consumes nothing).
     */
    public void signal(final String name) throws IOException, InterruptedException
    {
        final Process k = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0)
        {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
        if (name.equals("STOP"))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!stopped())
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IOException("process " + process.pid() + " did not stop");
                }
                Thread.sleep(1);
            }
        }
    }

    private boolean stopped() throws IOException
    {
        try (var tasks = Files.list(Path.of("/proc", Long.toString(process.pid()), "task")))
        {
            for (final Path t : tasks.toList())
            {
                final String stat;
                try
                {
                    stat = Files.readString(t.resolve("stat"));
                }
                catch (final NoSuchFileException e)
                {
                    continue;
                }
                // the state follows the command name in parentheses
                final char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'T' && state != 't')
                {
                    return false;
                }
            }
        }
        return true;
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

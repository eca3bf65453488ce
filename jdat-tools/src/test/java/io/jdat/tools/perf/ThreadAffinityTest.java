package io.jdat.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdat.tools.Jdat;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat perf --pin}: a thread pinned is pinned (read back from the kernel's own
 * {@code /proc/thread-self/status}, not from the class that pinned it), the pin is the thread's
 * alone and undone on close, and every bad input is a clear error that names it.
 */
class ThreadAffinityTest
{
    private static boolean linux()
    {
        return System.getProperty("os.name", "").startsWith("Linux");
    }

    /** The calling thread's CPUs as the kernel writes them in {@code /proc/thread-self/status}. */
    private static String allowedList()
    {
        return allowedList(Path.of("/proc/thread-self/status"));
    }

    /** The CPUs of the thread whose {@code status} file is {@code status}, as the kernel writes them. */
    private static String allowedList(final Path status)
    {
        try
        {
            for (final String line : Files.readAllLines(status))
            {
                if (line.startsWith("Cpus_allowed_list:"))
                {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
            throw new AssertionError("no Cpus_allowed_list in " + status);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** The CPU the calling thread last ran on, field 39 of {@code /proc/thread-self/stat}. */
    private static int lastCpu()
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            // the command name (field 2) may hold spaces: count from the ")" that ends it
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).strip().split(" ");
            return Integer.parseInt(f[39 - 3]);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code body} on a new platform thread, so that nothing it pins is the test runner's. */
    private static void onItsOwnThread(final Runnable body) throws InterruptedException
    {
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final Thread t = new Thread(() ->
        {
            try
            {
                body.run();
            }
            catch (final Throwable e)
            {
                failed.set(e);
            }
        }, "affinity-test");
        t.start();
        t.join(30_000);
        assertTrue(!t.isAlive(), "the pinning thread did not finish");
        if (failed.get() instanceof AssertionError e)
        {
            throw e;
        }
        if (failed.get() != null)
        {
            throw new AssertionError(failed.get());
        }
    }

    @Test
    void aPinnedThreadRunsOnItsCpuAloneAndGetsItsCpusBack() throws InterruptedException
    {
        assumeTrue(linux(), "sched_setaffinity is Linux's");
        final String runner = allowedList();
        final Path runnerStatus = Path.of("/proc/self/task/" + ThreadAffinity.tid() + "/status");
        onItsOwnThread(() ->
        {
            final String before = allowedList();
            final BitSet allowed = ThreadAffinity.cpus();
            assertEquals(before, ThreadAffinity.list(allowed), "sched_getaffinity agrees with /proc");
            for (int cpu = allowed.nextSetBit(0); cpu >= 0; cpu = allowed.nextSetBit(cpu + 1))
            {
                try (ThreadAffinity.Pin pin = ThreadAffinity.pin(cpu))
                {
                    assertEquals(cpu, pin.cpu());
                    assertEquals(Integer.toString(cpu), allowedList(), "the kernel's list for the pinned thread");
                    final BitSet one = new BitSet();
                    one.set(cpu);
                    assertEquals(one, ThreadAffinity.cpus());
                    // off the CPU and back: the scheduler places it on the one CPU it may use
                    Thread.yield();
                    assertEquals(cpu, lastCpu(), "the CPU the pinned thread ran on");
                    assertTrue(pin.describe("client").matches("client thread affinity-test \\(tid \\d+\\) on CPU "
                        + cpu), pin.describe("client"));
                    // the pin is this thread's alone: the runner's CPUs did not change
                    assertEquals(runner, allowedList(runnerStatus), "another thread's CPUs");
                }
                assertEquals(before, allowedList(), "close gives the thread its CPUs back");
            }
        });
        assertEquals(runner, allowedList(), "the test runner's own CPUs");
    }

    @Test
    void aCallTheKernelRefusesNamesTheCpuAndItsErrnoAndChangesNothing() throws InterruptedException
    {
        assumeTrue(linux(), "sched_setaffinity is Linux's");
        assumeTrue(Runtime.getRuntime().availableProcessors() < ThreadAffinity.MAX_CPUS - 1);
        onItsOwnThread(() ->
        {
            final String before = allowedList();
            // in cpu_set_t's range, so nothing stops it before the kernel does
            final int absent = ThreadAffinity.MAX_CPUS - 1;
            final ThreadAffinity.AffinityException e = assertThrows(ThreadAffinity.AffinityException.class,
                () -> ThreadAffinity.pin(absent));
            assertTrue(e.getMessage().contains("CPU " + absent) && e.getMessage().contains("EINVAL"),
                e.getMessage());
            assertEquals(before, allowedList());
            final ThreadAffinity.AffinityException f = assertThrows(ThreadAffinity.AffinityException.class,
                () -> ThreadAffinity.requireAllowed(absent));
            assertTrue(f.getMessage().contains("CPU " + absent) && f.getMessage().contains("may run on " + before),
                f.getMessage());
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0,1,2", "a,1", "0,", "-1,0", "0,1024", "99999999999,0"})
    void aPinThatIsNotTwoCpusNamesWhatIsWrong(final String text)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ThreadAffinity.parsePair(text));
        assertTrue(e.getMessage().startsWith("--pin: "), e.getMessage());
        final String[] parts = text.split(",", -1);
        final boolean named = parts.length != 2 ? e.getMessage().contains("'" + text + "'")
            : e.getMessage().contains(parts[0]) || e.getMessage().contains(parts[1]);
        assertTrue(named, e.getMessage());
    }

    @Test
    void twoCpusParseClientFirst()
    {
        assertEquals(java.util.List.of(3, 0), java.util.Arrays.stream(ThreadAffinity.parsePair(" 3, 0"))
            .boxed().toList());
        assertEquals(java.util.List.of(1, 1), java.util.Arrays.stream(ThreadAffinity.parsePair("1,1"))
            .boxed().toList());
    }

    @Test
    void anotherOsOrNoNativeAccessIsSaid()
    {
        final String mac = ThreadAffinity.unsupported("Mac OS X", true);
        assertTrue(mac != null && mac.contains("Linux") && mac.contains("Mac OS X"), mac);
        final String windows = ThreadAffinity.unsupported("Windows 11", true);
        assertTrue(windows != null && windows.contains("Windows 11"), windows);
        final String locked = ThreadAffinity.unsupported("Linux", false);
        assertTrue(locked != null && locked.contains("--enable-native-access"), locked);
        assertNull(ThreadAffinity.unsupported("Linux", true));
    }

    @Test
    void cpuListsAreWrittenAsLinuxWritesThem()
    {
        final BitSet s = new BitSet();
        assertEquals("none", ThreadAffinity.list(s));
        s.set(0, 4);
        s.set(6);
        s.set(9, 11);
        assertEquals("0-3,6,9-10", ThreadAffinity.list(s));
    }

    /** Runs {@code jdat args…} in this JVM, on the calling thread; out, err and the exit code. */
    private static String[] jdat(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Jdat.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void perfPinsBothMeasuringThreadsAndGivesTheRunnerItsCpusBack() throws InterruptedException
    {
        assumeTrue(linux(), "sched_setaffinity is Linux's");
        onItsOwnThread(() ->
        {
            final BitSet allowed = ThreadAffinity.cpus();
            final int client = allowed.nextSetBit(0);
            final int server = allowed.length() - 1;
            final String before = allowedList();
            final String[] r = jdat("perf", "--op", "send", "--sizes", "64", "--iters", "300", "--lat",
                "--baseline", "--pin", client + "," + server);
            assertEquals("0", r[0], String.join("\n", r));
            // each thread reads its CPUs back from the kernel after its pin
            final Matcher m = Pattern.compile("pinned: client thread affinity-test \\(tid (\\d+)\\) on CPU (\\S+);"
                + " server thread jdat-perf-server \\(tid (\\d+)\\) on CPU (\\S+);"
                + " the baseline runs between the same two threads").matcher(r[1]);
            assertTrue(m.find(), r[1]);
            assertEquals(Integer.toString(client), m.group(2));
            assertEquals(Integer.toString(server), m.group(4));
            assertTrue(!m.group(1).equals(m.group(3)), "two threads: " + r[1]);
            assertEquals(before, allowedList(), "the client's thread has its CPUs back after the run");
        });
    }

    /** Each case: the option, then what its error must name. */
    @ParameterizedTest
    @ValueSource(strings = {"--pin 0|'0'", "--pin 0,x|'x'", "--pin 0,4096|CPU 4096", "--pin 0,1023|CPU 1023",
        "--pin=-1,0|CPU -1", "--pin 1,2,3|'1,2,3'"})
    void perfRefusesABadPinInOneLineWithExitTwo(final String testCase)
    {
        final String option = testCase.substring(0, testCase.indexOf('|'));
        final String named = testCase.substring(testCase.indexOf('|') + 1);
        final String[] r = jdat(("perf --op send --sizes 64 --iters 100 --lat " + option).split(" "));
        assertEquals(Integer.toString(Jdat.EXIT_USAGE), r[0], String.join("\n", r));
        final String err = r[2].strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("jdat perf: --pin: ") && !err.contains("Exception"), err);
        assertTrue(err.contains(named), "names " + named + ": " + err);
    }
}

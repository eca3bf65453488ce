package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.registry.Registry;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code jdat perf} on loopback with small counts: table, JSON, plot, baselines, failures. */
class PerfTest
{
    private static final List<String> FIGURES = List.of("p50_us", "p99_us", "p999_us", "max_us", "mb_per_s",
        "msg_per_s");

    @TempDir
    Path dir;

    @Test
    void sweepWithBaselineWritesJsonWithRatiosAndAPlot() throws IOException
    {
        final Path json = dir.resolve("out.json");
        final Path png = dir.resolve("out.png");
        final Run r = Run.jdat("perf", "--op", "all", "--sizes", "8,4K,64K", "--iters", "300", "--baseline",
            "--json", json.toString(), "--plot", png.toString());
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("baseline queue: JCTools SPSC queue"), r.all());
        assertTrue(r.out().contains("lat x"), r.all());

        final List<?> rows = assertInstanceOf(List.class,
            MiniJson.parse(Files.readString(json, StandardCharsets.UTF_8)));
        assertEquals(9, rows.size(), "3 operations x 3 sizes");
        final Set<String> seen = new TreeSet<>();
        for (final Object o : rows)
        {
            final Map<?, ?> row = assertInstanceOf(Map.class, o);
            assertEquals("loopback", row.get("provider"));
            seen.add(row.get("op") + "/" + ((Double) row.get("size")).longValue());
            assertTrue(((Double) row.get("iters")) >= 8, row.toString());
            for (final String f : FIGURES)
            {
                final Double v = assertInstanceOf(Double.class, row.get(f), f + " in " + row);
                assertTrue(v > 0, f + " in " + row);
            }
            assertTrue((Double) row.get("p50_us") <= (Double) row.get("p99_us"), row.toString());
            assertTrue((Double) row.get("p99_us") <= (Double) row.get("max_us"), row.toString());
            assertEquals("queue", row.get("baseline"));
            final Map<?, ?> base = assertInstanceOf(Map.class, row.get("baseline_figures"));
            final Map<?, ?> ratio = assertInstanceOf(Map.class, row.get("ratio"));
            for (final String f : FIGURES)
            {
                final double ours = (Double) row.get(f);
                final double theirs = (Double) base.get(f);
                final double q = (Double) ratio.get(f);
                assertEquals(ours / theirs, q, 1e-3 * Math.abs(q) + 1e-9, f + " ratio in " + row);
            }
        }
        assertEquals(Set.of("read/4096", "read/65536", "read/8", "send/4096", "send/65536", "send/8",
            "write/4096", "write/65536", "write/8"), seen);

        final BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "the plot is a PNG ImageIO can decode");
        assertEquals(1600, image.getWidth());
        assertEquals(600, image.getHeight());
        assertTrue(distinctColours(image) > 8, "the plot has lines on it, not a blank image");
    }

    private static int distinctColours(final BufferedImage image)
    {
        final Set<Integer> colours = new TreeSet<>();
        for (int y = 0; y < image.getHeight(); y += 3)
        {
            for (int x = 0; x < image.getWidth(); x += 3)
            {
                colours.add(image.getRGB(x, y));
            }
        }
        return colours.size();
    }

    @Test
    void withoutBaselineTheJsonHasNoRatio() throws IOException
    {
        final Path json = dir.resolve("plain.json");
        final Run r = Run.jdat("perf", "--op", "write", "--sizes", "64", "--iters", "200", "--lat", "--json",
            json.toString());
        assertEquals(0, r.code(), r.all());
        final List<?> rows = (List<?>) MiniJson.parse(Files.readString(json));
        final Map<?, ?> row = (Map<?, ?>) rows.getFirst();
        assertFalse(row.containsKey("ratio"), row.toString());
        assertInstanceOf(Double.class, row.get("p50_us"));
        assertTrue(row.containsKey("mb_per_s") && row.get("mb_per_s") == null, "bandwidth was not measured: " + row);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void otherBaselinesRunBesideLoopback(final String baseline) throws IOException
    {
        final Path json = dir.resolve(baseline + ".json");
        final Run r = Run.jdat("perf", "--op", "all", "--sizes", "64,64K", "--iters", "200", "--baseline=" + baseline,
            "--json", json.toString());
        assertEquals(0, r.code(), r.all());
        for (final Object o : (List<?>) MiniJson.parse(Files.readString(json)))
        {
            final Map<?, ?> row = (Map<?, ?>) o;
            assertEquals(baseline, row.get("baseline"));
            assertTrue((Double) ((Map<?, ?>) row.get("ratio")).get("p50_us") > 0, row.toString());
        }
    }

    @Test
    void bidirectionalAndInlinePollRun()
    {
        final Run both = Run.jdat("perf", "--bw", "--bidirectional", "--op", "send,write", "--sizes", "16,32K",
            "--iters", "300", "--baseline");
        assertEquals(0, both.code(), both.all());
        final Run r = Run.jdat("perf", "--lat", "--inline-poll", "--sizes", "16", "--iters", "300");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains(" send: latency"), r.all());
        // bandwidth with --inline-poll: the target of one-way RDMA spins for CHECK instead of waiting
        final Run spin = Run.jdat("perf", "--bw", "--inline-poll", "--op", "write,read", "--sizes", "32K",
            "--iters", "300", "--baseline");
        assertEquals(0, spin.code(), spin.all());
    }

    /**
     * A latency row beside a baseline runs in slices, jdat's and the baseline's in turn (40,000
     * rounds: four of 10,000, each with a quarter of the row's 1,000 warm-up rounds), and the
     * row's allocation count and figures are of every slice: a row that kept only its last
     * slice's count would show 10,250 operations.
     */
    @Test
    void aRowBesideABaselineCountsEverySlice() throws IOException
    {
        final Path json = dir.resolve("sliced.json");
        final Run lat = Run.jdat("perf", "--op", "send", "--sizes", "8", "--lat", "--iters", "40000", "--warmup",
            "1000", "--baseline", "--inline-poll", "--alloc", "--json", json.toString());
        assertEquals(0, lat.code(), lat.all());
        assertEquals(41_000, ops("latency", lat), "4 slices of 10,000 and 250 rounds: " + lat.all());
        final Map<?, ?> row = (Map<?, ?>) ((List<?>) MiniJson.parse(Files.readString(json, StandardCharsets.UTF_8)))
            .getFirst();
        assertEquals(40_000.0, row.get("iters"), lat.all());
        for (final String f : List.of("p50_us", "p99_us", "p999_us", "max_us"))
        {
            assertTrue((Double) ((Map<?, ?>) row.get("ratio")).get(f) > 0, f + " in " + row);
        }
    }

    /**
     * The Send latency row's server keeps one receive posted to spare, so that it replies before it
     * reposts: rows of one, two and three rounds with no warm-up (the spare's edges: none to post,
     * the first two posted before READY, one repost) complete every round on loopback and tcp.
     */
    @Test
    void sendLatencyRowsOfOneTwoAndThreeRoundsComplete()
    {
        for (final String provider : List.of("loopback", "tcp"))
        {
            for (final String iters : List.of("1", "2", "3"))
            {
                final Run r = Run.jdat("perf", "--provider", provider, "--op", "send", "--sizes", "8", "--lat",
                    "--iters", iters, "--warmup", "0");
                assertEquals(0, r.code(), provider + ", " + iters + " rounds: " + r.all());
                assertTrue(r.out().matches("(?s).*\\n +8 +" + iters + " +\\d.*"), provider + ", " + iters + " rounds: "
                    + r.all());
            }
        }
    }

    /** The operations of a row's {@code --alloc} line for latency or bandwidth. */
    private static int ops(final String kind, final Run r)
    {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("allocated B/op: " + kind
            + " client \\S+ server \\S+ \\((\\d+) ops\\)").matcher(r.out());
        assertTrue(m.find(), r.all());
        return Integer.parseInt(m.group(1));
    }

    /**
     * {@code --alloc} prints, under each row, the bytes per operation the client's and the
     * server's measuring threads allocated; on loopback, whose post and dequeue allocate nothing,
     * and with a harness that builds no message per round, a few bytes per operation at most
     * (what the first rounds allocate before the JIT compiler has run). The rows are long enough
     * that a one-off cost spread over them stays below that: compiling a method of the data path
     * loads the classes its signature names on the thread that made it hot (an SRQ's class, about
     * 30 KB read from the jar, when no SRQ was used), 5.4 B/op over 5,500 operations.
     */
    @Test
    void allocPrintsBytesPerOperationOfBothThreads()
    {
        final Run r = Run.jdat("perf", "--op", "send,write", "--sizes", "8", "--iters", "20000", "--inline-poll",
            "--alloc");
        assertEquals(0, r.code(), r.all());
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("allocated B/op: latency client (\\S+) "
            + "server (\\S+) \\((\\d+) ops\\); bandwidth client (\\S+) server (\\S+)").matcher(r.out());
        int rows = 0;
        while (m.find())
        {
            rows++;
            assertEquals(22000, Integer.parseInt(m.group(3)), "20000 measured and 2000 warm-up rounds: " + r.all());
            for (final int g : new int[] {1, 2, 4, 5})
            {
                final double perOp = Double.parseDouble(m.group(g));
                assertTrue(perOp >= 0 && perOp < 4, "bytes per operation " + perOp + " in " + m.group() + "\n"
                    + r.all());
            }
        }
        assertEquals(2, rows, "one allocation line per row (send 8, write 8): " + r.all());
    }

    @Test
    void sharedMemoryOnShmSendsLargeRdmaAsReferencesAndChecksTheData()
    {
        final Run r = Run.jdat("perf", "-P", "shm", "--shared-memory", "--op", "write,read", "--bw", "--sizes",
            "64,128K", "--iters", "100");
        assertEquals(0, r.code(), r.all());
        // writes of 128 KiB out of the client's memory, read responses out of the server's
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile(
            "shared memory: (\\d+) bytes sent and (\\d+) received as references").matcher(r.out());
        assertTrue(m.find(), r.all());
        assertTrue(Long.parseLong(m.group(1)) >= 100L * 128 * 1024, r.all());
        assertTrue(Long.parseLong(m.group(2)) >= 100L * 128 * 1024, r.all());
        final Run bad = Run.jdat("perf", "-P", "shm", "--shared-memory", "--op", "write", "--bw", "--sizes", "128K",
            "--iters", "20", "--inject-corruption");
        assertEquals(Jdat.EXIT_FAILED, bad.code(), bad.all());
        assertTrue(bad.err().contains("data differs at byte"), bad.all());
    }

    /**
     * {@code --nonthreadsafe} opens both sides' IAs from the name's {@code nonthreadsafe} entry: a
     * name whose only entry is {@code threadsafe} runs without the option and is not found with it.
     */
    @Test
    void nonthreadsafeOpensTheNonthreadsafeEntry() throws IOException
    {
        final Run r = Run.jdat("perf", "--nonthreadsafe", "--op", "send", "--sizes", "64", "--iters", "300");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("provider loopback (nonthreadsafe entry)"), r.all());
        final Path conf = dir.resolve("dat.conf");
        Files.writeString(conf, "perf-ts u1.2 threadsafe default loopback jdat.0.1 \"\" \"\"\n");
        System.setProperty(Registry.CONF_PROPERTY, conf.toString());
        Registry.reload();
        try
        {
            final Run safe = Run.jdat("perf", "-P", "perf-ts", "--op", "send", "--sizes", "64", "--iters", "300");
            assertEquals(0, safe.code(), safe.all());
            final Run single = Run.jdat("perf", "-P", "perf-ts", "--nonthreadsafe", "--op", "send", "--sizes", "64",
                "--iters", "300");
            assertEquals(Jdat.EXIT_FAILED, single.code(), single.all());
            assertTrue(single.err().contains("nonthreadsafe"), single.all());
        }
        finally
        {
            System.clearProperty(Registry.CONF_PROPERTY);
            Registry.reload();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"send", "write", "read"})
    void corruptedDataFailsTheRun(final String op)
    {
        for (final String kind : new String[] {"--lat", "--bw"})
        {
            final Run r = Run.jdat("perf", "--op", op, kind, "--sizes", "256", "--iters", "50", "--inject-corruption");
            assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
            assertTrue(r.oneErrorLine(), r.all());
            assertTrue(r.err().contains("data differs at byte"), r.all());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--op bogus", "--sizes 0", "--sizes 12Q", "--iters 0", "--baseline=nope",
        "--plot out.jpg", "--listen 9999", "--connect somewhere:1", "--listen --connect x", "--depth -1",
        "--iters many"})
    void badOptionsAreOneLineAndExitTwo(final String options)
    {
        final String[] args = ("perf " + options).split(" ");
        final Run r = Run.jdat(args);
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
    }
}

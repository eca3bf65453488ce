package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A mixed soak of every provider at once: for {@code jdat.soak.seconds} (default 120) one thread
 * per provider runs validated {@code jdat test} transactions again and again, each a whole life
 * cycle (IA open, PSP, two threads of two endpoints connecting, Send/Recv both ways, RDMA Writes
 * and Reads of several segments, every byte checked, disconnect, IA close). After a warm-up cycle it samples the heap
 * after a collection, direct and mapped buffer memory, live threads and open file descriptors;
 * at the end every one of them must be back near its sample: nothing leaks per cycle.
 */
class SoakTest
{
    private static final int SECONDS = Integer.getInteger("jdat.soak.seconds", 120);
    /** Heap that may be retained beyond the sample (JIT, class data, caches that fill once). */
    private static final long HEAP_SLACK = 24L << 20;

    private static final List<String> PROVIDERS = List.of("loopback", "tcp", "shm");

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void validatedTransactionsOnEveryProviderForMinutesLeakNothing() throws Exception
    {
        for (final String provider : PROVIDERS)
        {
            cycle(provider);
        }
        final Sample before = Sample.take();
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        // the providers soak at the same time, each on its own thread, for the whole duration
        final List<CompletableFuture<long[]>> runs = new ArrayList<>();
        for (final String provider : PROVIDERS)
        {
            runs.add(CompletableFuture.supplyAsync(() ->
            {
                long cycles = 0;
                long checks = 0;
                while (System.nanoTime() - end < 0)
                {
                    checks += cycle(provider);
                    cycles++;
                }
                return new long[] {cycles, checks};
            }, r -> Thread.ofPlatform().name("soak-" + provider).start(r)));
        }
        for (int i = 0; i < PROVIDERS.size(); i++)
        {
            final long[] r = runs.get(i).get(SECONDS + 120L, TimeUnit.SECONDS);
            System.out.printf("soak %s: %d cycles, %d checks in %d s%n", PROVIDERS.get(i), r[0], r[1], SECONDS);
            assertTrue(r[0] > 0, PROVIDERS.get(i) + " ran no cycle");
        }
        final Sample after = Sample.settled(before);
        System.out.printf("soak: heap %d -> %d KiB, direct %d -> %d KiB, mapped %d -> %d KiB, threads %d -> %d, "
            + "fds %d -> %d%n", before.heap >> 10, after.heap >> 10, before.direct >> 10, after.direct >> 10,
            before.mapped >> 10, after.mapped >> 10, before.threads, after.threads, before.fds, after.fds);
        assertTrue(after.heap <= before.heap + HEAP_SLACK, "heap grew: " + before + " -> " + after);
        assertTrue(after.direct <= before.direct + (1 << 20), "direct memory grew: " + before + " -> " + after);
        assertEquals(before.mapped, after.mapped, "mapped memory: " + before + " -> " + after);
        assertEquals(before.threads, after.threads, "threads: " + before + " -> " + after);
        assertTrue(after.fds <= before.fds + 4, "file descriptors: " + before + " -> " + after);
    }

    /** One validated transaction test, whole life cycle; returns its checks. */
    private static long cycle(final String provider)
    {
        final Run r = Run.jdat("test", "client", "-P", provider, "transaction", "--jdat-protocol", "-V", "-i", "100",
            "-t", "2", "-w", "2", "client", "SR", "256", "server", "SR", "1024", "client", "RW", "65536", "server",
            "RR", "8192", "2", "client", "RR", "4096");
        assertEquals(0, r.code(), r.all());
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("all checks passed \\((\\d+) checks\\)")
            .matcher(r.out());
        assertTrue(m.find(), r.all());
        return Long.parseLong(m.group(1));
    }

    /** What a leak would make grow. */
    private record Sample(long heap, long direct, long mapped, int threads, long fds)
    {
        static Sample take() throws Exception
        {
            System.gc();
            Thread.sleep(100);
            System.gc();
            final Runtime rt = Runtime.getRuntime();
            long direct = 0;
            long mapped = 0;
            for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
            {
                if (pool.getName().equals("direct"))
                {
                    direct = pool.getMemoryUsed();
                }
                else if (pool.getName().equals("mapped"))
                {
                    mapped = pool.getMemoryUsed();
                }
            }
            final long fds;
            try (var s = Files.list(Path.of("/proc/self/fd")))
            {
                fds = s.count();
            }
            return new Sample(rt.totalMemory() - rt.freeMemory(), direct, mapped, Thread.activeCount(), fds);
        }

        /** A sample once threads of closed IAs have ended (they end right after close; allow a few seconds). */
        static Sample settled(final Sample before) throws Exception
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Sample s = take();
            while ((s.threads > before.threads || s.mapped > before.mapped || s.direct > before.direct + (1 << 20))
                && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(200);
                s = take();
            }
            return s;
        }
    }
}

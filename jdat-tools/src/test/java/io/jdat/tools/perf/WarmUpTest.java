package io.jdat.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The warm-up's rule, with a fake compilation time and a fake clock: nothing here is timed. */
class WarmUpTest
{
    /** Compilation time that grows by {@code growth[i]} during pass i, then by 0. */
    private static final class FakeCompiler implements LongSupplier
    {
        private final long[] growth;
        private final AtomicInteger passes = new AtomicInteger();
        private long total = 100;

        FakeCompiler(final long... growth)
        {
            this.growth = growth;
        }

        void pass()
        {
            final int i = passes.getAndIncrement();
            total += i < growth.length ? growth[i] : 0;
        }

        @Override
        public long getAsLong()
        {
            return total;
        }
    }

    private static WarmUp.Result run(final FakeCompiler c, final int maxPasses)
    {
        return WarmUp.run(c::pass, c, 10, 2, maxPasses, Long.MAX_VALUE, () -> 0L);
    }

    @Test
    void passesRepeatWhileCompilationGrowsAndStopAfterTwoQuietOnesInARow()
    {
        // one quiet pass between two bursts is a pause of the compiler, not its end
        final FakeCompiler c = new FakeCompiler(500, 80, 3, 60, 30, 10, 5, 50);
        final WarmUp.Result r = run(c, 20);
        assertEquals(7, r.passes());
        assertEquals(7, c.passes.get());
        assertTrue(r.settled());
        assertEquals(5, r.lastMillis());
        assertTrue(r.describe().startsWith("warm-up: 7 passes in 0.0 s, settled"), r.describe());
    }

    @Test
    void aCompilerThatNeverGoesQuietStopsAtThePassCap()
    {
        final FakeCompiler c = new FakeCompiler(500, 80, 80, 80, 80, 80, 80, 80, 80, 80);
        final WarmUp.Result r = run(c, 5);
        assertEquals(5, r.passes());
        assertEquals(5, c.passes.get());
        assertFalse(r.settled());
        assertEquals(80, r.lastMillis());
        assertTrue(r.describe().contains("not settled"), r.describe());
    }

    @Test
    void noPassStartsAfterTheTimeCap()
    {
        final FakeCompiler c = new FakeCompiler(500, 80, 80, 80, 80, 80, 80, 80, 80, 80);
        final long[] now = {0};
        final WarmUp.Result r = WarmUp.run(() ->
        {
            c.pass();
            now[0] += 4;
        }, c, 10, 2, 100, 10, () -> now[0]);
        assertEquals(3, r.passes(), "passes end at 4, 8 and 12 ns: the cap of 10 is passed after the third");
        assertFalse(r.settled());
        assertEquals(12, r.nanos());
    }

    @Test
    void withoutACompilationTimeOnePassRuns()
    {
        final AtomicInteger passes = new AtomicInteger();
        final WarmUp.Result r = WarmUp.run(passes::incrementAndGet, () -> -1, 10, 2, 8, Long.MAX_VALUE, () -> 0L);
        assertEquals(1, passes.get());
        assertFalse(r.settled());
        assertTrue(r.describe().contains("not available"), r.describe());
    }

    @Test
    void aTimeUnknownBeforeTheFirstPassIsNotTakenAsQuiet()
    {
        // a server in another process reports its compilation time only after the first pass
        final AtomicInteger passes = new AtomicInteger();
        final WarmUp.Result r = WarmUp.run(passes::incrementAndGet, () -> passes.get() == 0 ? -1 : 7, 10, 2, 8,
            Long.MAX_VALUE, () -> 0L);
        assertEquals(3, passes.get());
        assertTrue(r.settled());
        assertEquals(0, r.lastMillis());
    }
}

package io.jdat.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** How a row beside a baseline is cut into alternating slices, and how they and their allocations add up. */
class SlicesTest
{
    @Test
    void aRowOfGigabytesRunsInFourSlicesThatAddUpToIt()
    {
        // the must-show tcp row: 4,000 x 1 MiB
        assertArrayEquals(new int[] {1000, 1000, 1000, 1000}, Slices.of(1 << 20, 4000));
        // 40,000 x 64 KiB
        assertEquals(4, Slices.of(64 << 10, 40_000).length);
        final int[] odd = Slices.of(1 << 20, 4003);
        assertEquals(4003, Arrays.stream(odd).sum());
        assertArrayEquals(new int[] {1001, 1001, 1001, 1000}, odd);
    }

    @Test
    void aRowOfFewerThanTwoSlicesWorthRunsWhole()
    {
        // the loopback and shm rate rows: 200,000 x 64 B
        assertArrayEquals(new int[] {200_000}, Slices.of(64, 200_000));
        assertArrayEquals(new int[] {255}, Slices.of(1 << 20, 255));
        assertArrayEquals(new int[] {128, 128}, Slices.of(1 << 20, 256));
        assertArrayEquals(new int[] {128, 128, 128}, Slices.of(1 << 20, 384));
        // no more slices than messages
        assertEquals(3, Slices.of(1L << 30, 3).length);
    }

    @Test
    void aLatencyRowRunsInAnEvenNumberOfSlicesOfTenThousandRoundsOrMore()
    {
        // the loopback must-show row (200,000) and the shm one (100,000)
        assertArrayEquals(new int[] {25_000, 25_000, 25_000, 25_000, 25_000, 25_000, 25_000, 25_000},
            Slices.ofRounds(200_000));
        assertArrayEquals(new int[] {12_500, 12_500, 12_500, 12_500, 12_500, 12_500, 12_500, 12_500},
            Slices.ofRounds(100_000));
        // the default 20,000: two; fewer than two slices' worth runs whole
        assertArrayEquals(new int[] {10_000, 10_000}, Slices.ofRounds(20_000));
        assertArrayEquals(new int[] {19_999}, Slices.ofRounds(19_999));
        assertArrayEquals(new int[] {1}, Slices.ofRounds(1));
        // three slices' worth runs in two, so that each side opens as many pairs
        assertArrayEquals(new int[] {15_001, 15_000}, Slices.ofRounds(30_001));
        assertEquals(4, Slices.ofRounds(50_000).length);
        assertEquals(8, Slices.ofRounds(Integer.MAX_VALUE).length);
        assertEquals(Integer.MAX_VALUE, Arrays.stream(Slices.ofRounds(Integer.MAX_VALUE)).asLongStream().sum());
    }

    @Test
    void aSliceWarmsUpWithItsShareOfTheRowsWarmUp()
    {
        // a tenth of the row: a tenth of each slice
        assertEquals(2500, Slices.warmup(20_000, 200_000, 25_000));
        // a row without warm-up, a row in one slice
        assertEquals(0, Slices.warmup(0, 200_000, 25_000));
        assertEquals(700, Slices.warmup(700, 19_999, 19_999));
        // a small --warmup leaves each slice at least one round, rounded up
        assertEquals(1, Slices.warmup(5, 200_000, 25_000));
        assertEquals(2, Slices.warmup(9, 80_000, 10_000));
    }

    @Test
    void theSidesRunInPairsAndTakeTurnsAtGoingFirst()
    {
        final StringBuilder order = new StringBuilder();
        Slices.alternate(4, true, i -> order.append(" j").append(i), i -> order.append(" b").append(i));
        assertEquals(" j0 b0 b1 j1 j2 b2 b3 j3", order.toString());
        order.setLength(0);
        Slices.alternate(4, false, i -> order.append(" j").append(i), i -> order.append(" b").append(i));
        assertEquals(" b0 j0 j1 b1 b2 j2 j3 b3", order.toString());
    }

    @Test
    void theRowsLatencyIsThePercentilesOfAllItsRounds()
    {
        // 3,000 round trips of 1 us in one slice, 1,000 of 9 us in the other: the row's median is
        // 1 us and its p99 9 us, which neither slice alone gives
        final Histogram fast = new Histogram(3_600_000_000_000L, 3);
        fast.recordValueWithCount(1000, 3000);
        final Histogram slow = new Histogram(3_600_000_000_000L, 3);
        slow.recordValueWithCount(9000, 1000);
        final Figures.Latency row = Slices.combine(new Histogram[] {fast, slow}, 1);
        assertEquals(1.0, row.p50(), 0.01);
        assertEquals(9.0, row.p99(), 0.01);
        assertEquals(9.0, row.max(), 0.01);
        // a half round trip halves each figure; the slices themselves are left as they were
        assertEquals(4.5, Slices.combine(new Histogram[] {slow, fast}, 2).p99(), 0.01);
        assertEquals(3000, fast.getTotalCount());
        assertEquals(1000, slow.getTotalCount());
    }

    @Test
    void theRowsFigureIsAllItsBytesOverAllItsTime()
    {
        // 100 messages of 1 MB at 1,000 msg/s (0.1 s), then 100 at 100 msg/s (1 s): 200 in 1.1 s,
        // not the mean of the two rates
        final Figures.Bandwidth fast = new Figures.Bandwidth(1000.0, 1000.0);
        final Figures.Bandwidth slow = new Figures.Bandwidth(100.0, 100.0);
        final Figures.Bandwidth row = Slices.combine(new Figures.Bandwidth[] {fast, slow}, new int[] {100, 100});
        assertEquals(200 / 1.1, row.msgPerS(), 1e-9);
        assertEquals(200 / 1.1, row.mbPerS(), 1e-9);
    }

    @Test
    void theRowsAllocationsAreEverySlicesTogether()
    {
        // a slice that allocated must show in the row's bytes per operation, whichever slice it was
        final PerfClient.Allocated first = new PerfClient.Allocated(4000, 0, 1000);
        final PerfClient.Allocated rest = new PerfClient.Allocated(0, 0, 3000);
        final PerfClient.Allocated row = first.plus(rest);
        assertEquals(1.0, row.clientPerOp(), 1e-9);
        assertEquals(0.0, row.serverPerOp(), 1e-9);
        // a side not counted in one slice is not counted for the row
        assertEquals(Double.NaN, first.plus(new PerfClient.Allocated(-1, 0, 1000)).clientPerOp());
    }
}

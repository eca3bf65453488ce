package io.jdat.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** How a bandwidth row beside a baseline is cut into alternating slices, and how they and their allocations add up. */
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

package io.jdat.tools.perf;

import java.util.function.IntConsumer;
import org.HdrHistogram.Histogram;

/**
 * A latency row and a long bandwidth row beside a baseline run in slices, jdat's and the
 * baseline's in turn, and each figure is of all its slices: a bandwidth the bytes of all slices
 * over their time, a latency the percentiles of all slices' round trips in one histogram. Such a
 * row takes a tenth of a second to seconds on each side, and the machine's state can change in
 * between: on the 2-vCPU host these figures come from, the line round trip between the two
 * vCPUs switches between about 60 and 300 ns for stretches of 5 to 40 seconds, and a loopback
 * TCP stream moves 1.5 to 2.2 times slower in the slow state. Measured one after the other,
 * jdat's part and the baseline's drew their states independently and the ratio swung by 3
 * times (a 1 MiB rate) and by 7 times (a 64-byte round trip); in slices a fraction of a second
 * long, both sides see the same states.
 *
 * <p>The side that runs first takes turns from slice to slice (jdat, baseline, baseline, jdat,
 * ...), and the row says which side opens, so that neither side always gets the slice that
 * follows a change of row or of side.
 */
final class Slices
{
    /** The least a slice of a bandwidth row cut by its bytes moves. */
    static final long SLICE_BYTES = 128L << 20;
    /**
     * The most slices a bandwidth row is cut into by its bytes. Each slice warms up as the whole
     * row does (a tenth of its iterations by default, at least the stream's window): a jdat
     * stream starts its clock with the window full, and a slice that starts it while the first
     * messages are still queued pays for them.
     */
    static final int MAX_SLICES = 4;
    /** The fewest measured rounds of a slice of a latency row. */
    static final int SLICE_ROUNDS = 10_000;
    /**
     * The most slices a latency row is cut into: a 64-byte round trip row of 100,000 to
     * 200,000 rounds takes 0.05 to 1 s a side here (half round trips of 0.1 to 2.5 us), so
     * eight slices make each side's slice a few to a hundred milliseconds, far shorter than a
     * state of the machine, and a change of state in the middle of the row touches one slice
     * pair of eight. More would add per-slice setup (a RUN, a baseline's connection, a
     * warm-up) for little.
     */
    static final int MAX_COUNT_SLICES = 8;

    private Slices()
    {
    }

    /**
     * The measured iterations of each slice of a bandwidth row of {@code iters} messages of
     * {@code size} bytes: as many slices as {@link #SLICE_BYTES} fits in the row, up to
     * {@link #MAX_SLICES}, one if fewer than two; the first ones take the remainder. A shorter
     * row (the 64-byte rate rows: 200,000 messages in 5 to 80 ms a side) runs whole: its two
     * parts already run within a state of the machine, and cut by its count into slices of
     * 25,000 or 100,000 messages its ratio spread wider, not narrower (docs/perf.md, "Sixteenth
     * step: `jdat perf`").
     */
    static int[] of(final long size, final int iters)
    {
        final long fit = Math.max(1, size) * (long) iters / SLICE_BYTES;
        final int k = (int) Math.max(1, Math.min(Math.min(MAX_SLICES, fit), iters));
        return split(iters, k < 2 ? 1 : k);
    }

    /**
     * The measured rounds of each slice of a latency row of {@code iters} round trips: one
     * slice per {@link #SLICE_ROUNDS}, up to {@link #MAX_COUNT_SLICES}, an even number so that
     * each side opens as many pairs as the other; one if fewer than two.
     */
    static int[] ofRounds(final int iters)
    {
        int k = Math.min(MAX_COUNT_SLICES, iters / SLICE_ROUNDS);
        k = k < 2 ? 1 : k & ~1;
        return split(iters, k);
    }

    private static int[] split(final int iters, final int k)
    {
        final int[] parts = new int[k];
        for (int i = 0; i < k; i++)
        {
            parts[i] = iters / k + (i < iters % k ? 1 : 0);
        }
        return parts;
    }

    /**
     * The warm-up of one slice of {@code part} rounds of a row of {@code iters} rounds and
     * {@code rowWarmup} warm-up rounds: the row's own share for the slice (a tenth of the slice
     * where the row's is a tenth of the row), at least one where the row has any.
     */
    static int warmup(final int rowWarmup, final int iters, final int part)
    {
        if (rowWarmup <= 0 || part >= iters)
        {
            return rowWarmup;
        }
        return (int) Math.max(1, ((long) rowWarmup * part + iters - 1) / iters);
    }

    /**
     * Runs slice {@code i} of each side for every {@code i} below {@code slices}: in pairs, the
     * side that goes first alternating from pair to pair, jdat first in the first pair when
     * {@code jdatOpens}.
     */
    static void alternate(final int slices, final boolean jdatOpens, final IntConsumer jdat,
        final IntConsumer baseline)
    {
        for (int i = 0; i < slices; i++)
        {
            if (jdatOpens == (i % 2 == 0))
            {
                jdat.accept(i);
                baseline.accept(i);
            }
            else
            {
                baseline.accept(i);
                jdat.accept(i);
            }
        }
    }

    /**
     * The figure of the whole row: every slice's messages over the time all of them took; null
     * if a slice has none (a baseline that measured nothing).
     */
    static Figures.Bandwidth combine(final Figures.Bandwidth[] slices, final int[] messages)
    {
        for (final Figures.Bandwidth s : slices)
        {
            if (s == null)
            {
                return null;
            }
        }
        double seconds = 0;
        double megabytes = 0;
        long total = 0;
        for (int i = 0; i < slices.length; i++)
        {
            final double s = messages[i] / slices[i].msgPerS();
            seconds += s;
            megabytes += slices[i].mbPerS() * s;
            total += messages[i];
        }
        return new Figures.Bandwidth(megabytes / seconds, total / seconds);
    }

    /**
     * The latency of the whole row: the percentiles of every slice's round trips together
     * (HdrHistogram's {@code add}), each value divided by {@code divisor} as
     * {@link Figures.Latency#of} does.
     */
    static Figures.Latency combine(final Histogram[] slices, final double divisor)
    {
        final Histogram all = slices[0].copy();
        for (int i = 1; i < slices.length; i++)
        {
            all.add(slices[i]);
        }
        return Figures.Latency.of(all, divisor);
    }
}

package io.jdat.tools.perf;

/**
 * A bandwidth row beside a baseline runs in slices, jdat's and the baseline's in turn, and each
 * figure is the bytes of all its slices over their time. A row that moves a lot of data takes
 * seconds on each side, and the machine's state can change in between: on the 2-vCPU host these
 * figures come from, the line round trip between the two vCPUs switches between about 60 and
 * 300 ns for stretches of 5 to 40 seconds, and a loopback TCP stream moves 1.5 to 2.2 times
 * slower in the slow state. Measured one after the other, jdat's part and the baseline's drew
 * their states independently and the ratio swung by 3 times; in slices a few hundred
 * milliseconds long, both sides see the same states. A row that moves less than two slices'
 * worth runs whole, as before.
 */
final class Slices
{
    /** The least a slice moves. */
    static final long SLICE_BYTES = 128L << 20;
    /**
     * The most slices a row is cut into. Each slice warms up as the whole row does (a tenth of
     * its iterations by default, at least the stream's window): a jdat stream starts its clock
     * with the window full, and a slice that starts it while the first messages are still
     * queued pays for them.
     */
    static final int MAX_SLICES = 4;

    private Slices()
    {
    }

    /**
     * The measured iterations of each slice of a row of {@code iters} messages of {@code size}
     * bytes: as many slices as {@link #SLICE_BYTES} fits in the row, up to {@link #MAX_SLICES},
     * one if fewer than two; the first ones take the remainder.
     */
    static int[] of(final long size, final int iters)
    {
        final long fit = Math.max(1, size) * (long) iters / SLICE_BYTES;
        final int k = (int) Math.max(1, Math.min(Math.min(MAX_SLICES, fit), iters));
        final int[] parts = new int[k < 2 ? 1 : k];
        for (int i = 0; i < parts.length; i++)
        {
            parts[i] = iters / parts.length + (i < iters % parts.length ? 1 : 0);
        }
        return parts;
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
}

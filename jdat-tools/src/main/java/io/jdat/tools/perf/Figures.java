package io.jdat.tools.perf;

import org.HdrHistogram.Histogram;

/** The figures of one measurement. */
public final class Figures
{
    private Figures()
    {
    }

    /**
     * Latency percentiles in microseconds.
     *
     * @param p50  median
     * @param p99  99th percentile
     * @param p999 99.9th percentile
     * @param max  maximum
     */
    public record Latency(double p50, double p99, double p999, double max)
    {
        /** The percentiles of a histogram of nanoseconds, each divided by {@code divisor}. */
        public static Latency of(final Histogram nanos, final double divisor)
        {
            final double d = divisor * 1000.0;
            return new Latency(nanos.getValueAtPercentile(50) / d, nanos.getValueAtPercentile(99) / d,
                nanos.getValueAtPercentile(99.9) / d, nanos.getMaxValue() / d);
        }
    }

    /**
     * Throughput.
     *
     * @param mbPerS  megabytes (10^6 bytes) per second
     * @param msgPerS messages per second
     */
    public record Bandwidth(double mbPerS, double msgPerS)
    {
        /** {@code messages} of {@code size} bytes in {@code nanos}. */
        public static Bandwidth of(final long messages, final long size, final long nanos)
        {
            final double seconds = Math.max(1, nanos) / 1e9;
            return new Bandwidth(messages * (double) size / seconds / 1e6, messages / seconds);
        }

        /** Both directions of a bidirectional test. */
        public Bandwidth plus(final Bandwidth other)
        {
            return other == null ? this : new Bandwidth(mbPerS + other.mbPerS, msgPerS + other.msgPerS);
        }
    }
}

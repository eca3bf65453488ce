package io.jdat.tools.perf;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * perftest-like tables on the terminal: one per operation, a line per size with jdat's latency
 * percentiles and bandwidth, and with a baseline its median and bandwidth and the ratios.
 */
final class Table
{
    private final PrintWriter out;
    private final boolean baseline;
    private Op current;

    Table(final PrintWriter out, final boolean baseline)
    {
        this.out = out;
        this.baseline = baseline;
    }

    /** Prints a row, with the operation's header first when it is the first row of that operation. */
    void print(final Row row)
    {
        if (row.op() != current)
        {
            current = row.op();
            header(row.op());
        }
        final StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, " %8s %7d", Sizes.format(row.size()), row.iters()));
        if (row.lat() != null)
        {
            b.append(String.format(Locale.ROOT, " %8s %8s %8s %8s", num(row.lat().p50()), num(row.lat().p99()),
                num(row.lat().p999()), num(row.lat().max())));
        }
        else
        {
            b.append(String.format(Locale.ROOT, " %8s %8s %8s %8s", "-", "-", "-", "-"));
        }
        if (row.bw() != null)
        {
            b.append(String.format(Locale.ROOT, " %10s %8s", num(row.bw().mbPerS()), num(row.bw().msgPerS() / 1e6)));
        }
        else
        {
            b.append(String.format(Locale.ROOT, " %10s %8s", "-", "-"));
        }
        if (baseline)
        {
            b.append(String.format(Locale.ROOT, " | %8s %10s | %6s %6s",
                row.baseLat() == null ? "-" : num(row.baseLat().p50()),
                row.baseBw() == null ? "-" : num(row.baseBw().mbPerS()), ratio(row.latencyRatio()),
                ratio(row.bandwidthRatio())));
        }
        out.println(b);
        out.flush();
    }

    private void header(final Op op)
    {
        out.println();
        out.println(" " + op + ": latency in us (" + (op.halfRoundTrip() ? "half a round trip, as perftest"
            : "post to completion") + "), bandwidth in MB/s (10^6 bytes) and millions of messages/s");
        final StringBuilder b = new StringBuilder(String.format(Locale.ROOT, " %8s %7s %8s %8s %8s %8s %10s %8s",
            "#bytes", "#iters", "p50", "p99", "p99.9", "max", "BW MB/s", "Mmsg/s"));
        if (baseline)
        {
            b.append(String.format(Locale.ROOT, " | %8s %10s | %6s %6s", "base p50", "base MB/s", "lat x", "bw x"));
        }
        out.println(b);
    }

    private static String num(final double v)
    {
        if (v >= 1000)
        {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10)
        {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String ratio(final Double r)
    {
        return r == null ? "-" : String.format(Locale.ROOT, "%.2f", r);
    }
}

package io.jdat.tools.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code --json FILE}: an array with one object per row. Figures jdat did not measure are
 * {@code null}. With a baseline: {@code baseline} (its name), {@code baseline_figures} (the same
 * keys) and {@code ratio}: for each figure, jdat's value divided by the baseline's (for latency
 * lower is better, for bandwidth higher).
 */
final class Json
{
    private Json()
    {
    }

    static void write(final Path file, final List<Row> rows) throws IOException
    {
        final StringBuilder b = new StringBuilder("[\n");
        for (int i = 0; i < rows.size(); i++)
        {
            b.append("  ").append(object(rows.get(i))).append(i < rows.size() - 1 ? ",\n" : "\n");
        }
        b.append("]\n");
        Files.writeString(file, b, StandardCharsets.UTF_8);
    }

    static String object(final Row r)
    {
        final StringBuilder b = new StringBuilder("{");
        b.append("\"provider\": ").append(string(r.provider()));
        b.append(", \"op\": ").append(string(r.op().name()));
        b.append(", \"size\": ").append(r.size());
        b.append(", \"iters\": ").append(r.iters());
        figures(b, r.lat(), r.bw());
        if (r.baseline() != null)
        {
            b.append(", \"baseline\": ").append(string(r.baseline()));
            b.append(", \"baseline_figures\": {");
            final StringBuilder f = new StringBuilder();
            figures(f, r.baseLat(), r.baseBw());
            b.append(f.substring(2)).append('}');
            b.append(", \"ratio\": {");
            b.append("\"p50_us\": ").append(ratio(r.lat() == null ? null : r.lat().p50(),
                r.baseLat() == null ? null : r.baseLat().p50()));
            b.append(", \"p99_us\": ").append(ratio(r.lat() == null ? null : r.lat().p99(),
                r.baseLat() == null ? null : r.baseLat().p99()));
            b.append(", \"p999_us\": ").append(ratio(r.lat() == null ? null : r.lat().p999(),
                r.baseLat() == null ? null : r.baseLat().p999()));
            b.append(", \"max_us\": ").append(ratio(r.lat() == null ? null : r.lat().max(),
                r.baseLat() == null ? null : r.baseLat().max()));
            b.append(", \"mb_per_s\": ").append(ratio(r.bw() == null ? null : r.bw().mbPerS(),
                r.baseBw() == null ? null : r.baseBw().mbPerS()));
            b.append(", \"msg_per_s\": ").append(ratio(r.bw() == null ? null : r.bw().msgPerS(),
                r.baseBw() == null ? null : r.baseBw().msgPerS()));
            b.append('}');
        }
        return b.append('}').toString();
    }

    private static void figures(final StringBuilder b, final Figures.Latency lat, final Figures.Bandwidth bw)
    {
        b.append(", \"p50_us\": ").append(number(lat == null ? null : lat.p50()));
        b.append(", \"p99_us\": ").append(number(lat == null ? null : lat.p99()));
        b.append(", \"p999_us\": ").append(number(lat == null ? null : lat.p999()));
        b.append(", \"max_us\": ").append(number(lat == null ? null : lat.max()));
        b.append(", \"mb_per_s\": ").append(number(bw == null ? null : bw.mbPerS()));
        b.append(", \"msg_per_s\": ").append(number(bw == null ? null : bw.msgPerS()));
    }

    private static String ratio(final Double ours, final Double theirs)
    {
        return ours == null || theirs == null ? "null" : number(Row.ratio(ours, theirs));
    }

    private static String number(final Double v)
    {
        if (v == null || v.isNaN() || v.isInfinite())
        {
            return "null";
        }
        return String.format(Locale.ROOT, "%.6g", v);
    }

    private static String string(final String s)
    {
        final StringBuilder b = new StringBuilder("\"");
        for (final char c : s.toCharArray())
        {
            switch (c)
            {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default ->
                {
                    if (c < 0x20)
                    {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    }
                    else
                    {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}

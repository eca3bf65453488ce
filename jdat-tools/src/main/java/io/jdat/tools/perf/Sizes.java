package io.jdat.tools.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Message sizes: {@code 8,64,1K,64K,1M} (K, M, G are powers of 1024). */
public final class Sizes
{
    private Sizes()
    {
    }

    /** perftest's sweep: every power of two from 2 bytes to 8 MiB. */
    public static List<Long> defaults()
    {
        final List<Long> sizes = new ArrayList<>();
        for (long s = 2; s <= 8L << 20; s <<= 1)
        {
            sizes.add(s);
        }
        return sizes;
    }

    /** Parses one size: digits with an optional K, M or G (KiB, MiB, GiB) suffix. */
    public static long parse(final String text)
    {
        final String t = text.strip().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        if (t.isEmpty())
        {
            throw new IllegalArgumentException("empty size");
        }
        final char last = t.charAt(t.length() - 1);
        final int shift = switch (last)
        {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> 0;
        };
        final String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        try
        {
            final long v = Long.parseLong(digits);
            if (v < 0 || v > (Long.MAX_VALUE >> shift))
            {
                throw new IllegalArgumentException("size out of range: '" + text + "'");
            }
            return v << shift;
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("not a size: '" + text + "' (use digits with K, M or G)");
        }
    }

    /** Parses a comma-separated list of sizes. */
    public static List<Long> parseList(final String text)
    {
        final List<Long> sizes = new ArrayList<>();
        for (final String part : text.split(","))
        {
            sizes.add(parse(part));
        }
        return sizes;
    }

    /** A size the way perftest's tables print it: bytes below 1 KiB, else K or M. */
    public static String format(final long size)
    {
        if (size >= 1L << 20 && size % (1L << 20) == 0)
        {
            return (size >> 20) + "M";
        }
        if (size >= 1L << 10 && size % (1L << 10) == 0)
        {
            return (size >> 10) + "K";
        }
        return Long.toString(size);
    }
}

package io.jdat.tools.dapltest;

import io.jdat.EpAttr;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One operation of a transaction test, as dapltest writes it: who initiates ({@code client} or
 * {@code server}), what ({@code SR} Send/Recv, {@code RR} RDMA Read, {@code RW} RDMA Write), the
 * segment size and the number of segments (default 4096 and 1).
 *
 * @param byClient  true when the client initiates
 * @param type      SR, RR or RW
 * @param segSize   bytes per segment
 * @param segs      segments per operation
 * @param checksPeerWrites a validation barrier: its receiver checks the RDMA Write targets its
 *                  sender wrote in this iteration, then clears them
 */
public record TestOp(boolean byClient, Type type, long segSize, int segs, boolean checksPeerWrites)
{
    /** dapltest's operation types. */
    public enum Type
    {
        /** Send/Recv. */
        SR,
        /** RDMA Read. */
        RR,
        /** RDMA Write. */
        RW
    }

    /** Bytes moved by one operation. */
    public long length()
    {
        return segSize * segs;
    }

    /** Whether this side ({@code client} true or false) initiates the operation. */
    public boolean initiatedBy(final boolean client)
    {
        return byClient == client;
    }

    /** The op list as one token, for the request message: {@code client.SR.4096.1,server.RW.64.2}. */
    public static String encode(final List<TestOp> ops)
    {
        final StringBuilder b = new StringBuilder();
        for (final TestOp o : ops)
        {
            if (!b.isEmpty())
            {
                b.append(',');
            }
            b.append(o.byClient ? "client" : "server").append('.').append(o.type).append('.').append(o.segSize)
                .append('.').append(o.segs).append(o.checksPeerWrites ? ".check" : "");
        }
        return b.toString();
    }

    /** The inverse of {@link #encode}. */
    public static List<TestOp> decode(final String text)
    {
        final List<TestOp> ops = new ArrayList<>();
        for (final String item : text.split(","))
        {
            final String[] f = item.split("\\.");
            ops.add(new TestOp(f[0].equals("client"), Type.valueOf(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]),
                f.length > 4));
        }
        return ops;
    }

    /**
     * Parses dapltest's op list: {@code client|server SR|RR|RW [seg_size [num_segs]]}, repeated.
     * Throws IllegalArgumentException with a one-line reason.
     */
    public static List<TestOp> parse(final List<String> words)
    {
        final List<TestOp> ops = new ArrayList<>();
        int i = 0;
        while (i < words.size())
        {
            final String who = words.get(i).toLowerCase(Locale.ROOT);
            if (!who.equals("client") && !who.equals("server"))
            {
                throw new IllegalArgumentException("op list: expected 'client' or 'server', got '" + words.get(i)
                    + "'");
            }
            if (i + 1 >= words.size())
            {
                throw new IllegalArgumentException("op list: '" + who + "' needs SR, RR or RW after it");
            }
            final Type type;
            try
            {
                type = Type.valueOf(words.get(i + 1).toUpperCase(Locale.ROOT));
            }
            catch (final IllegalArgumentException e)
            {
                throw new IllegalArgumentException("op list: '" + words.get(i + 1) + "' is not SR, RR or RW");
            }
            i += 2;
            long size = 4096;
            int segs = 1;
            if (i < words.size() && isNumber(words.get(i)))
            {
                size = Long.parseLong(words.get(i++));
                if (i < words.size() && isNumber(words.get(i)))
                {
                    segs = Integer.parseInt(words.get(i++));
                }
            }
            if (segs < 1 || segs > 64 || size > 1L << 30)
            {
                throw new IllegalArgumentException("op list: " + type + " needs 1 to 64 segments of at most 1 GiB");
            }
            ops.add(new TestOp(who.equals("client"), type, size, segs, false));
        }
        return ops;
    }

    private static boolean isNumber(final String s)
    {
        return !s.isEmpty() && s.length() < 10 && s.chars().allMatch(Character::isDigit);
    }

    @Override
    public String toString()
    {
        return (byClient ? "client " : "server ") + type + " " + segSize + "x" + segs;
    }

    /**
     * The attributes of an endpoint that runs {@code ops}: a DTO of each op, and {@code extraDtos}
     * more, in flight on each queue, and as many segments as the op with the most.
     */
    static EpAttr endpointAttr(final List<TestOp> ops, final int extraDtos)
    {
        final EpAttr attr = new EpAttr();
        final int segs = ops.stream().mapToInt(TestOp::segs).max().orElse(1);
        attr.maxRecvDtos = ops.size() + extraDtos;
        attr.maxRequestDtos = ops.size() + extraDtos;
        attr.maxRecvIov = Math.max(attr.maxRecvIov, segs);
        attr.maxRequestIov = Math.max(attr.maxRequestIov, segs);
        attr.maxRdmaReadIov = Math.max(attr.maxRdmaReadIov, segs);
        attr.maxRdmaWriteIov = Math.max(attr.maxRdmaWriteIov, segs);
        return attr;
    }
}

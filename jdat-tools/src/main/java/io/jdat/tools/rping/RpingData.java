package io.jdat.tools.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The text rdma-core's rping client puts in its buffer for each ping: {@code "rdma-ping-N: "},
 * then the letters from {@code 'A' + start} on, cycling through ASCII 65 to 122, and a NUL in the
 * last byte. {@code start} advances by one per ping.
 */
final class RpingData
{
    static final String PREFIX = "rdma-ping-%d: ";
    /**
     * The smallest buffer rping accepts ({@code RPING_MIN_BUFSIZE}): room for the largest ping
     * number, as {@code sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)}, 11 + 15.
     */
    static final int MIN_SIZE = 26;
    private static final int FIRST = 65;
    private static final int LAST = 122;

    private RpingData()
    {
    }

    /** The first letter of the ping after one that started with {@code start}. */
    static int next(final int start)
    {
        return start >= LAST ? FIRST : start + 1;
    }

    static int first()
    {
        return FIRST;
    }

    /** Fills {@code size} bytes of {@code m} as the client does for ping {@code ping}. */
    static void fill(final MemorySegment m, final int size, final int ping, final int start)
    {
        final byte[] prefix = String.format(PREFIX, ping).getBytes(StandardCharsets.US_ASCII);
        final int cc = Math.min(prefix.length, size);
        MemorySegment.copy(prefix, 0, m, ValueLayout.JAVA_BYTE, 0, cc);
        int c = start;
        for (int i = cc; i < size; i++)
        {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            c = c >= LAST ? FIRST : c + 1;
        }
        m.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /** The text up to the first NUL (at most {@code size} bytes), as rping prints it. */
    static String text(final MemorySegment m, final int size)
    {
        int n = 0;
        while (n < size && m.get(ValueLayout.JAVA_BYTE, n) != 0)
        {
            n++;
        }
        final byte[] b = new byte[n];
        MemorySegment.copy(m, ValueLayout.JAVA_BYTE, 0, b, 0, n);
        return new String(b, StandardCharsets.US_ASCII);
    }

    /** strlen + 1, at most {@code size}: what the server writes back. */
    static int length(final MemorySegment m, final int size)
    {
        for (int i = 0; i < size; i++)
        {
            if (m.get(ValueLayout.JAVA_BYTE, i) == 0)
            {
                return i + 1;
            }
        }
        return size;
    }
}

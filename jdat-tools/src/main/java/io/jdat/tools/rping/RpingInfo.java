package io.jdat.tools.rping;

import io.jdat.Lmr;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What one side of rping tells the other about a buffer, rdma-core's {@code struct
 * rping_rdma_info}, 16 bytes in network byte order:
 * <pre>
 *   0  buf   (64)  the buffer's address (its tagged offset)
 *   8  rkey  (32)  its rmr_context (the STag)
 *  12  size  (32)  its length
 * </pre>
 *
 * @param buf  address of the buffer
 * @param rkey its rmr_context
 * @param size its length in bytes
 */
record RpingInfo(long buf, int rkey, int size)
{
    static final int LENGTH = 16;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The info of {@code size} bytes at the start of {@code lmr}. */
    static RpingInfo of(final Lmr lmr, final int size)
    {
        return new RpingInfo(lmr.registeredAddress(), lmr.rmrContext(), size);
    }

    void write(final MemorySegment m)
    {
        m.set(BE_LONG, 0, buf);
        m.set(BE_INT, 8, rkey);
        m.set(BE_INT, 12, size);
    }

    static RpingInfo read(final MemorySegment m)
    {
        return new RpingInfo(m.get(BE_LONG, 0), m.get(BE_INT, 8), m.get(BE_INT, 12));
    }
}

package io.jdat.tools.dtest;

import io.jdat.tools.kit.CheckFailed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * What OFED dtest puts on the wire besides RDMA data: the connection's private data and the RMR
 * triplet messages. dtest's client connects with 48 bytes {@code 1, 2, …, 48}; its server
 * rejects anything else and accepts with each byte plus one ({@code 2, …, 49}), which the client
 * checks. Each side then Sends its RMR triplet as 16 big-endian bytes (virtual address 8,
 * segment length 4, RMR context 4) into receives of exactly 16 bytes, and Sends it again after
 * the RDMA Write and the RDMA Read phases.
 */
final class DtestWire
{
    /** dtest's {@code CONN_PORT}: the TCP port of the out-of-band step. */
    static final int OOB_PORT = 15828;
    /** dtest's {@code SERVER_CONN_QUAL}. */
    static final long CONN_QUAL = 45248;
    /** Bytes of private data dtest sends and expects back. */
    static final int PRIVATE_DATA_SIZE = 48;
    /** Bytes of an RMR triplet message. */
    static final int TRIPLET_SIZE = 16;
    /** dtest's {@code MAX_RDMA_RD}: sequential RDMA Reads in the read phase, and its IRD/ORD. */
    static final int READS = 4;
    /** dtest's {@code msg_burst}: Send/Recv ping-pong round trips, whatever {@code -B} says. */
    static final int PING_PONGS = 100;
    /** The first byte of a ping (client) and of a pong (server). */
    static final byte PING = 0x55;
    static final byte PONG = (byte) 0xaa;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private DtestWire()
    {
    }

    /** The client's private data: {@code 1..48}. */
    static byte[] requestData()
    {
        final byte[] pd = new byte[PRIVATE_DATA_SIZE];
        for (int i = 0; i < pd.length; i++)
        {
            pd[i] = (byte) (i + 1);
        }
        return pd;
    }

    /**
     * Checks a connection request's private data as dtest's server does and returns the reply
     * ({@code 2..49}); throws {@link CheckFailed} naming the first wrong byte.
     */
    static byte[] replyTo(final byte[] pd)
    {
        check(pd, 1, "connection request");
        final byte[] reply = new byte[PRIVATE_DATA_SIZE];
        for (int i = 0; i < reply.length; i++)
        {
            reply[i] = (byte) (pd[i] + 1);
        }
        return reply;
    }

    /** Checks the private data of the server's accept: {@code 2..49}. */
    static void checkReply(final byte[] pd)
    {
        check(pd, 2, "accept");
    }

    private static void check(final byte[] pd, final int first, final String what)
    {
        final int n = pd == null ? 0 : pd.length;
        if (n < PRIVATE_DATA_SIZE)
        {
            throw new CheckFailed("the peer's " + what + " carries " + n + " bytes of private data, dtest's carries "
                + PRIVATE_DATA_SIZE + " (" + first + ".." + (first + PRIVATE_DATA_SIZE - 1) + ")");
        }
        for (int i = 0; i < PRIVATE_DATA_SIZE; i++)
        {
            if ((pd[i] & 0xff) != i + first)
            {
                throw new CheckFailed("the peer's " + what + " private data byte " + i + " is " + (pd[i] & 0xff)
                    + ", dtest's is " + (i + first) + " (bytes " + first + ".." + (first + PRIVATE_DATA_SIZE - 1)
                    + ")");
            }
        }
    }

    /** Writes a triplet at {@code at[0..16)}, big-endian. */
    static void putTriplet(final MemorySegment at, final long address, final int length, final int rmrContext)
    {
        at.set(U64, 0, address);
        at.set(U32, 8, length);
        at.set(U32, 12, rmrContext);
    }

    /**
     * Reads the triplet of a received message of {@code received} bytes; anything but 16 bytes
     * fails with a {@link CheckFailed}.
     */
    static Triplet triplet(final MemorySegment at, final long received, final String what)
    {
        if (received != TRIPLET_SIZE)
        {
            throw new CheckFailed(what + ": the peer sent " + received + " bytes, dtest's RMR triplet is "
                + TRIPLET_SIZE);
        }
        return new Triplet(at.get(U64, 0), at.get(U32, 8), at.get(U32, 12));
    }

    /** A peer's RMR triplet as dtest sends it. */
    record Triplet(long address, int length, int rmrContext)
    {
        @Override
        public String toString()
        {
            return String.format("rmr_context 0x%x, va 0x%x, length %d", rmrContext, address,
                Integer.toUnsignedLong(length));
        }
    }

    /**
     * What a buffer of {@code length} bytes holds after dtest's {@code memset(buf, fill, …)}
     * then {@code strcpy(buf, text)}: the text, a NUL, the fill, cut at {@code length}.
     */
    static byte[] content(final String text, final char fill, final int length)
    {
        final byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) fill);
        final byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, b, 0, Math.min(t.length, length));
        if (t.length < length)
        {
            b[t.length] = 0;
        }
        return b;
    }
}

package io.jdat.tcp;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Encoding and decoding allocate nothing per message or per FPDU once the codecs have seen their
 * buffers: the JVM's count of bytes this thread allocated stays flat across many thousands of
 * FPDUs. (A measurement of allocation, not of speed.)
 */
class SteadyStateAllocationTest
{
    private static final int ROUNDS = 5_000;
    private static volatile byte[] sink;

    @Test
    void encodeAndDecodeAllocateNothingInSteadyState()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // the counter works: a 64 KiB array shows up in it
        final long control = threads.getCurrentThreadAllocatedBytes();
        sink = new byte[1 << 16];
        assertTrue(threads.getCurrentThreadAllocatedBytes() - control >= sink.length, "allocation counter");

        final Random random = new Random(11);
        final byte[] big = new byte[4000];
        random.nextBytes(big);
        final TestMessage[] messages = {
            TestMessage.send(1, big).scatter(random),
            TestMessage.sendWithSe(2, new byte[0]),
            TestMessage.write(0x1234, 0x10000L, big).scatter(random),
            TestMessage.readRequest(1, 7, 8L, 4000, 9, 10L),
            TestMessage.readResponse(0x55, 0x20L, new byte[] {1, 2, 3})};
        for (final boolean crc : new boolean[] {false, true})
        {
            final FpduEncoder encoder = new FpduEncoder(crc, 1448);
            final FpduDecoder decoder = new FpduDecoder(crc);
            final ByteBuffer wire = ByteBuffer.allocateDirect(1 << 16);
            final RecordingHandler handler = new RecordingHandler();
            handler.copy = false;

            runRounds(ROUNDS, messages, encoder, decoder, wire, handler);
            final long callsBefore = handler.calls;
            final long before = threads.getCurrentThreadAllocatedBytes();
            runRounds(ROUNDS, messages, encoder, decoder, wire, handler);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            final long fpdus = handler.calls - callsBefore;

            assertEquals(ROUNDS * 9L, fpdus, "3 + 1 + 3 + 1 + 1 FPDUs per round");
            assertTrue(allocated < 1024, allocated + " bytes allocated for " + fpdus + " FPDUs, crc=" + crc);
        }
    }

    /**
     * A gathering write of large messages referenced in place ({@link FpduWrite}), 64 KiB and 1 MiB
     * from native memory in one piece and in several (7 memories, fewer than the views it keeps),
     * allocates nothing per write once it has seen its payload memory: the views are reused and
     * nothing is iterated through an allocated iterator.
     * The channel is a sink that takes everything and allocates nothing itself (a socket's gathering
     * write allocates in the JDK for memory segments, outside jdat's reach).
     */
    @Test
    void gatheredWritesAllocateNothingInSteadyState() throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final Random random = new Random(18);
        final byte[] k64 = new byte[64 << 10];
        final byte[] m1 = new byte[1 << 20];
        random.nextBytes(k64);
        random.nextBytes(m1);
        final TestMessage[] messages = {
            TestMessage.send(1, k64).nativePieces(1),
            TestMessage.write(0x1234, 0x10000L, m1).nativePieces(1),
            TestMessage.send(2, m1).nativePieces(3),
            TestMessage.write(0x55, 0L, k64).nativePieces(2)};
        for (final boolean crc : new boolean[] {false, true})
        {
            final FpduEncoder encoder = new FpduEncoder(crc, 65536);
            final FpduWrite write = new FpduWrite(65536, 128 << 10);
            final Sink sink = new Sink();
            writeRounds(200, messages, encoder, write, sink);
            final long bytesBefore = sink.bytes;
            final long before = threads.getCurrentThreadAllocatedBytes();
            writeRounds(200, messages, encoder, write, sink);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(sink.bytes - bytesBefore > 200L * (2 << 20), "everything was written");
            assertTrue(allocated < 1024, allocated + " bytes allocated for " + sink.calls + " writes, crc=" + crc);
        }
    }

    private static void writeRounds(final int rounds, final TestMessage[] messages, final FpduEncoder encoder,
        final FpduWrite write, final Sink sink) throws java.io.IOException
    {
        for (int round = 0; round < rounds; round++)
        {
            for (final TestMessage message : messages)
            {
                encoder.begin(message);
                while (!encoder.encode(write))
                {
                    write.writeTo(sink);
                }
            }
            write.writeTo(sink);
            if (!write.isEmpty())
            {
                throw new AssertionError("the sink took less than all");
            }
        }
    }

    /** Takes every byte offered, allocating nothing. */
    private static final class Sink implements GatheringByteChannel
    {
        long bytes;
        long calls;

        @Override
        public long write(final ByteBuffer[] srcs, final int offset, final int length)
        {
            long n = 0;
            for (int i = offset; i < offset + length; i++)
            {
                n += write(srcs[i]);
            }
            calls--;
            return n;
        }

        @Override
        public long write(final ByteBuffer[] srcs)
        {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(final ByteBuffer src)
        {
            final int n = src.remaining();
            src.position(src.limit());
            bytes += n;
            calls++;
            return n;
        }

        @Override
        public boolean isOpen()
        {
            return true;
        }

        @Override
        public void close()
        {
        }
    }

    private static void runRounds(final int rounds, final TestMessage[] messages, final FpduEncoder encoder,
        final FpduDecoder decoder, final ByteBuffer wire, final RecordingHandler handler)
    {
        for (int round = 0; round < rounds; round++)
        {
            for (final TestMessage message : messages)
            {
                encoder.begin(message);
                if (!encoder.encode(wire))
                {
                    throw new AssertionError("wire buffer too small");
                }
            }
            wire.flip();
            if (decoder.decode(wire, handler) != FpduDecoder.Status.NEED_MORE || wire.hasRemaining())
            {
                throw new AssertionError("decoder stopped: " + decoder.status());
            }
            wire.clear();
        }
    }
}

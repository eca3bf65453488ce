package io.jdat.tcp;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gathering write ({@link FpduWrite}) puts exactly the bytes on the wire that encoding into one
 * buffer does, CRC included, whether the payload is referenced in place (native memory, at least
 * {@link FpduWrite#GATHER_MIN} bytes) or copied, and however little the socket takes per call.
 */
class FpduWriteTest
{
    private static final int[] SIZES = {0, 1, 64, 4095, 4096, 4097, 65536, 70001, 300_000};
    private static final int[] OPCODES = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE, RdmapOpcode.RDMA_WRITE,
        RdmapOpcode.RDMA_READ_RESPONSE};

    @ParameterizedTest
    @CsvSource({"1448, false", "1448, true", "65536, false", "65536, true", "200, true"})
    void gatheredFpdusAreTheBytesOfTheCopiedOnes(final int maxFpdu, final boolean crc) throws Exception
    {
        final Random random = new Random(maxFpdu + (crc ? 7 : 0));
        final List<TestMessage> messages = new ArrayList<>();
        int msn = 1;
        for (final int opcode : OPCODES)
        {
            for (final int size : SIZES)
            {
                final byte[] payload = new byte[size];
                random.nextBytes(payload);
                final TestMessage m = TestMessage.random(opcode, msn++, payload, random);
                // in place from one or several native pieces, or copied from mixed ones
                messages.add(switch (random.nextInt(3))
                {
                    case 0 -> m.scatterNative(random);
                    case 1 -> m.scatter(random);
                    default -> m;
                });
            }
            messages.add(TestMessage.random(RdmapOpcode.RDMA_READ_REQUEST, msn++, new byte[0], random));
        }
        final byte[] expected = Streams.encode(new FpduEncoder(crc, maxFpdu), messages, maxFpdu);

        final FpduEncoder encoder = new FpduEncoder(crc, maxFpdu);
        final FpduWrite write = new FpduWrite(Math.max(maxFpdu, 4096), 128 << 10);
        final Sink sink = new Sink(random);
        for (int round = 0; round < 3; round++)
        {
            sink.out.reset();
            for (final TestMessage m : messages)
            {
                encoder.begin(m);
                while (!encoder.encode(write))
                {
                    drain(write, sink);
                }
            }
            drain(write, sink);
            assertArrayEquals(expected, sink.out.toByteArray(), "round " + round);
        }
        assertTrue(sink.calls > messages.size(), "the sink took little at a time");
    }

    @ParameterizedTest
    @CsvSource({"false", "true"})
    void aTerminateFollowsTheGatheredBytes(final boolean crc) throws Exception
    {
        final Random random = new Random(3);
        final byte[] payload = new byte[100_000];
        random.nextBytes(payload);
        final TestMessage m = TestMessage.write(5, 77, payload).scatterNative(random);
        final TerminateInfo info = TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR);

        final FpduEncoder reference = new FpduEncoder(crc);
        final ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
        reference.begin(m);
        assertTrue(reference.encode(buffer));
        assertTrue(reference.encodeTerminate(buffer, info));

        final FpduEncoder encoder = new FpduEncoder(crc);
        final FpduWrite write = new FpduWrite(1 << 17, 1 << 20);
        encoder.begin(m);
        assertTrue(encoder.encode(write));
        assertTrue(encoder.encodeTerminate(write, info));
        assertEquals(buffer.position(), write.remaining());
        final Sink sink = new Sink(random);
        drain(write, sink);
        assertArrayEquals(Arrays.copyOf(buffer.array(), buffer.position()), sink.out.toByteArray());
    }

    private static void drain(final FpduWrite write, final Sink sink) throws Exception
    {
        while (!write.isEmpty())
        {
            final long before = write.remaining();
            final long n = write.writeTo(sink);
            assertEquals(before - n, write.remaining());
        }
    }

    /** A socket that takes a random few bytes per call, sometimes none. */
    private static final class Sink implements GatheringByteChannel
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Random random;
        int calls;

        Sink(final Random random)
        {
            this.random = random;
        }

        @Override
        public long write(final ByteBuffer[] srcs, final int offset, final int length)
        {
            calls++;
            long budget = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(200_000);
            long n = 0;
            for (int i = offset; i < offset + length && budget > 0; i++)
            {
                final ByteBuffer b = srcs[i];
                while (b.hasRemaining() && budget > 0)
                {
                    out.write(b.get());
                    budget--;
                    n++;
                }
            }
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
            return (int) write(new ByteBuffer[] {src}, 0, 1);
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
}

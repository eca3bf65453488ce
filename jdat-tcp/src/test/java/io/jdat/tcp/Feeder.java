package io.jdat.tcp;

import java.nio.ByteBuffer;
import java.util.function.IntSupplier;

/** Plays a socket reader: feeds a byte stream to a decoder in chunks through one receive buffer. */
final class Feeder
{
    /** Where feeding ended. */
    record Outcome(FpduDecoder.Status status, int consumed, int leftInBuffer)
    {
    }

    private Feeder()
    {
    }

    /** A receive buffer as the channel would use: room for the largest FPDU and a little more. */
    static ByteBuffer receiveBuffer(final boolean direct)
    {
        final int capacity = Fpdu.MAX_FPDU_LENGTH + 64;
        return direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
    }

    /**
     * Feeds {@code stream} in chunks of {@code chunks.getAsInt()} bytes (at least 1), calling the
     * decoder after each, until the decoder stops or the stream ends.
     */
    static Outcome feed(final FpduDecoder decoder, final RecordingHandler handler, final byte[] stream,
        final IntSupplier chunks, final ByteBuffer buffer)
    {
        buffer.clear();
        int fed = 0;
        FpduDecoder.Status status = FpduDecoder.Status.NEED_MORE;
        while (fed < stream.length)
        {
            final int n = Math.min(Math.max(1, chunks.getAsInt()), Math.min(buffer.remaining(), stream.length - fed));
            if (n == 0)
            {
                throw new AssertionError("receive buffer full while the decoder needs " + decoder.bytesNeeded());
            }
            buffer.put(stream, fed, n);
            fed += n;
            buffer.flip();
            handler.window(buffer.position(), buffer.limit());
            status = decoder.decode(buffer, handler);
            buffer.compact();
            if (status != FpduDecoder.Status.NEED_MORE)
            {
                break;
            }
        }
        return new Outcome(status, fed - buffer.position(), buffer.position());
    }

    /** Feeds the whole stream at once. */
    static Outcome feed(final FpduDecoder decoder, final RecordingHandler handler, final byte[] stream)
    {
        return feed(decoder, handler, stream, () -> Integer.MAX_VALUE, receiveBuffer(true));
    }
}

package io.jdat.tcp;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

/** Byte-stream helpers for the codec tests, written independently of the code under test. */
final class Streams
{
    private Streams()
    {
    }

    static byte[] hex(final String hex)
    {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    static String hex(final byte[] bytes)
    {
        return HexFormat.of().formatHex(bytes);
    }

    static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] part : parts)
        {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** Encodes messages through a send buffer of {@code sendBufferCapacity} bytes, draining it whenever it fills. */
    static byte[] encode(final FpduEncoder encoder, final List<TestMessage> messages, final int sendBufferCapacity)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(sendBufferCapacity);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final TestMessage message : messages)
        {
            encoder.begin(message);
            while (!encoder.encode(buffer))
            {
                drain(buffer, out);
            }
        }
        drain(buffer, out);
        return out.toByteArray();
    }

    static byte[] encode(final FpduEncoder encoder, final List<TestMessage> messages)
    {
        return encode(encoder, messages, Math.max(encoder.maxFpduLength(), 1 << 20));
    }

    private static void drain(final ByteBuffer buffer, final ByteArrayOutputStream out)
    {
        buffer.flip();
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        out.writeBytes(bytes);
        buffer.clear();
    }

    /** Frames an arbitrary ULPDU: length (BE), ULPDU, zero pad to 4, CRC32c little-endian or zero. */
    static byte[] frame(final byte[] ulpdu, final boolean crc)
    {
        final int pad = (4 - (2 + ulpdu.length) % 4) % 4;
        final ByteBuffer fpdu = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
        fpdu.putShort((short) ulpdu.length).put(ulpdu).put(new byte[pad]);
        int value = 0;
        if (crc)
        {
            final CRC32C crc32c = new CRC32C();
            crc32c.update(fpdu.array(), 0, fpdu.position());
            value = (int) crc32c.getValue();
        }
        fpdu.order(ByteOrder.LITTLE_ENDIAN).putInt(value);
        return fpdu.array();
    }

    /** The ULPDU (DDP segment) inside a single FPDU. */
    static byte[] ulpdu(final byte[] fpdu)
    {
        final int length = ((fpdu[0] & 0xFF) << 8) | (fpdu[1] & 0xFF);
        final byte[] ulpdu = new byte[length];
        System.arraycopy(fpdu, 2, ulpdu, 0, length);
        return ulpdu;
    }
}

package io.jdat.tcp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute big-endian (network order) and little-endian reads and writes on a {@link ByteBuffer},
 * whatever byte order the caller left the buffer in. Never moves the buffer's position.
 */
final class Wire
{
    private Wire()
    {
    }

    static int getUnsignedByte(final ByteBuffer buffer, final int index)
    {
        return buffer.get(index) & 0xFF;
    }

    static int getUnsignedShort(final ByteBuffer buffer, final int index)
    {
        return ((buffer.get(index) & 0xFF) << 8) | (buffer.get(index + 1) & 0xFF);
    }

    static void putShort(final ByteBuffer buffer, final int index, final int value)
    {
        buffer.put(index, (byte) (value >>> 8));
        buffer.put(index + 1, (byte) value);
    }

    static int getInt(final ByteBuffer buffer, final int index)
    {
        final int value = buffer.getInt(index);
        return buffer.order() == ByteOrder.BIG_ENDIAN ? value : Integer.reverseBytes(value);
    }

    static void putInt(final ByteBuffer buffer, final int index, final int value)
    {
        buffer.putInt(index, buffer.order() == ByteOrder.BIG_ENDIAN ? value : Integer.reverseBytes(value));
    }

    static long getLong(final ByteBuffer buffer, final int index)
    {
        final long value = buffer.getLong(index);
        return buffer.order() == ByteOrder.BIG_ENDIAN ? value : Long.reverseBytes(value);
    }

    static void putLong(final ByteBuffer buffer, final int index, final long value)
    {
        buffer.putLong(index, buffer.order() == ByteOrder.BIG_ENDIAN ? value : Long.reverseBytes(value));
    }

    static int getIntLittleEndian(final ByteBuffer buffer, final int index)
    {
        final int value = buffer.getInt(index);
        return buffer.order() == ByteOrder.LITTLE_ENDIAN ? value : Integer.reverseBytes(value);
    }

    static void putIntLittleEndian(final ByteBuffer buffer, final int index, final int value)
    {
        buffer.putInt(index, buffer.order() == ByteOrder.LITTLE_ENDIAN ? value : Integer.reverseBytes(value));
    }

    static void putZeros(final ByteBuffer buffer, final int index, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            buffer.put(index + i, (byte) 0);
        }
    }
}

package io.jdat.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import static io.jdat.tcp.Streams.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FpduTest
{
    @ParameterizedTest
    @CsvSource({
        // ULPDU length, pad, FPDU length
        "0, 2, 8",
        "1, 1, 8",
        "2, 0, 8",
        "3, 3, 12",
        "14, 0, 20",
        "18, 0, 24",
        "19, 3, 28",
        "46, 0, 52",
        "78, 0, 84",
        "65530, 0, 65536",
        "65535, 3, 65544"})
    void padMakesLengthFieldPlusUlpduPlusPadAMultipleOfFour(final int ulpdu, final int pad, final int fpdu)
    {
        assertEquals(pad, Fpdu.padLength(ulpdu));
        assertEquals(fpdu, Fpdu.fpduLength(ulpdu));
        assertEquals(0, (2 + ulpdu + Fpdu.padLength(ulpdu)) % 4);
    }

    @Test
    void largestFpduIsTheLargestUlpduFramed()
    {
        assertEquals(Fpdu.fpduLength(Fpdu.MAX_ULPDU_LENGTH), Fpdu.MAX_FPDU_LENGTH);
        assertEquals(Fpdu.fpduLength(DdpRdmap.TERMINATE_MAX_LENGTH), Fpdu.MIN_MAX_FPDU_LENGTH);
    }

    @ParameterizedTest
    @CsvSource({"65536, 65530", "1448, 1442", "1500, 1494", "1449, 1442", "1451, 1442", "1452, 1446", "76, 70",
        "70000, 65535", "65544, 65535", "65543, 65534"})
    void maxUlpduIsTheLargestWhoseFpduFits(final int maxFpdu, final int maxUlpdu)
    {
        assertEquals(maxUlpdu, Fpdu.maxUlpduLength(maxFpdu));
        assertEquals(Event.maxUlpdu(maxFpdu), Fpdu.maxUlpduLength(maxFpdu));
    }

    @Test
    void aBoundBelowTheLargestTerminateIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> Fpdu.maxUlpduLength(75));
        assertThrows(IllegalArgumentException.class, () -> new FpduEncoder(true, 0));
    }

    /** RFC 3720 appendix B.4: CRC32c results as the bytes that go on the wire. */
    @ParameterizedTest
    @CsvSource({"zeros, aa36918a", "ones, 43aba862", "incrementing, 4e79dd46", "decrementing, 5cdb3f11"})
    void crcMatchesRfc3720Vectors(final String pattern, final String wireBytes)
    {
        final byte[] data = new byte[32];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte) switch (pattern)
            {
                case "zeros" -> 0;
                case "ones" -> 0xFF;
                case "incrementing" -> i;
                default -> 31 - i;
            };
        }
        final CRC32C crc = new CRC32C();
        crc.update(data);
        // a 30-byte ULPDU: its CRC field sits right after 32 bytes
        final ByteBuffer buffer = ByteBuffer.allocate(36);
        Fpdu.putCrc(buffer, 0, 30, (int) crc.getValue());
        assertEquals(wireBytes, hex(java.util.Arrays.copyOfRange(buffer.array(), 32, 36)));
        assertEquals((int) crc.getValue(), Fpdu.getCrc(buffer, 0, 30));
    }

    @Test
    void crcCoversLengthUlpduAndPadAndIsWrittenLittleEndianWhateverTheBufferOrder()
    {
        final byte[] ulpdu = {0x41, 0x43, 1, 2, 3};
        final byte[] expected = Streams.frame(ulpdu, true);
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(64).order(order);
            buffer.position(4);
            Fpdu.putUlpduLength(buffer, 4, ulpdu.length);
            buffer.put(6, ulpdu);
            final int value = Fpdu.computeCrc(new CRC32C(), buffer.duplicate(), 4, ulpdu.length);
            Fpdu.putCrc(buffer, 4, ulpdu.length, value);
            final byte[] actual = new byte[expected.length];
            buffer.get(4, actual);
            assertArrayEquals(expected, actual, order.toString());
            assertEquals(ulpdu.length, Fpdu.ulpduLength(buffer, 4));
            assertEquals(4, buffer.position(), "absolute access leaves the position alone");
        }
    }
}

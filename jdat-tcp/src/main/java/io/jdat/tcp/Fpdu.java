package io.jdat.tcp;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * MPA framing of one DDP segment into an FPDU (framed protocol data unit, RFC 5044), as sent
 * once the MPA Request/Reply handshake is over. Markers are never used (siw does not support
 * them and {@link Mpa} refuses them), so an FPDU is exactly:
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |     ULPDU_Length (16, BE)     |                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *   |                                                               |
 *   ~   ULPDU: one DDP segment = DDP header, RDMAP header, payload  ~
 *   ~   (ULPDU_Length bytes, see DdpRdmap)                          ~
 *   |                                                               |
 *   +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                               |  PAD: 0..3 zero bytes         |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |      CRC32c over ULPDU_Length, ULPDU and PAD (little-endian)  |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * PAD makes {@code 2 + ULPDU_Length + PAD} a multiple of four. The CRC field is always present;
 * when neither side asked for CRC in the MPA handshake it is sent as zero and not checked.
 *
 * <p>The CRC is CRC32c (Castagnoli, the iSCSI polynomial; the JDK's {@link CRC32C}). On the wire
 * its four bytes are the little-endian encoding of {@code CRC32C.getValue()}: RFC 3720 B.4 gives
 * 32 zero bytes &rarr; {@code aa 36 91 8a}, which is {@code 0x8A9136AA} little-endian, and Linux
 * siw writes the value the same way.
 */
public final class Fpdu
{
    /** Offset of the 16-bit ULPDU_Length field. */
    public static final int LENGTH_OFFSET = 0;
    /** Size of the ULPDU_Length field. */
    public static final int LENGTH_FIELD_LENGTH = 2;
    /** Offset of the ULPDU (the DDP segment) within the FPDU. */
    public static final int ULPDU_OFFSET = LENGTH_OFFSET + LENGTH_FIELD_LENGTH;
    /** Size of the CRC field. */
    public static final int CRC_LENGTH = 4;
    /** FPDUs are padded to a multiple of this. */
    public static final int ALIGNMENT = 4;

    /** The largest ULPDU_Length the 16-bit field can carry; a receiver must accept all of them. */
    public static final int MAX_ULPDU_LENGTH = 0xFFFF;
    /** The largest FPDU on the wire (ULPDU_Length 65535, 3 bytes of pad): a receive buffer must hold one. */
    public static final int MAX_FPDU_LENGTH = 65544;
    /** Default bound on FPDUs this side sends: 64 KiB, which gives a ULPDU of 65530 bytes. */
    public static final int DEFAULT_MAX_FPDU_LENGTH = 65536;
    /** The smallest bound on sent FPDUs an encoder accepts: the largest Terminate must fit. */
    public static final int MIN_MAX_FPDU_LENGTH = 76;

    private Fpdu()
    {
    }

    /** Pad bytes after a ULPDU of {@code ulpduLength} bytes. */
    public static int padLength(final int ulpduLength)
    {
        return -(LENGTH_FIELD_LENGTH + ulpduLength) & (ALIGNMENT - 1);
    }

    /** Bytes on the wire of the FPDU that carries a ULPDU of {@code ulpduLength} bytes. */
    public static int fpduLength(final int ulpduLength)
    {
        return LENGTH_FIELD_LENGTH + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /**
     * The largest ULPDU whose FPDU fits in {@code maxFpduLength} bytes: 65530 for 65536, 1442 for
     * an MSS of 1448.
     *
     * @throws IllegalArgumentException if {@code maxFpduLength} is below {@link #MIN_MAX_FPDU_LENGTH}
     */
    public static int maxUlpduLength(final int maxFpduLength)
    {
        if (maxFpduLength < MIN_MAX_FPDU_LENGTH)
        {
            throw new IllegalArgumentException("max FPDU length " + maxFpduLength + " < " + MIN_MAX_FPDU_LENGTH);
        }
        final int aligned = (maxFpduLength - CRC_LENGTH) & ~(ALIGNMENT - 1);
        return Math.min(aligned - LENGTH_FIELD_LENGTH, MAX_ULPDU_LENGTH);
    }

    /** The ULPDU_Length of the FPDU that starts at {@code fpduOffset}. */
    public static int ulpduLength(final ByteBuffer buffer, final int fpduOffset)
    {
        return Wire.getUnsignedShort(buffer, fpduOffset + LENGTH_OFFSET);
    }

    /** Writes the ULPDU_Length field of the FPDU that starts at {@code fpduOffset}. */
    public static void putUlpduLength(final ByteBuffer buffer, final int fpduOffset, final int ulpduLength)
    {
        Wire.putShort(buffer, fpduOffset + LENGTH_OFFSET, ulpduLength);
    }

    /** Offset of the CRC field of an FPDU that starts at {@code fpduOffset}. */
    public static int crcOffset(final int fpduOffset, final int ulpduLength)
    {
        return fpduOffset + LENGTH_FIELD_LENGTH + ulpduLength + padLength(ulpduLength);
    }

    /**
     * Computes the CRC32c of the FPDU at {@code fpduOffset} (ULPDU_Length field, ULPDU, pad).
     *
     * @param crc  reused checksum object; it is reset first
     * @param view a buffer over the same bytes whose position and limit this method may change
     *             (a {@link ByteBuffer#duplicate()} the caller keeps); CRC32C reads it directly
     * @return the value as {@code (int) CRC32C.getValue()}
     */
    public static int computeCrc(final CRC32C crc, final ByteBuffer view, final int fpduOffset, final int ulpduLength)
    {
        final int end = crcOffset(fpduOffset, ulpduLength);
        view.clear();
        view.position(fpduOffset);
        view.limit(end);
        crc.reset();
        crc.update(view);
        return (int) crc.getValue();
    }

    /** Writes a CRC value into the CRC field of the FPDU at {@code fpduOffset}, little-endian. */
    public static void putCrc(final ByteBuffer buffer, final int fpduOffset, final int ulpduLength, final int crc)
    {
        Wire.putIntLittleEndian(buffer, crcOffset(fpduOffset, ulpduLength), crc);
    }

    /** Reads the CRC field of the FPDU at {@code fpduOffset}, as {@link #computeCrc} returns it. */
    public static int getCrc(final ByteBuffer buffer, final int fpduOffset, final int ulpduLength)
    {
        return Wire.getIntLittleEndian(buffer, crcOffset(fpduOffset, ulpduLength));
    }
}

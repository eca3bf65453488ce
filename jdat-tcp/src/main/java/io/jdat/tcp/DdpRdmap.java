package io.jdat.tcp;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;

import java.nio.ByteBuffer;

/**
 * DDP (RFC 5041) and RDMAP (RFC 5040) headers of one DDP segment, the ULPDU of an {@link Fpdu}.
 * All offsets count from the segment's first byte (FPDU byte 2); the drawings put the FPDU's
 * ULPDU_Length in front so that the 32-bit rows line up as they do on the wire. All fields are
 * big-endian.
 * <pre>
 * Control bytes, first in every segment:
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  (ULPDU_Length, see Fpdu)     |T|L| Rsvd  |DV |RV |Rsv|Opcode |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     byte 0 (DDP):   T 0x80 tagged buffer model, L 0x40 last segment of the message,
 *                     Rsvd 0x3C zero, DV 0x03 DDP version = 1
 *     byte 1 (RDMAP): RV 0xC0 RDMAP version = 1, Rsv 0x30 zero, Opcode 0x0F (RdmapOpcode)
 *
 * Tagged header, 14 bytes: RDMA Write (0), RDMA Read Response (2)           offset
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  (ULPDU_Length)               |1|L| Rsvd  |DV |RV |Rsv|Opcode |       0
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                        Data Sink STag                         |       2
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                  Data Sink Tagged Offset (64)                 |       6
 *   +                                                               +
 *   |                                                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   ~  payload: placed at TO; the TO advances by each segment's payload ~  14
 *
 * Untagged header, 18 bytes: Send (3), Send with SE (5), Read Request (1), Terminate (7)
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  (ULPDU_Length)               |0|L| Rsvd  |DV |RV |Rsv|Opcode |       0
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |      RsvdULP: zero (the Invalidate STag of opcodes 4 and 6)   |       2
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   Queue Number: 0 Send family, 1 Read Request, 2 Terminate    |       6
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   Message Sequence Number: per queue, from 1, one per message |      10
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   Message Offset: byte offset of this segment in its message  |      14
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   ~  payload (Send family)                                        ~      18
 *
 * RDMA Read Request body after the untagged header (28 bytes, no payload; 46 in all)
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |            Data Sink STag (requester's, for the Response)     |      18
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                  Data Sink Tagged Offset (64)                 |      22
 *   +                                                               +
 *   |                                                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                  RDMA Read Message Size                       |      30
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |            Data Source STag (at the responder)                |      34
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                 Data Source Tagged Offset (64)                |      38
 *   +                                                               +
 *   |                                                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Terminate body after the untagged header (QN 2, MO 0, L set; 22 bytes at least)
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   | Layer | EType |  Error Code   |M|D|R|      Reserved (13)      |      18
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  DDP Segment Length (if D)    |                               |      22
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *   ~  Terminated DDP header (if D): 14 or 18 bytes, by its T bit   ~      24
 *   ~  Terminated RDMAP header (if R): a Read Request's 28 bytes    ~
 *     M: the segment length is valid, D: DDP header included, R: RDMAP header included
 * </pre>
 * Opcodes 4 and 6 (Send with Invalidate) are not part of DAT 1.2; this side never sends them
 * and treats receiving them as an unexpected opcode.
 */
public final class DdpRdmap
{
    /** DDP control byte. */
    public static final int DDP_CONTROL_OFFSET = 0;
    /** RDMAP control byte. */
    public static final int RDMAP_CONTROL_OFFSET = 1;

    public static final int DDP_FLAG_TAGGED = 0x80;
    public static final int DDP_FLAG_LAST = 0x40;
    public static final int DDP_VERSION_MASK = 0x03;
    public static final int DDP_VERSION = 1;
    public static final int RDMAP_VERSION_MASK = 0xC0;
    public static final int RDMAP_VERSION_SHIFT = 6;
    public static final int RDMAP_VERSION = 1;
    public static final int RDMAP_OPCODE_MASK = 0x0F;

    // tagged header
    public static final int TAGGED_STAG_OFFSET = 2;
    public static final int TAGGED_TO_OFFSET = 6;
    public static final int TAGGED_HEADER_LENGTH = 14;

    // untagged header
    public static final int UNTAGGED_RSVD_ULP_OFFSET = 2;
    public static final int UNTAGGED_QN_OFFSET = 6;
    public static final int UNTAGGED_MSN_OFFSET = 10;
    public static final int UNTAGGED_MO_OFFSET = 14;
    public static final int UNTAGGED_HEADER_LENGTH = 18;

    /** Queue of the Send family. */
    public static final int QN_SEND = 0;
    /** Queue of RDMA Read Requests. */
    public static final int QN_READ_REQUEST = 1;
    /** Queue of Terminate messages. */
    public static final int QN_TERMINATE = 2;

    // RDMA Read Request
    public static final int READ_SINK_STAG_OFFSET = 18;
    public static final int READ_SINK_TO_OFFSET = 22;
    public static final int READ_SIZE_OFFSET = 30;
    public static final int READ_SOURCE_STAG_OFFSET = 34;
    public static final int READ_SOURCE_TO_OFFSET = 38;
    /** The RDMAP part of a Read Request, as a Terminate also carries it. */
    public static final int READ_REQUEST_RDMAP_HEADER_LENGTH = 28;
    public static final int READ_REQUEST_LENGTH = UNTAGGED_HEADER_LENGTH + READ_REQUEST_RDMAP_HEADER_LENGTH;

    // Terminate
    public static final int TERMINATE_CONTROL_OFFSET = 18;
    public static final int TERMINATE_HEADER_LENGTH = 22;
    public static final int TERMINATE_SEGMENT_LENGTH_OFFSET = 22;
    public static final int TERMINATE_DDP_HEADER_OFFSET = 24;
    public static final int TERMINATE_LAYER_SHIFT = 28;
    public static final int TERMINATE_ETYPE_SHIFT = 24;
    public static final int TERMINATE_CODE_SHIFT = 16;
    public static final int TERMINATE_FLAG_M = 0x8000;
    public static final int TERMINATE_FLAG_D = 0x4000;
    public static final int TERMINATE_FLAG_R = 0x2000;
    /** Longest Terminate this side can receive with every optional part: 22 + 2 + 18 + 28. */
    public static final int TERMINATE_MAX_LENGTH =
        TERMINATE_DDP_HEADER_OFFSET + UNTAGGED_HEADER_LENGTH + READ_REQUEST_RDMAP_HEADER_LENGTH;

    private DdpRdmap()
    {
    }

    /**
     * Header length (DDP plus RDMAP, before any payload) of a segment with this opcode; the
     * smallest legal ULPDU_Length for it. -1 for opcodes RFC 5040 does not define.
     */
    public static int headerLength(final int opcode)
    {
        return switch (opcode)
        {
            case RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE -> TAGGED_HEADER_LENGTH;
            case RdmapOpcode.RDMA_READ_REQUEST -> READ_REQUEST_LENGTH;
            case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.SEND_WITH_SE,
                 RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE -> UNTAGGED_HEADER_LENGTH;
            case RdmapOpcode.TERMINATE -> TERMINATE_HEADER_LENGTH;
            default -> -1;
        };
    }

    /** Whether the opcode uses the tagged buffer model (RDMA Write and Read Response). */
    public static boolean isTaggedOpcode(final int opcode)
    {
        return opcode == RdmapOpcode.RDMA_WRITE || opcode == RdmapOpcode.RDMA_READ_RESPONSE;
    }

    /** The untagged queue an opcode travels on; -1 for tagged or undefined opcodes. */
    public static int queueNumber(final int opcode)
    {
        return switch (opcode)
        {
            case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.SEND_WITH_SE,
                 RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE -> QN_SEND;
            case RdmapOpcode.RDMA_READ_REQUEST -> QN_READ_REQUEST;
            case RdmapOpcode.TERMINATE -> QN_TERMINATE;
            default -> -1;
        };
    }

    // ---------------------------------------------------------------- control bytes

    /** Writes both control bytes with DDP and RDMAP version 1. */
    public static void putControl(final ByteBuffer buffer, final int segment, final boolean tagged, final boolean last,
        final int opcode)
    {
        final int ddp = (tagged ? DDP_FLAG_TAGGED : 0) | (last ? DDP_FLAG_LAST : 0) | DDP_VERSION;
        buffer.put(segment + DDP_CONTROL_OFFSET, (byte) ddp);
        buffer.put(segment + RDMAP_CONTROL_OFFSET,
            (byte) ((RDMAP_VERSION << RDMAP_VERSION_SHIFT) | (opcode & RDMAP_OPCODE_MASK)));
    }

    public static boolean isTagged(final ByteBuffer buffer, final int segment)
    {
        return (buffer.get(segment + DDP_CONTROL_OFFSET) & DDP_FLAG_TAGGED) != 0;
    }

    public static boolean isLast(final ByteBuffer buffer, final int segment)
    {
        return (buffer.get(segment + DDP_CONTROL_OFFSET) & DDP_FLAG_LAST) != 0;
    }

    public static int ddpVersion(final ByteBuffer buffer, final int segment)
    {
        return buffer.get(segment + DDP_CONTROL_OFFSET) & DDP_VERSION_MASK;
    }

    public static int rdmapVersion(final ByteBuffer buffer, final int segment)
    {
        return (buffer.get(segment + RDMAP_CONTROL_OFFSET) & RDMAP_VERSION_MASK) >>> RDMAP_VERSION_SHIFT;
    }

    public static int opcode(final ByteBuffer buffer, final int segment)
    {
        return buffer.get(segment + RDMAP_CONTROL_OFFSET) & RDMAP_OPCODE_MASK;
    }

    // ---------------------------------------------------------------- tagged

    /** Writes a whole tagged header. */
    public static void putTaggedHeader(final ByteBuffer buffer, final int segment, final int opcode, final boolean last,
        final int stag, final long to)
    {
        putControl(buffer, segment, true, last, opcode);
        Wire.putInt(buffer, segment + TAGGED_STAG_OFFSET, stag);
        Wire.putLong(buffer, segment + TAGGED_TO_OFFSET, to);
    }

    public static int stag(final ByteBuffer buffer, final int segment)
    {
        return Wire.getInt(buffer, segment + TAGGED_STAG_OFFSET);
    }

    public static long taggedOffset(final ByteBuffer buffer, final int segment)
    {
        return Wire.getLong(buffer, segment + TAGGED_TO_OFFSET);
    }

    // ---------------------------------------------------------------- untagged

    /** Writes a whole untagged header, RsvdULP zero. */
    public static void putUntaggedHeader(final ByteBuffer buffer, final int segment, final int opcode,
        final boolean last, final int queue, final int msn, final int mo)
    {
        putControl(buffer, segment, false, last, opcode);
        Wire.putInt(buffer, segment + UNTAGGED_RSVD_ULP_OFFSET, 0);
        Wire.putInt(buffer, segment + UNTAGGED_QN_OFFSET, queue);
        Wire.putInt(buffer, segment + UNTAGGED_MSN_OFFSET, msn);
        Wire.putInt(buffer, segment + UNTAGGED_MO_OFFSET, mo);
    }

    public static int queueNumber(final ByteBuffer buffer, final int segment)
    {
        return Wire.getInt(buffer, segment + UNTAGGED_QN_OFFSET);
    }

    public static int msn(final ByteBuffer buffer, final int segment)
    {
        return Wire.getInt(buffer, segment + UNTAGGED_MSN_OFFSET);
    }

    public static int mo(final ByteBuffer buffer, final int segment)
    {
        return Wire.getInt(buffer, segment + UNTAGGED_MO_OFFSET);
    }

    // ---------------------------------------------------------------- RDMA Read Request

    /** Writes the Read Request body that follows its untagged header. */
    public static void putReadRequest(final ByteBuffer buffer, final int segment, final int sinkStag,
        final long sinkTo, final int size, final int sourceStag, final long sourceTo)
    {
        Wire.putInt(buffer, segment + READ_SINK_STAG_OFFSET, sinkStag);
        Wire.putLong(buffer, segment + READ_SINK_TO_OFFSET, sinkTo);
        Wire.putInt(buffer, segment + READ_SIZE_OFFSET, size);
        Wire.putInt(buffer, segment + READ_SOURCE_STAG_OFFSET, sourceStag);
        Wire.putLong(buffer, segment + READ_SOURCE_TO_OFFSET, sourceTo);
    }

    public static int readSinkStag(final ByteBuffer buffer, final int segment)
    {
        return Wire.getInt(buffer, segment + READ_SINK_STAG_OFFSET);
    }

    public static long readSinkTo(final ByteBuffer buffer, final int segment)
    {
        return Wire.getLong(buffer, segment + READ_SINK_TO_OFFSET);
    }

    public static int readSize(final ByteBuffer buffer, final int segment)
    {
        return Wire.getInt(buffer, segment + READ_SIZE_OFFSET);
    }

    public static int readSourceStag(final ByteBuffer buffer, final int segment)
    {
        return Wire.getInt(buffer, segment + READ_SOURCE_STAG_OFFSET);
    }

    public static long readSourceTo(final ByteBuffer buffer, final int segment)
    {
        return Wire.getLong(buffer, segment + READ_SOURCE_TO_OFFSET);
    }

    // ---------------------------------------------------------------- Terminate

    /**
     * ULPDU length of the Terminate {@link #putTerminate} writes for {@code info}: 22, or with
     * the offending DDP header 22 + 2 + 14 (tagged) or 22 + 2 + 18 (untagged).
     */
    public static int terminateLength(final TerminateInfo info)
    {
        if (!info.hdrKnown())
        {
            return TERMINATE_HEADER_LENGTH;
        }
        return TERMINATE_DDP_HEADER_OFFSET + (info.tagged() ? TAGGED_HEADER_LENGTH : UNTAGGED_HEADER_LENGTH);
    }

    /**
     * Writes the Terminate body (control word and optional parts) that follows its untagged
     * header. With {@link TerminateInfo#hdrKnown()} the offending DDP header is rebuilt from the
     * record and flagged with D; its segment length is not known to the record, so M stays clear
     * and the length field is zero. R is never set: the record does not carry a Read Request's
     * RDMAP fields.
     *
     * @return the ULPDU length, {@link #terminateLength(TerminateInfo)}
     */
    public static int putTerminate(final ByteBuffer buffer, final int segment, final TerminateInfo info)
    {
        final int control = ((info.layer() & 0xF) << TERMINATE_LAYER_SHIFT)
            | ((info.etype() & 0xF) << TERMINATE_ETYPE_SHIFT)
            | ((info.code() & 0xFF) << TERMINATE_CODE_SHIFT)
            | (info.hdrKnown() ? TERMINATE_FLAG_D : 0);
        Wire.putInt(buffer, segment + TERMINATE_CONTROL_OFFSET, control);
        if (!info.hdrKnown())
        {
            return TERMINATE_HEADER_LENGTH;
        }
        Wire.putShort(buffer, segment + TERMINATE_SEGMENT_LENGTH_OFFSET, 0);
        final int copy = segment + TERMINATE_DDP_HEADER_OFFSET;
        if (info.tagged())
        {
            putTaggedHeader(buffer, copy, info.opcode(), false, info.stag(), info.to());
        }
        else
        {
            putUntaggedHeader(buffer, copy, info.opcode(), false, info.queue(), info.msn(), info.mo());
        }
        return terminateLength(info);
    }

    /**
     * Reads a received Terminate whose segment starts at {@code segment} and is
     * {@code ulpduLength} (at least {@link #TERMINATE_HEADER_LENGTH}) bytes long. The offending
     * header is reported when D is set and the copy fits in the segment; a copy cut short is
     * ignored rather than treated as an error, since the connection ends either way.
     */
    public static TerminateInfo readTerminate(final ByteBuffer buffer, final int segment, final int ulpduLength)
    {
        final int control = Wire.getInt(buffer, segment + TERMINATE_CONTROL_OFFSET);
        final int layer = (control >>> TERMINATE_LAYER_SHIFT) & 0xF;
        final int etype = (control >>> TERMINATE_ETYPE_SHIFT) & 0xF;
        final int code = (control >>> TERMINATE_CODE_SHIFT) & 0xFF;
        final int copy = segment + TERMINATE_DDP_HEADER_OFFSET;
        if ((control & TERMINATE_FLAG_D) == 0 || ulpduLength < TERMINATE_DDP_HEADER_OFFSET + RDMAP_CONTROL_OFFSET + 1)
        {
            return TerminateInfo.of(layer, etype, code);
        }
        final int opcode = opcode(buffer, copy);
        if (isTagged(buffer, copy))
        {
            if (ulpduLength < TERMINATE_DDP_HEADER_OFFSET + TAGGED_HEADER_LENGTH)
            {
                return TerminateInfo.of(layer, etype, code);
            }
            return TerminateInfo.tagged(layer, etype, code, opcode, stag(buffer, copy), taggedOffset(buffer, copy));
        }
        if (ulpduLength < TERMINATE_DDP_HEADER_OFFSET + UNTAGGED_HEADER_LENGTH)
        {
            return TerminateInfo.of(layer, etype, code);
        }
        return TerminateInfo.untagged(layer, etype, code, opcode, queueNumber(buffer, copy), msn(buffer, copy),
            mo(buffer, copy));
    }

    /** The Terminate for a segment that fails a DDP or RDMAP check, with its header when readable. */
    static TerminateInfo terminateFor(final ByteBuffer buffer, final int segment, final int ulpduLength,
        final int layer, final int etype, final int code)
    {
        final boolean tagged = isTagged(buffer, segment);
        final int opcode = opcode(buffer, segment);
        if (tagged && ulpduLength >= TAGGED_HEADER_LENGTH)
        {
            return TerminateInfo.tagged(layer, etype, code, opcode, stag(buffer, segment),
                taggedOffset(buffer, segment));
        }
        if (!tagged && ulpduLength >= UNTAGGED_HEADER_LENGTH)
        {
            return TerminateInfo.untagged(layer, etype, code, opcode, queueNumber(buffer, segment),
                msn(buffer, segment), mo(buffer, segment));
        }
        return TerminateInfo.of(layer, etype, code);
    }

    /** The DDP version error for a segment: tagged or untagged buffer, "invalid version". */
    static TerminateInfo ddpVersionError(final boolean tagged)
    {
        return tagged
            ? TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER,
                TerminateCodes.DDP_TAGGED_INVALID_VERSION)
            : TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER,
                TerminateCodes.DDP_UNTAGGED_INVALID_VERSION);
    }
}

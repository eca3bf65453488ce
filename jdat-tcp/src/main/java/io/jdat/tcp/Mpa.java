package io.jdat.tcp;

import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The MPA Request and Reply frames that open an iWARP connection over TCP (RFC 5044), with the
 * enhanced connection establishment of RFC 6581 (MPA revision 2), as Linux siw speaks them.
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                                                               |   0
 *   +   Key: 16 ASCII bytes, no terminator:                         +
 *   |        "MPA ID Req Frame" (initiator's Request)               |
 *   +        "MPA ID Rep Frame" (responder's Reply)                 +
 *   |                                                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |M|C|R|E|  Res  |      Rev      |     PD_Length (16, BE)        |  16
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   ~   Private Data, PD_Length bytes                               ~  20
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     M 0x80  the sender wants markers in the FPDUs it receives (always refused here)
 *     C 0x40  the sender wants CRC; CRC is used in both directions if either side sets it
 *     R 0x20  Reply only: the responder rejects the connection
 *     E 0x10  with Rev 2: enhanced connection establishment (Linux siw and cxgb4 convention);
 *             the private data then starts with the IRD/ORD word below
 *     Rev     1 = RFC 5044, 2 = RFC 6581
 *
 * IRD/ORD word, first 4 bytes of the private data of an enhanced (Rev 2, E) frame:
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |A|B|          IRD (14)         |C|D|          ORD (14)         |  20
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     A peer-to-peer mode (a ready-to-receive message follows the handshake)
 *     B ready-to-receive may be a zero-length Send, C ... a zero-length RDMA Write,
 *     D ... a zero-length RDMA Read
 *     IRD  RDMA Reads the sender will serve at once; ORD  RDMA Reads it will have outstanding
 * </pre>
 * Linux caps private data at 256 bytes (a longer PD_Length is a protocol error for siw), and in
 * enhanced mode those include the IRD/ORD word, so a consumer gets 252 bytes; this side applies
 * the same limit both ways.
 *
 * <p>Startup rule (RFC 5044, and siw's "peer sent extra data" check): nothing may follow a
 * Request or a Reply until the handshake is over. The initiator sends the first FPDU after the
 * Reply; the responder sends nothing after its Reply until that FPDU (or, in peer-to-peer mode,
 * the ready-to-receive message) has arrived. {@link #decode} reports bytes found behind a frame as
 * {@link Status#EXTRA_DATA}.
 */
public final class Mpa
{
    public static final int KEY_OFFSET = 0;
    public static final int KEY_LENGTH = 16;
    public static final int FLAGS_OFFSET = 16;
    public static final int REVISION_OFFSET = 17;
    public static final int PD_LENGTH_OFFSET = 18;
    public static final int PRIVATE_DATA_OFFSET = 20;
    /** Frame length without private data. */
    public static final int HEADER_LENGTH = PRIVATE_DATA_OFFSET;

    public static final int FLAG_MARKERS = 0x80;
    public static final int FLAG_CRC = 0x40;
    public static final int FLAG_REJECT = 0x20;
    public static final int FLAG_ENHANCED = 0x10;

    public static final int REVISION_1 = 1;
    public static final int REVISION_2 = 2;

    /** Most private data (PD_Length) in a frame, IRD/ORD word included, as Linux allows. */
    public static final int MAX_PRIVATE_DATA_LENGTH = 256;
    /** Size of the RFC 6581 IRD/ORD word. */
    public static final int IRD_ORD_LENGTH = 4;
    /** Most consumer private data in an enhanced (Rev 2) frame. */
    public static final int MAX_ENHANCED_CONSUMER_PRIVATE_DATA_LENGTH = MAX_PRIVATE_DATA_LENGTH - IRD_ORD_LENGTH;
    /** Longest frame this side sends or accepts. */
    public static final int MAX_FRAME_LENGTH = HEADER_LENGTH + MAX_PRIVATE_DATA_LENGTH;

    /** The Terminate to send for an invalid Request or Reply (LLP, MPA error type, code 4). */
    public static final TerminateInfo TERMINATE_BAD_REQUEST_REPLY =
        TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_BAD_REQUEST_REPLY);
    /** The Terminate to send when the peer's IRD cannot serve this side's ORD (LLP code 6). */
    public static final TerminateInfo TERMINATE_INSUFFICIENT_IRD =
        TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_INSUFFICIENT_IRD);
    /** The Terminate to send when no ready-to-receive mode both sides support was agreed (LLP code 7). */
    public static final TerminateInfo TERMINATE_NO_MATCHING_RTR =
        TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_NO_MATCHING_RTR);

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NO_PRIVATE_DATA = new byte[0];
    private static final Result NEED_MORE = new Result(Status.NEED_MORE, null);
    private static final Result BAD_KEY = new Result(Status.BAD_KEY, null);

    private Mpa()
    {
    }

    /** What {@link #decode} found. */
    public enum Status
    {
        /** No complete frame yet and nothing wrong so far; read more and call again. */
        NEED_MORE,
        /** A complete, acceptable frame; the buffer's position moved past it. */
        FRAME,
        /** The key is not the expected one (checked on the first bytes, before the frame is complete). */
        BAD_KEY,
        /** Rev is neither 1 nor 2. */
        BAD_REVISION,
        /** PD_Length exceeds {@link #MAX_PRIVATE_DATA_LENGTH}. */
        PRIVATE_DATA_TOO_LONG,
        /** M is set: markers are not supported. A responder answers with a reject. */
        MARKERS_REQUESTED,
        /** Rev 2 with E set but PD_Length below 4. A responder answers with a reject. */
        ENHANCED_WITHOUT_IRD_ORD,
        /** Bytes follow the frame before the handshake is over (the frame itself was fine). */
        EXTRA_DATA;

        /** Whether this status ends the handshake with an error. */
        public boolean isError()
        {
            return this != NEED_MORE && this != FRAME;
        }
    }

    /**
     * The outcome of {@link #decode}.
     *
     * @param status what was found
     * @param frame  the frame; for {@link Status#FRAME} and {@link Status#EXTRA_DATA} complete, for
     *               the header errors after the key ({@link Status#BAD_REVISION},
     *               {@link Status#PRIVATE_DATA_TOO_LONG}, {@link Status#MARKERS_REQUESTED},
     *               {@link Status#ENHANCED_WITHOUT_IRD_ORD}) its header fields with no private
     *               data; null otherwise
     */
    public record Result(Status status, Frame frame)
    {
    }

    /** What an initiator makes of a Reply to its Request ({@link #checkReply}). */
    public enum ReplyCheck
    {
        /** The connection is accepted; FPDUs may flow, CRC per {@link #crcInUse}. */
        ACCEPTED,
        /** R is set: the peer rejected the connection. */
        REJECTED,
        /** M is set: the responder wants markers, which this side refuses. */
        MARKERS_REQUESTED,
        /** The Request was enhanced but the Reply is not Rev 2 with E and an IRD/ORD word. */
        NOT_ENHANCED,
        /** The Reply's Rev is higher than the Request's. */
        REVISION_MISMATCH
    }

    /**
     * The RFC 6581 IRD/ORD word.
     *
     * @param ird               RDMA Reads the sender serves at once, 0..16383
     * @param ord               RDMA Reads the sender has outstanding at once, 0..16383
     * @param peerToPeer        A: peer-to-peer mode, a ready-to-receive message follows
     * @param zeroLengthSendRtr B: that message may be a zero-length Send
     * @param writeRtr          C: it may be a zero-length RDMA Write
     * @param readRtr           D: it may be a zero-length RDMA Read
     */
    public record IrdOrd(int ird, int ord, boolean peerToPeer, boolean zeroLengthSendRtr, boolean writeRtr,
        boolean readRtr)
    {
        /** Mask of the 14-bit IRD and ORD values. */
        public static final int VALUE_MASK = 0x3FFF;
        /** A, in the IRD half. */
        public static final int PEER_TO_PEER = 0x8000;
        /** B, in the IRD half. */
        public static final int ZERO_LENGTH_SEND_RTR = 0x4000;
        /** C, in the ORD half. */
        public static final int WRITE_RTR = 0x8000;
        /** D, in the ORD half. */
        public static final int READ_RTR = 0x4000;

        /**
         * @throws IllegalArgumentException if IRD or ORD do not fit in 14 bits
         */
        public IrdOrd
        {
            if (ird < 0 || ird > VALUE_MASK || ord < 0 || ord > VALUE_MASK)
            {
                throw new IllegalArgumentException("IRD/ORD out of 0.." + VALUE_MASK + ": " + ird + "/" + ord);
            }
        }

        /** IRD and ORD without peer-to-peer mode (what siw sends by default). */
        public static IrdOrd of(final int ird, final int ord)
        {
            return new IrdOrd(ird, ord, false, false, false, false);
        }

        /** The 32-bit word as it goes on the wire (IRD half first). */
        public int encode()
        {
            final int irdHalf = ird | (peerToPeer ? PEER_TO_PEER : 0) | (zeroLengthSendRtr ? ZERO_LENGTH_SEND_RTR : 0);
            final int ordHalf = ord | (writeRtr ? WRITE_RTR : 0) | (readRtr ? READ_RTR : 0);
            return (irdHalf << 16) | ordHalf;
        }

        /** Reads a word as {@link #encode()} writes it. */
        public static IrdOrd decode(final int word)
        {
            final int irdHalf = word >>> 16;
            final int ordHalf = word & 0xFFFF;
            return new IrdOrd(irdHalf & VALUE_MASK, ordHalf & VALUE_MASK, (irdHalf & PEER_TO_PEER) != 0,
                (irdHalf & ZERO_LENGTH_SEND_RTR) != 0, (ordHalf & WRITE_RTR) != 0, (ordHalf & READ_RTR) != 0);
        }
    }

    /**
     * One MPA Request or Reply.
     *
     * @param request     Request (key "MPA ID Req Frame") or Reply
     * @param flags       byte 16: {@link #FLAG_MARKERS}, {@link #FLAG_CRC}, {@link #FLAG_REJECT},
     *                    {@link #FLAG_ENHANCED} and any reserved bits as received
     * @param revision    byte 17
     * @param pdLength    PD_Length as on the wire (IRD/ORD word included)
     * @param irdOrd      the IRD/ORD word of an enhanced frame; null otherwise
     * @param privateData the consumer's private data (the IRD/ORD word excluded); never null
     */
    public record Frame(boolean request, int flags, int revision, int pdLength, IrdOrd irdOrd, byte[] privateData)
    {
        public boolean markers()
        {
            return (flags & FLAG_MARKERS) != 0;
        }

        public boolean crc()
        {
            return (flags & FLAG_CRC) != 0;
        }

        public boolean reject()
        {
            return (flags & FLAG_REJECT) != 0;
        }

        /** Rev 2 with E set: private data begins with the IRD/ORD word. */
        public boolean enhanced()
        {
            return revision == REVISION_2 && (flags & FLAG_ENHANCED) != 0;
        }

        /** Bytes of the whole frame on the wire. */
        public int frameLength()
        {
            return HEADER_LENGTH + pdLength;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof Frame that && request == that.request && flags == that.flags
                && revision == that.revision && pdLength == that.pdLength
                && Objects.equals(irdOrd, that.irdOrd) && Arrays.equals(privateData, that.privateData);
        }

        @Override
        public int hashCode()
        {
            return Objects.hash(request, flags, revision, pdLength, irdOrd) * 31
                + Arrays.hashCode(privateData);
        }

        @Override
        public String toString()
        {
            return (request ? "MPA Request" : "MPA Reply") + "[flags=0x" + Integer.toHexString(flags)
                + ", rev=" + revision + ", pdLength=" + pdLength + ", irdOrd=" + irdOrd
                + ", privateData=" + privateData.length + " bytes]";
        }
    }

    // ---------------------------------------------------------------- encoding

    /** Consumer private data a frame can carry: 252 when enhanced, else 256. */
    public static int maxConsumerPrivateData(final boolean enhanced)
    {
        return enhanced ? MAX_ENHANCED_CONSUMER_PRIVATE_DATA_LENGTH : MAX_PRIVATE_DATA_LENGTH;
    }

    /** Length of a frame with this much consumer private data. */
    public static int frameLength(final boolean enhanced, final int consumerPrivateDataLength)
    {
        return HEADER_LENGTH + (enhanced ? IRD_ORD_LENGTH : 0) + consumerPrivateDataLength;
    }

    /**
     * Writes a frame at the buffer's position and advances it.
     *
     * @param irdOrd the IRD/ORD word to put first in the private data, or null for none; a word
     *               is only meaningful with Rev 2 and {@link #FLAG_ENHANCED}
     * @return bytes written
     * @throws IllegalArgumentException if the private data is too long for the limit or the
     *                                  buffer has no room for the frame
     */
    public static int encode(final ByteBuffer dst, final boolean request, final int flags, final int revision,
        final IrdOrd irdOrd, final byte[] privateData)
    {
        final byte[] data = privateData == null ? NO_PRIVATE_DATA : privateData;
        final boolean withWord = irdOrd != null;
        if (data.length > maxConsumerPrivateData(withWord))
        {
            throw new IllegalArgumentException("private data " + data.length + " > "
                + maxConsumerPrivateData(withWord));
        }
        final int length = frameLength(withWord, data.length);
        if (dst.remaining() < length)
        {
            throw new IllegalArgumentException("no room for a " + length + "-byte MPA frame");
        }
        final int start = dst.position();
        dst.put(start + KEY_OFFSET, request ? REQUEST_KEY : REPLY_KEY);
        dst.put(start + FLAGS_OFFSET, (byte) flags);
        dst.put(start + REVISION_OFFSET, (byte) revision);
        Wire.putShort(dst, start + PD_LENGTH_OFFSET, length - HEADER_LENGTH);
        int offset = start + PRIVATE_DATA_OFFSET;
        if (withWord)
        {
            Wire.putInt(dst, offset, irdOrd.encode());
            offset += IRD_ORD_LENGTH;
        }
        dst.put(offset, data);
        dst.position(start + length);
        return length;
    }

    /**
     * Writes an initiator's Request. With {@code irdOrd} the Request is Rev 2 and enhanced (what
     * siw sends); without it, Rev 1.
     *
     * @param crc whether this side wants CRC
     * @return bytes written
     */
    public static int encodeRequest(final ByteBuffer dst, final boolean crc, final IrdOrd irdOrd,
        final byte[] privateData)
    {
        final int flags = (crc ? FLAG_CRC : 0) | (irdOrd != null ? FLAG_ENHANCED : 0);
        return encode(dst, true, flags, irdOrd != null ? REVISION_2 : REVISION_1, irdOrd, privateData);
    }

    /**
     * Writes a responder's accepting Reply to {@code request}: Rev and flags per
     * {@link #replyRevision} and {@link #replyFlags}, the IRD/ORD word iff the request was
     * enhanced.
     *
     * @param localCrc whether this side wants CRC even if the initiator did not ask
     * @param irdOrd   this side's word (see {@link #replyIrdOrd}); required iff the request is enhanced
     * @return bytes written
     * @throws IllegalArgumentException if {@code irdOrd} is missing for an enhanced request or
     *                                  given for another
     */
    public static int encodeReply(final ByteBuffer dst, final Frame request, final boolean localCrc,
        final IrdOrd irdOrd, final byte[] privateData)
    {
        if (request.enhanced() != (irdOrd != null))
        {
            throw new IllegalArgumentException(request.enhanced()
                ? "an enhanced request needs an IRD/ORD word in the reply" : "IRD/ORD word for a non-enhanced request");
        }
        return encode(dst, false, replyFlags(request, localCrc), replyRevision(request), irdOrd, privateData);
    }

    /**
     * Writes a Reply that rejects the connection: R set, C echoed, M never set, no IRD/ORD word,
     * Rev echoed when it was 1 or 2 (else 1). {@code request} may be null when the Request was
     * unreadable.
     *
     * @return bytes written
     */
    public static int encodeReject(final ByteBuffer dst, final Frame request, final byte[] privateData)
    {
        final int revision = request != null && request.revision() == REVISION_2 ? REVISION_2 : REVISION_1;
        final int flags = FLAG_REJECT | (request != null && request.crc() ? FLAG_CRC : 0);
        return encode(dst, false, flags, revision, null, privateData);
    }

    // ---------------------------------------------------------------- negotiation

    /** CRC is used in both directions iff either side set C. */
    public static boolean crcInUse(final Frame request, final Frame reply)
    {
        return request.crc() || reply.crc();
    }

    /**
     * The Rev of a Reply to {@code request}: the request's own (a Rev 2 enhanced initiator
     * requires a Rev 2 enhanced Reply, a Rev 1 initiator gets Rev 1).
     */
    public static int replyRevision(final Frame request)
    {
        return request.revision() == REVISION_2 ? REVISION_2 : REVISION_1;
    }

    /**
     * The flags of an accepting Reply: C if the initiator or this side wants CRC, E iff the
     * request is enhanced (siw aborts otherwise), never M, R or any other bit (siw's
     * experimental GSO bit is not echoed).
     */
    public static int replyFlags(final Frame request, final boolean localCrc)
    {
        return (request.crc() || localCrc ? FLAG_CRC : 0) | (request.enhanced() ? FLAG_ENHANCED : 0);
    }

    /**
     * The responder's IRD/ORD word for an enhanced Reply. The responder picks its IRD no larger
     * than the initiator's ORD and its ORD no larger than the initiator's IRD (the caller applies
     * its own limits before). If the initiator asked for peer-to-peer mode the word keeps A and
     * names one ready-to-receive message: a zero-length Write if offered or if nothing usable was
     * offered, else a zero-length Read (as siw chooses).
     */
    public static IrdOrd replyIrdOrd(final IrdOrd request, final int localIrd, final int localOrd)
    {
        if (!request.peerToPeer())
        {
            return IrdOrd.of(localIrd, localOrd);
        }
        final boolean read = !request.writeRtr() && request.readRtr();
        return new IrdOrd(localIrd, localOrd, true, false, !read, read);
    }

    /** What an initiator makes of the Reply to its Request. */
    public static ReplyCheck checkReply(final Frame request, final Frame reply)
    {
        if (reply.reject())
        {
            return ReplyCheck.REJECTED;
        }
        if (reply.markers())
        {
            return ReplyCheck.MARKERS_REQUESTED;
        }
        if (reply.revision() > request.revision())
        {
            return ReplyCheck.REVISION_MISMATCH;
        }
        if (request.enhanced() && (!reply.enhanced() || reply.irdOrd() == null))
        {
            return ReplyCheck.NOT_ENHANCED;
        }
        return ReplyCheck.ACCEPTED;
    }

    // ---------------------------------------------------------------- decoding

    /**
     * Looks for one frame at {@code src}'s position (the bytes up to its limit are what has
     * arrived so far). Works on partial input: with too few bytes it reports
     * {@link Status#NEED_MORE} unless what is there is already wrong. Only {@link Status#FRAME}
     * moves the position (past the frame); every other outcome leaves it.
     *
     * @param expectRequest true on the responder (expects "MPA ID Req Frame"), false on the initiator
     */
    public static Result decode(final ByteBuffer src, final boolean expectRequest)
    {
        final int start = src.position();
        final int available = src.remaining();
        final byte[] key = expectRequest ? REQUEST_KEY : REPLY_KEY;
        final int keyBytes = Math.min(available, KEY_LENGTH);
        for (int i = 0; i < keyBytes; i++)
        {
            if (src.get(start + KEY_OFFSET + i) != key[i])
            {
                return BAD_KEY;
            }
        }
        if (available < HEADER_LENGTH)
        {
            return NEED_MORE;
        }
        final int flags = Wire.getUnsignedByte(src, start + FLAGS_OFFSET);
        final int revision = Wire.getUnsignedByte(src, start + REVISION_OFFSET);
        final int pdLength = Wire.getUnsignedShort(src, start + PD_LENGTH_OFFSET);
        final Frame header = new Frame(expectRequest, flags, revision, pdLength, null, NO_PRIVATE_DATA);
        if (pdLength > MAX_PRIVATE_DATA_LENGTH)
        {
            return new Result(Status.PRIVATE_DATA_TOO_LONG, header);
        }
        if (revision != REVISION_1 && revision != REVISION_2)
        {
            return new Result(Status.BAD_REVISION, header);
        }
        // a rejecting Reply is taken as it is: the connection is refused either way
        final boolean rejecting = !expectRequest && header.reject();
        if (!rejecting && header.markers())
        {
            return new Result(Status.MARKERS_REQUESTED, header);
        }
        if (!rejecting && header.enhanced() && pdLength < IRD_ORD_LENGTH)
        {
            return new Result(Status.ENHANCED_WITHOUT_IRD_ORD, header);
        }
        final int frameLength = HEADER_LENGTH + pdLength;
        if (available < frameLength)
        {
            return NEED_MORE;
        }
        final boolean withWord = header.enhanced() && pdLength >= IRD_ORD_LENGTH;
        final int dataOffset = start + PRIVATE_DATA_OFFSET + (withWord ? IRD_ORD_LENGTH : 0);
        final byte[] data = new byte[start + frameLength - dataOffset];
        src.get(dataOffset, data);
        final IrdOrd irdOrd = withWord ? IrdOrd.decode(Wire.getInt(src, start + PRIVATE_DATA_OFFSET)) : null;
        final Frame frame = new Frame(expectRequest, flags, revision, pdLength, irdOrd, data);
        if (available > frameLength)
        {
            return new Result(Status.EXTRA_DATA, frame);
        }
        src.position(start + frameLength);
        return new Result(Status.FRAME, frame);
    }
}

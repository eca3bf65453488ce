package io.jdat.tcp;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateInfo;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Turns the {@link OutboundMessage}s of one connection into FPDUs (see {@link Fpdu} and
 * {@link DdpRdmap}) written into caller-provided buffers. One encoder per connection and
 * direction; not thread-safe.
 *
 * <p>A message becomes one FPDU per DDP segment; each FPDU stays within the configured maximum
 * FPDU length, so a payload is cut into segments of at most {@link #maxSegmentPayload(int)}
 * bytes: the fewest that carry it, of near-equal length (RFC 5041 lets a sender cut a message
 * anywhere within the bound; a short last segment would cost the receiver a read of its own).
 * Untagged messages (Send, Send with SE on queue 0, Read Request on queue 1) carry the
 * message's MSN and an MO that advances by each segment's payload; tagged ones (RDMA Write, Read
 * Response) carry the message's STag and a TO that advances the same way. Only the last segment
 * has L set; an empty message is one FPDU. A Read Request is always one FPDU with no payload.
 *
 * <p>Driving it (the socket writer):
 * <pre>{@code
 *   encoder.begin(message);
 *   while (!encoder.encode(sendBuffer))     // writes whole FPDUs while they fit
 *   {
 *       flip, write to the socket, compact  // then try again; nextFpduLength() says what must fit
 *   }
 * }</pre>
 * The send buffer must be able to hold {@link #maxFpduLength()} bytes when empty. Nothing is
 * allocated per message or per FPDU: the encoder keeps one {@link CRC32C} and a view of the last
 * send buffer it saw.
 */
public final class FpduEncoder
{
    /**
     * Segments of a message cut in several are a multiple of this many bytes where the bound
     * allows: no pad, and each one's payload starts as aligned in the target as the message does.
     */
    private static final int SEGMENT_ALIGNMENT = 8;

    private final boolean crcEnabled;
    private final int maxFpduLength;
    private final int maxUlpduLength;
    private final CRC32C crc = new CRC32C();

    private int terminateMsn = 1;

    private OutboundMessage message;
    /** The current message's payload is written from where it is ({@link #encode(FpduWrite)}). */
    private boolean gathered;
    private int opcode;
    private int headerLength;
    private long total;
    private long done;
    private int pieceIndex;
    private long pieceOffset;

    private ByteBuffer cachedBuffer;
    private MemorySegment cachedSegment;
    private ByteBuffer crcView;

    /** An encoder whose FPDUs fit in {@link Fpdu#DEFAULT_MAX_FPDU_LENGTH} (64 KiB). */
    public FpduEncoder(final boolean crcEnabled)
    {
        this(crcEnabled, Fpdu.DEFAULT_MAX_FPDU_LENGTH);
    }

    /**
     * @param crcEnabled    whether the MPA handshake agreed on CRC ({@link Mpa#crcInUse})
     * @param maxFpduLength the most bytes one FPDU may take on the wire, for example 65536, or
     *                      the TCP MSS (1448) to keep one FPDU per TCP segment as siw does
     * @throws IllegalArgumentException if below {@link Fpdu#MIN_MAX_FPDU_LENGTH}
     */
    public FpduEncoder(final boolean crcEnabled, final int maxFpduLength)
    {
        this.crcEnabled = crcEnabled;
        this.maxUlpduLength = Fpdu.maxUlpduLength(maxFpduLength);
        this.maxFpduLength = maxFpduLength;
    }

    public boolean crcEnabled()
    {
        return crcEnabled;
    }

    /** The bound on FPDU length given at construction. */
    public int maxFpduLength()
    {
        return maxFpduLength;
    }

    /** The largest ULPDU this encoder writes. */
    public int maxUlpduLength()
    {
        return maxUlpduLength;
    }

    /** The largest payload one segment of a message with this opcode carries (0 for a Read Request). */
    public int maxSegmentPayload(final int opcode)
    {
        final int header = DdpRdmap.headerLength(opcode);
        if (header < 0 || !isSendable(opcode))
        {
            throw new IllegalArgumentException("not an opcode this side sends: " + RdmapOpcode.name(opcode));
        }
        return opcode == RdmapOpcode.RDMA_READ_REQUEST ? 0 : maxUlpduLength - header;
    }

    /** Whether a message is being encoded ({@link #begin} was called and not all of it is written). */
    public boolean inProgress()
    {
        return message != null;
    }

    /** The MSN the next Terminate will carry on queue 2 (from 1). */
    public int nextTerminateMsn()
    {
        return terminateMsn;
    }

    /**
     * Starts encoding a message. The message must stay unchanged until {@link #encode} returned
     * true for it.
     *
     * @throws IllegalStateException    if the previous message is not fully encoded
     * @throws IllegalArgumentException for an opcode this side does not send (Terminate, Send
     *                                  with Invalidate, undefined ones), a Read Request with
     *                                  payload, a payload longer than 2^32 - 1 bytes, or gather
     *                                  pieces that do not add up to {@link OutboundMessage#payloadLength()}
     */
    public void begin(final OutboundMessage message)
    {
        if (this.message != null)
        {
            throw new IllegalStateException("previous message not fully encoded");
        }
        final int op = message.opcode();
        if (!isSendable(op))
        {
            throw new IllegalArgumentException("not an opcode this side sends: " + RdmapOpcode.name(op));
        }
        final long length = message.payloadLength();
        long sum = 0;
        for (int i = 0, n = message.payloadSegments(); i < n; i++)
        {
            sum += message.payloadLength(i);
        }
        if (length < 0 || length > 0xFFFF_FFFFL || sum != length)
        {
            throw new IllegalArgumentException("bad payload length " + length + " (pieces add up to " + sum + ")");
        }
        if (op == RdmapOpcode.RDMA_READ_REQUEST && length != 0)
        {
            throw new IllegalArgumentException("a Read Request carries no payload");
        }
        this.message = message;
        this.opcode = op;
        this.headerLength = DdpRdmap.headerLength(op);
        this.total = length;
        this.done = 0;
        this.pieceIndex = 0;
        this.pieceOffset = 0;
        boolean inPlace = length >= FpduWrite.GATHER_MIN;
        for (int i = 0, n = message.payloadSegments(); inPlace && i < n; i++)
        {
            inPlace = message.payloadMemory(i).isNative();
        }
        this.gathered = inPlace;
    }

    /** Bytes the next FPDU of the current message takes on the wire; 0 if no message is in progress. */
    public int nextFpduLength()
    {
        if (message == null)
        {
            return 0;
        }
        return Fpdu.fpduLength(headerLength + nextSegmentPayload());
    }

    /**
     * Writes as many whole FPDUs of the current message as fit between {@code dst}'s position and
     * limit, advancing the position past them.
     *
     * @return true when the message is completely written (or none was in progress); false when
     *     the buffer filled first (write it out, make room, call again)
     * @throws IllegalStateException if even an empty {@code dst} could not hold the next FPDU
     */
    public boolean encode(final ByteBuffer dst)
    {
        while (message != null)
        {
            final int need = nextFpduLength();
            if (dst.remaining() < need)
            {
                if (dst.capacity() < need)
                {
                    throw new IllegalStateException("send buffer of " + dst.capacity() + " bytes < FPDU of " + need);
                }
                return false;
            }
            writeSegment(dst);
        }
        return true;
    }

    /**
     * Appends as many whole FPDUs of the current message to {@code out} as fit, as
     * {@link #encode(ByteBuffer)} does into a buffer, except that the payload of a message of at
     * least {@link FpduWrite#GATHER_MIN} bytes in native memory is not copied: {@code out} refers
     * to it where it is, and the CRC is computed over it there.
     *
     * @return true when the message is completely appended (or none was in progress); false when
     *     {@code out} filled first (write it out, call again)
     * @throws IllegalStateException if even an empty {@code out} could not hold the next FPDU
     */
    public boolean encode(final FpduWrite out)
    {
        if (cachedBuffer != out.frame())
        {
            cachedBuffer = out.frame();
            cachedSegment = out.frameSegment;
            crcView = out.crcView;
        }
        while (message != null)
        {
            final int payload = nextSegmentPayload();
            final boolean gather = gathered;
            final int frameBytes = gather ? Fpdu.fpduLength(headerLength) : Fpdu.fpduLength(headerLength + payload);
            final int pieces = gather ? message.payloadSegments() : 0;
            if (!out.fits(frameBytes, gather ? payload : 0, pieces))
            {
                if (out.isEmpty())
                {
                    throw new IllegalStateException("send frame of " + out.frame().capacity() + " bytes < FPDU of "
                        + frameBytes);
                }
                return false;
            }
            if (gather)
            {
                writeGatheredSegment(out, payload);
            }
            else
            {
                writeSegment(out.frame());
            }
        }
        return true;
    }

    /** Bytes on the wire of the Terminate {@link #encodeTerminate} writes for {@code info}. */
    public static int terminateFpduLength(final TerminateInfo info)
    {
        return Fpdu.fpduLength(DdpRdmap.terminateLength(info));
    }

    /**
     * Writes a Terminate (queue 2, the next terminate MSN, MO 0, L set) at {@code dst}'s position.
     * Independent of any message in progress: the caller decides where it goes in the stream
     * (after the messages already posted, per {@code Channel.terminate}).
     *
     * @return false, writing nothing, if it does not fit before the limit
     */
    public boolean encodeTerminate(final FpduWrite out, final TerminateInfo info)
    {
        if (cachedBuffer != out.frame())
        {
            cachedBuffer = out.frame();
            cachedSegment = out.frameSegment;
            crcView = out.crcView;
        }
        return encodeTerminate(out.frame(), info);
    }

    /** Writes a Terminate into a buffer, as {@link #encodeTerminate(FpduWrite, TerminateInfo)}. */
    public boolean encodeTerminate(final ByteBuffer dst, final TerminateInfo info)
    {
        final int ulpduLength = DdpRdmap.terminateLength(info);
        final int fpduLength = Fpdu.fpduLength(ulpduLength);
        if (dst.remaining() < fpduLength)
        {
            return false;
        }
        prepare(dst);
        final int fpdu = dst.position();
        final int segment = fpdu + Fpdu.ULPDU_OFFSET;
        Fpdu.putUlpduLength(dst, fpdu, ulpduLength);
        DdpRdmap.putUntaggedHeader(dst, segment, RdmapOpcode.TERMINATE, true, DdpRdmap.QN_TERMINATE, terminateMsn, 0);
        DdpRdmap.putTerminate(dst, segment, info);
        finish(dst, fpdu, ulpduLength);
        terminateMsn++;
        return true;
    }

    private static boolean isSendable(final int opcode)
    {
        return opcode == RdmapOpcode.SEND || opcode == RdmapOpcode.SEND_WITH_SE || opcode == RdmapOpcode.RDMA_WRITE
            || opcode == RdmapOpcode.RDMA_READ_REQUEST || opcode == RdmapOpcode.RDMA_READ_RESPONSE;
    }

    /**
     * The payload of the next segment: all that is left when it fits one; otherwise an even share
     * of it over the fewest segments that can carry it, rounded up to {@link #SEGMENT_ALIGNMENT}
     * while that still fits, so that no short segment trails full ones (65,536 bytes of RDMA Write
     * under a 64 KiB bound go as 32,768 and 32,768, not 65,516 and 20).
     */
    private int nextSegmentPayload()
    {
        final long rest = total - done;
        final int max = maxUlpduLength - headerLength;
        if (rest <= max)
        {
            return (int) rest;
        }
        final long segments = (rest + max - 1) / max;
        final long even = (rest + segments - 1) / segments;
        final long rounded = (even + SEGMENT_ALIGNMENT - 1) & -SEGMENT_ALIGNMENT;
        return (int) (rounded <= max ? rounded : even);
    }

    private void writeSegment(final ByteBuffer dst)
    {
        prepare(dst);
        final int payload = nextSegmentPayload();
        final boolean last = done + payload == total;
        final int ulpduLength = headerLength + payload;
        final int fpdu = dst.position();
        final int segment = fpdu + Fpdu.ULPDU_OFFSET;
        Fpdu.putUlpduLength(dst, fpdu, ulpduLength);
        switch (opcode)
        {
            case RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE ->
                DdpRdmap.putTaggedHeader(dst, segment, opcode, last, message.stag(), message.to() + done);
            case RdmapOpcode.RDMA_READ_REQUEST ->
            {
                DdpRdmap.putUntaggedHeader(dst, segment, opcode, true, DdpRdmap.QN_READ_REQUEST, message.msn(), 0);
                DdpRdmap.putReadRequest(dst, segment, message.stag(), message.to(), message.readSize(),
                    message.srcStag(), message.srcTo());
            }
            default -> DdpRdmap.putUntaggedHeader(dst, segment, opcode, last, DdpRdmap.QN_SEND, message.msn(),
                (int) done);
        }
        copyPayload(segment + headerLength, payload);
        finish(dst, fpdu, ulpduLength);
        done += payload;
        if (last)
        {
            message = null;
        }
    }

    /**
     * One FPDU whose payload stays where it is: the length and headers into the frame, the
     * payload pieces as references, then pad and CRC into the frame.
     */
    private void writeGatheredSegment(final FpduWrite out, final int payload)
    {
        final ByteBuffer dst = out.frame();
        prepare(dst);
        final boolean last = done + payload == total;
        final int ulpduLength = headerLength + payload;
        final int fpdu = dst.position();
        final int segment = fpdu + Fpdu.ULPDU_OFFSET;
        Fpdu.putUlpduLength(dst, fpdu, ulpduLength);
        switch (opcode)
        {
            case RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE ->
                DdpRdmap.putTaggedHeader(dst, segment, opcode, last, message.stag(), message.to() + done);
            default -> DdpRdmap.putUntaggedHeader(dst, segment, opcode, last, DdpRdmap.QN_SEND, message.msn(),
                (int) done);
        }
        final int headerEnd = segment + headerLength;
        if (crcEnabled)
        {
            crc.reset();
            crcView.limit(headerEnd).position(fpdu);
            crc.update(crcView);
        }
        dst.position(headerEnd);
        int placed = 0;
        while (placed < payload)
        {
            final long available = message.payloadLength(pieceIndex) - pieceOffset;
            if (available == 0)
            {
                pieceIndex++;
                pieceOffset = 0;
                continue;
            }
            final int n = (int) Math.min(available, payload - placed);
            final ByteBuffer piece = out.payload(message.payloadMemory(pieceIndex),
                message.payloadOffset(pieceIndex) + pieceOffset, n);
            if (crcEnabled)
            {
                final int at = piece.position();
                crc.update(piece);
                piece.position(at);
            }
            pieceOffset += n;
            placed += n;
        }
        final int pad = Fpdu.padLength(ulpduLength);
        final int trailer = dst.position();
        Wire.putZeros(dst, trailer, pad);
        if (crcEnabled)
        {
            crcView.limit(trailer + pad).position(trailer);
            crc.update(crcView);
        }
        Wire.putIntLittleEndian(dst, trailer + pad, crcEnabled ? (int) crc.getValue() : 0);
        dst.position(trailer + pad + Fpdu.CRC_LENGTH);
        done += payload;
        if (last)
        {
            message = null;
        }
    }

    /** Copies the next {@code length} bytes of the gather list to {@code dstIndex} of the send buffer. */
    private void copyPayload(final int dstIndex, final int length)
    {
        int written = 0;
        while (written < length)
        {
            final long available = message.payloadLength(pieceIndex) - pieceOffset;
            if (available == 0)
            {
                pieceIndex++;
                pieceOffset = 0;
                continue;
            }
            final int n = (int) Math.min(available, length - written);
            MemorySegment.copy(message.payloadMemory(pieceIndex), message.payloadOffset(pieceIndex) + pieceOffset,
                cachedSegment, dstIndex + written, n);
            pieceOffset += n;
            written += n;
        }
    }

    /** Writes pad and CRC of the FPDU at {@code fpdu} and moves the position past it. */
    private void finish(final ByteBuffer dst, final int fpdu, final int ulpduLength)
    {
        Wire.putZeros(dst, fpdu + Fpdu.ULPDU_OFFSET + ulpduLength, Fpdu.padLength(ulpduLength));
        final int value = crcEnabled ? Fpdu.computeCrc(crc, crcView, fpdu, ulpduLength) : 0;
        Fpdu.putCrc(dst, fpdu, ulpduLength, value);
        dst.position(fpdu + Fpdu.fpduLength(ulpduLength));
    }

    /** Keeps a whole-buffer memory segment and a CRC view of the send buffer, made once per buffer. */
    private void prepare(final ByteBuffer dst)
    {
        if (dst != cachedBuffer)
        {
            cachedSegment = MemorySegment.ofBuffer(dst.duplicate().clear());
            crcView = dst.duplicate();
            cachedBuffer = dst;
        }
    }
}

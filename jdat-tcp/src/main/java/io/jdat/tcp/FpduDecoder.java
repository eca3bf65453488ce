package io.jdat.tcp;

import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TaggedTarget;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Reads the FPDUs of one connection from a receive buffer and hands each DDP segment to the
 * engine's {@link ChannelHandler}. One decoder per connection; not thread-safe.
 *
 * <p>An FPDU is handled only once all of it is in the buffer, and it is checked completely before
 * anything of it is delivered (a reader that places large payload straight from the socket,
 * {@link #placeDirect}, places it before the CRC can be checked, but nothing of it is delivered
 * before the CRC matched), in this order:
 * <ol>
 *   <li>CRC, when the handshake agreed on it: LLP error, code 2 (CRC error);</li>
 *   <li>ULPDU_Length of at least the two control bytes: LLP error, code 3 (FPDU start);</li>
 *   <li>DDP version 1: DDP tagged (code 4) or untagged (code 6) buffer error, "invalid version";</li>
 *   <li>RDMAP version 1: RDMAP remote operation error, code 5 (invalid version);</li>
 *   <li>an opcode DAT 1.2 receives (Write, Read Request, Read Response, Send, Send with SE,
 *       Terminate): RDMAP remote operation error, code 6 (unexpected opcode), also for the Send
 *       with Invalidate opcodes 4 and 6;</li>
 *   <li>T bit matching the opcode's buffer model: RDMAP remote operation error, code 6;</li>
 *   <li>ULPDU_Length of at least the opcode's whole header (so a short length never underflows
 *       into a huge payload): LLP error, code 3;</li>
 *   <li>queue number 0 for the Send family, 1 for a Read Request, 2 for a Terminate: DDP
 *       untagged buffer error, code 1 (invalid QN);</li>
 *   <li>a Read Request is one whole segment: MO 0 (else DDP untagged code 4, invalid MO), L set
 *       and exactly 46 bytes (else DDP untagged code 5, message too long).</li>
 * </ol>
 * A Terminate that passes these is delivered without looking at its MSN, MO or L: the
 * connection ends either way.
 * The Terminate for a failed check names the offending segment's header when it could be read
 * (not for CRC, length, version and undefined-opcode errors, whose header cannot be trusted or
 * has no known layout). MSN, MO, STag, bounds and privileges are the engine's to check.
 *
 * <p>A segment's payload is passed as {@code src, off, len}: {@code src} is a memory segment over
 * the whole receive buffer (index 0 to its capacity) and {@code off} an index in it, so nothing is
 * copied. It is valid only during the call, as the SPI says.
 *
 * <p>Driving it (the socket reader), with a receive buffer of at least
 * {@link Fpdu#MAX_FPDU_LENGTH} bytes (the peer may send any ULPDU_Length up to 65535):
 * <pre>{@code
 *   read from the socket into buffer; buffer.flip();
 *   Status s = decoder.decode(buffer, handler);   // delivers every complete FPDU
 *   buffer.compact();
 *   switch (s) { NEED_MORE: read again; PROTOCOL_ERROR: send decoder.terminateInfo(), close;
 *                TERMINATE_RECEIVED, HANDLER_STOPPED: close }
 * }</pre>
 * After any status but {@link Status#NEED_MORE} the decoder delivers nothing more: every later
 * call returns the same status. It never throws for any input bytes (exceptions thrown by the
 * handler pass through), and allocates nothing per FPDU: the memory segment and CRC view of the
 * receive buffer are made once per buffer.
 */
public final class FpduDecoder
{
    /** The outcome of {@link #decode}. */
    public enum Status
    {
        /** Every complete FPDU was delivered; what is left (position to limit) is the start of the next one. */
        NEED_MORE,
        /** The handler returned false for the FPDU before the position; nothing more is delivered. */
        HANDLER_STOPPED,
        /**
         * The FPDU at the position broke the protocol: nothing of it was delivered; send
         * {@link #terminateInfo()} and close.
         */
        PROTOCOL_ERROR,
        /** The peer's Terminate (before the position) went to {@link ChannelHandler#onTerminate}; close. */
        TERMINATE_RECEIVED
    }

    private static final TerminateInfo CRC_ERROR =
        TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_CRC_ERROR);
    private static final TerminateInfo FPDU_LENGTH_ERROR =
        TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_FPDU_MARKER_MISMATCH);
    private static final TerminateInfo RDMAP_VERSION_ERROR = TerminateInfo.of(TerminateCodes.LAYER_RDMAP,
        TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_INVALID_VERSION);
    private static final TerminateInfo UNDEFINED_OPCODE_ERROR = TerminateInfo.of(TerminateCodes.LAYER_RDMAP,
        TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_UNEXPECTED_OPCODE);

    private final boolean crcEnabled;
    private final CRC32C crc = new CRC32C();

    private Status state = Status.NEED_MORE;
    private TerminateInfo error;
    private TerminateInfo received;
    private int bytesNeeded = Fpdu.LENGTH_FIELD_LENGTH;
    /** Pad and CRC of an FPDU whose payload was placed directly ({@link #placeDirect}), still to skip. */
    private int skip;
    /**
     * A segment placed directly that the engine completes once its payload is in (and, with CRC,
     * checked): {@link #READ_RESPONSE} ({@code onReadResponse}), {@link #SEND} ({@code onSend}),
     * or 0 (none, or an RDMA Write, which has nothing to complete).
     */
    private int toComplete;
    private static final int READ_RESPONSE = 1;
    private static final int SEND = 2;
    private int placedStag;
    private long placedTo;
    private int placedMsn;
    private int placedMo;
    private boolean placedLast;
    private boolean placedSolicited;
    private int placedLength;

    private ByteBuffer cachedBuffer;
    private MemorySegment cachedSegment;
    private ByteBuffer crcView;

    /**
     * @param crcEnabled whether the MPA handshake agreed on CRC ({@link Mpa#crcInUse}); when
     *                   false the CRC field is skipped unchecked
     */
    public FpduDecoder(final boolean crcEnabled)
    {
        this.crcEnabled = crcEnabled;
    }

    public boolean crcEnabled()
    {
        return crcEnabled;
    }

    /** The state the last {@link #decode} ended in. */
    public Status status()
    {
        return state;
    }

    /** After {@link Status#PROTOCOL_ERROR}: the Terminate to send to the peer; null before. */
    public TerminateInfo terminateInfo()
    {
        return error;
    }

    /** After {@link Status#TERMINATE_RECEIVED}: what the peer sent; null before. */
    public TerminateInfo receivedTerminate()
    {
        return received;
    }

    /**
     * After {@link Status#NEED_MORE}: how many bytes from the position the next FPDU needs in
     * all (2 while its length is not known yet, at most {@link Fpdu#MAX_FPDU_LENGTH}).
     */
    public int bytesNeeded()
    {
        return bytesNeeded;
    }

    /**
     * Delivers every complete FPDU between {@code src}'s position and limit, advancing the
     * position past each one delivered.
     */
    public Status decode(final ByteBuffer src, final ChannelHandler handler)
    {
        if (state != Status.NEED_MORE)
        {
            return state;
        }
        prepare(src);
        if (skip > 0 && crcEnabled)
        {
            if (src.remaining() < skip)
            {
                // the FPDU's pad and CRC are checked together
                bytesNeeded = skip;
                return Status.NEED_MORE;
            }
            if (!placedCrcMatches(src))
            {
                toComplete = 0;
                error = CRC_ERROR;
                state = Status.PROTOCOL_ERROR;
                return state;
            }
        }
        if (toComplete != 0)
        {
            // the reader placed the payload of a Read Response or Send segment: the engine completes it
            final boolean response = toComplete == READ_RESPONSE;
            toComplete = 0;
            if (response ? !handler.onReadResponse(placedStag, placedTo, placedLast, null, 0, placedLength)
                : !handler.onSend(placedMsn, placedMo, placedLast, placedSolicited, null, 0, placedLength))
            {
                state = Status.HANDLER_STOPPED;
                return state;
            }
        }
        if (skip > 0)
        {
            final int n = Math.min(skip, src.remaining());
            src.position(src.position() + n);
            skip -= n;
            if (skip > 0)
            {
                bytesNeeded = skip;
                return Status.NEED_MORE;
            }
        }
        while (true)
        {
            final int fpdu = src.position();
            final int available = src.limit() - fpdu;
            if (available < Fpdu.LENGTH_FIELD_LENGTH)
            {
                bytesNeeded = Fpdu.LENGTH_FIELD_LENGTH;
                return Status.NEED_MORE;
            }
            final int ulpduLength = Fpdu.ulpduLength(src, fpdu);
            final int fpduLength = Fpdu.fpduLength(ulpduLength);
            if (available < fpduLength)
            {
                bytesNeeded = fpduLength;
                return Status.NEED_MORE;
            }
            final TerminateInfo violation = check(src, fpdu, ulpduLength, crcEnabled);
            if (violation != null)
            {
                error = violation;
                state = Status.PROTOCOL_ERROR;
                return state;
            }
            src.position(fpdu + fpduLength);
            final Status outcome = deliver(src, fpdu + Fpdu.ULPDU_OFFSET, ulpduLength, handler);
            if (outcome != Status.NEED_MORE)
            {
                state = outcome;
                return state;
            }
        }
    }

    /**
     * The end of an FPDU whose payload was placed directly, with CRC, all of its pad and CRC at
     * {@code src}'s position: adds the pad to the CRC taken over the header and the placed payload
     * and compares; if they match, moves past them. A mismatch is a protocol error (LLP, CRC error):
     * the segment is not completed, and the connection ends.
     */
    private boolean placedCrcMatches(final ByteBuffer src)
    {
        final int at = src.position();
        final int pad = skip - Fpdu.CRC_LENGTH;
        crcView.clear().position(at).limit(at + pad);
        crc.update(crcView);
        if ((int) crc.getValue() != Wire.getIntLittleEndian(src, at + pad))
        {
            return false;
        }
        src.position(at + skip);
        skip = 0;
        return true;
    }

    /**
     * With CRC, while a payload is placed directly: the reader put the bytes from {@code from} to
     * {@code into}'s position into the payload's memory; they join the FPDU's CRC at once, while
     * they are still in the cache. Without CRC this does nothing.
     */
    public void placed(final ByteBuffer into, final int from)
    {
        if (!crcEnabled)
        {
            return;
        }
        final int end = into.position();
        final int limit = into.limit();
        into.limit(end).position(from);
        crc.update(into);
        into.limit(limit);
    }

    /**
     * Whether the decoder is inside an FPDU: one whose payload is being placed directly, or whose
     * pad and CRC are still to come.
     */
    public boolean insideFpdu()
    {
        return skip > 0 || toComplete != 0;
    }

    /**
     * Direct placement of payload (RDMA Write, Read Response, Send), for a reader that can move
     * bytes from the socket straight into memory. Call after {@link #decode} returned
     * {@link Status#NEED_MORE} with {@code src} as it left it. If the incomplete FPDU at the
     * position is an RDMA Write, Read Response or Send whose header is all there and passes every
     * check {@code decode} makes, with at least {@code minRest} payload bytes still to come or
     * already in {@code src} (which would otherwise wait there for the rest, moved to the front of
     * the buffer, and be copied again once it came), and
     * the handler ({@link ChannelHandler#writeTarget}, {@link ChannelHandler#readResponseTarget},
     * {@link ChannelHandler#sendTarget}) gives a target for its whole payload: copies the payload
     * bytes already in {@code src} there, moves the position to the limit, advances
     * {@code target.offset} past them, and returns how many payload bytes are still to come; the
     * caller reads exactly those into {@code target} and then goes on with {@code decode}, which
     * first completes a Read Response or Send segment ({@code onReadResponse} or {@code onSend}
     * with a null {@code src}) and skips the FPDU's pad and CRC.
     * Otherwise returns 0 and changes nothing: the FPDU is decoded once complete, as always.
     *
     * <p>With CRC, the payload is placed before the CRC can be checked (as Linux siw does): the CRC
     * is taken over the header and the payload bytes in {@code src} here, over each piece the
     * reader places as it lands ({@link #placed}), and over the pad when the FPDU's end arrives;
     * a mismatch is then a protocol error (LLP, CRC error) like any other: nothing of the segment
     * is delivered (a Read Response or Send segment is not completed), the connection ends with a
     * Terminate, and the bytes already placed stay where they are. They lie inside memory the
     * engine checked for this STag, range and right before the first of them was placed, memory
     * the peer may write anyway, or inside the receive buffer at the head of the receive queue,
     * which the broken connection then flushes ({@code ERR_FLUSHED}, whose buffer contents DAT
     * leaves undefined); no completion ever reports them as good, and the stream they came on ends.
     */
    public int placeDirect(final ByteBuffer src, final ChannelHandler handler, final TaggedTarget target,
        final int minRest)
    {
        if (state != Status.NEED_MORE || skip > 0)
        {
            return 0;
        }
        final int fpdu = src.position();
        final int available = src.limit() - fpdu;
        if (available < Fpdu.ULPDU_OFFSET + DdpRdmap.TAGGED_HEADER_LENGTH)
        {
            return 0;
        }
        final int segment = fpdu + Fpdu.ULPDU_OFFSET;
        final int opcode = DdpRdmap.opcode(src, segment);
        final boolean send = opcode == RdmapOpcode.SEND || opcode == RdmapOpcode.SEND_WITH_SE;
        if (!send && opcode != RdmapOpcode.RDMA_WRITE && opcode != RdmapOpcode.RDMA_READ_RESPONSE)
        {
            return 0;
        }
        final int headerLength = DdpRdmap.headerLength(opcode);
        final int headerEnd = Fpdu.ULPDU_OFFSET + headerLength;
        if (available < headerEnd)
        {
            return 0;
        }
        final int ulpduLength = Fpdu.ulpduLength(src, fpdu);
        final int payloadLength = ulpduLength - headerLength;
        final int present = available - headerEnd;
        final int rest = payloadLength - present;
        if (rest <= 0 || (rest < minRest && present < minRest) || check(src, fpdu, ulpduLength, false) != null)
        {
            return 0;
        }
        prepare(src);
        final boolean last = DdpRdmap.isLast(src, segment);
        final boolean response = opcode == RdmapOpcode.RDMA_READ_RESPONSE;
        final boolean targeted;
        if (send)
        {
            placedMsn = DdpRdmap.msn(src, segment);
            placedMo = DdpRdmap.mo(src, segment);
            targeted = handler.sendTarget(placedMsn, placedMo, payloadLength, target);
        }
        else
        {
            placedStag = DdpRdmap.stag(src, segment);
            placedTo = DdpRdmap.taggedOffset(src, segment);
            targeted = response ? handler.readResponseTarget(placedStag, placedTo, last, payloadLength, target)
                : handler.writeTarget(placedStag, placedTo, payloadLength, target);
        }
        if (!targeted)
        {
            return 0;
        }
        if (crcEnabled)
        {
            // the CRC starts with the length field, the header and the payload bytes already here
            crcView.clear().position(fpdu).limit(fpdu + headerEnd + present);
            crc.reset();
            crc.update(crcView);
        }
        try
        {
            MemorySegment.copy(cachedSegment, fpdu + headerEnd, target.memory, target.offset, present);
        }
        catch (final RuntimeException e)
        {
            // the memory went away meanwhile: onWrite or onReadResponse fails the segment
            return 0;
        }
        target.offset += present;
        src.position(src.limit());
        if (response || send)
        {
            toComplete = response ? READ_RESPONSE : SEND;
            placedLast = last;
            placedSolicited = opcode == RdmapOpcode.SEND_WITH_SE;
            placedLength = payloadLength;
        }
        skip = Fpdu.padLength(ulpduLength) + Fpdu.CRC_LENGTH;
        return rest;
    }

    /** Every check of one FPDU (the CRC only if {@code withCrc}: the FPDU is complete); null if it may be delivered. */
    private TerminateInfo check(final ByteBuffer src, final int fpdu, final int ulpduLength, final boolean withCrc)
    {
        if (withCrc && Fpdu.computeCrc(crc, crcView, fpdu, ulpduLength) != Fpdu.getCrc(src, fpdu, ulpduLength))
        {
            return CRC_ERROR;
        }
        if (ulpduLength < DdpRdmap.RDMAP_CONTROL_OFFSET + 1)
        {
            return FPDU_LENGTH_ERROR;
        }
        final int segment = fpdu + Fpdu.ULPDU_OFFSET;
        final boolean tagged = DdpRdmap.isTagged(src, segment);
        if (DdpRdmap.ddpVersion(src, segment) != DdpRdmap.DDP_VERSION)
        {
            return DdpRdmap.ddpVersionError(tagged);
        }
        if (DdpRdmap.rdmapVersion(src, segment) != DdpRdmap.RDMAP_VERSION)
        {
            return RDMAP_VERSION_ERROR;
        }
        final int opcode = DdpRdmap.opcode(src, segment);
        final int headerLength = DdpRdmap.headerLength(opcode);
        if (headerLength < 0)
        {
            return UNDEFINED_OPCODE_ERROR;
        }
        if (opcode == RdmapOpcode.SEND_WITH_INVALIDATE || opcode == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE
            || tagged != DdpRdmap.isTaggedOpcode(opcode))
        {
            return DdpRdmap.terminateFor(src, segment, ulpduLength, TerminateCodes.LAYER_RDMAP,
                TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_UNEXPECTED_OPCODE);
        }
        if (ulpduLength < headerLength)
        {
            return FPDU_LENGTH_ERROR;
        }
        if (tagged)
        {
            return null;
        }
        if (DdpRdmap.queueNumber(src, segment) != DdpRdmap.queueNumber(opcode))
        {
            return untaggedError(src, segment, TerminateCodes.DDP_UNTAGGED_INVALID_QN);
        }
        if (opcode == RdmapOpcode.RDMA_READ_REQUEST)
        {
            if (DdpRdmap.mo(src, segment) != 0)
            {
                return untaggedError(src, segment, TerminateCodes.DDP_UNTAGGED_INVALID_MO);
            }
            if (!DdpRdmap.isLast(src, segment) || ulpduLength != DdpRdmap.READ_REQUEST_LENGTH)
            {
                return untaggedError(src, segment, TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG);
            }
        }
        return null;
    }

    private static TerminateInfo untaggedError(final ByteBuffer src, final int segment, final int code)
    {
        return TerminateInfo.untagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER, code,
            DdpRdmap.opcode(src, segment), DdpRdmap.queueNumber(src, segment), DdpRdmap.msn(src, segment),
            DdpRdmap.mo(src, segment));
    }

    /** Hands one checked segment to the handler. */
    private Status deliver(final ByteBuffer src, final int segment, final int ulpduLength, final ChannelHandler handler)
    {
        final int opcode = DdpRdmap.opcode(src, segment);
        final boolean last = DdpRdmap.isLast(src, segment);
        final int payload = segment + DdpRdmap.headerLength(opcode);
        final int payloadLength = ulpduLength - DdpRdmap.headerLength(opcode);
        final boolean accepted = switch (opcode)
        {
            case RdmapOpcode.RDMA_WRITE -> handler.onWrite(DdpRdmap.stag(src, segment),
                DdpRdmap.taggedOffset(src, segment), last, cachedSegment, payload, payloadLength);
            case RdmapOpcode.RDMA_READ_RESPONSE -> handler.onReadResponse(DdpRdmap.stag(src, segment),
                DdpRdmap.taggedOffset(src, segment), last, cachedSegment, payload, payloadLength);
            case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE -> handler.onSend(DdpRdmap.msn(src, segment),
                DdpRdmap.mo(src, segment), last, opcode == RdmapOpcode.SEND_WITH_SE, cachedSegment, payload,
                payloadLength);
            case RdmapOpcode.RDMA_READ_REQUEST -> handler.onReadRequest(DdpRdmap.msn(src, segment),
                DdpRdmap.readSinkStag(src, segment), DdpRdmap.readSinkTo(src, segment),
                DdpRdmap.readSize(src, segment), DdpRdmap.readSourceStag(src, segment),
                DdpRdmap.readSourceTo(src, segment));
            default ->
            {
                received = DdpRdmap.readTerminate(src, segment, ulpduLength);
                handler.onTerminate(received);
                yield true;
            }
        };
        if (opcode == RdmapOpcode.TERMINATE)
        {
            return Status.TERMINATE_RECEIVED;
        }
        return accepted ? Status.NEED_MORE : Status.HANDLER_STOPPED;
    }

    /** Keeps a whole-buffer memory segment and a CRC view of the receive buffer, made once per buffer. */
    private void prepare(final ByteBuffer src)
    {
        if (src != cachedBuffer)
        {
            cachedSegment = MemorySegment.ofBuffer(src.duplicate().clear());
            crcView = src.duplicate();
            cachedBuffer = src;
        }
    }
}

package io.jdat.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.IdentityHashMap;

/**
 * One gathering write of whole FPDUs ({@link FpduEncoder#encode(FpduWrite)}): the bytes the
 * encoder makes (MPA length, DDP and RDMAP headers, pad, CRC, and the payload of small messages)
 * go into a frame buffer of its own; the payload of a large message stays in the memory it was
 * posted from and is written from there. The pieces, in stream order:
 * <pre>
 *   frame[len hdr] payload frame[pad crc len hdr] payload frame[pad crc] ...
 * </pre>
 * so a message of any size leaves in one {@code writev} without being copied in user space.
 *
 * <p>Nothing is allocated per write or per FPDU once the write has seen its payload memory: the
 * frame pieces are views of the frame made once, the payload pieces views of each payload memory
 * segment, kept for the {@value #MAX_MEMORIES} segments seen last. One writer thread at a time;
 * the memory a payload piece refers to must stay unchanged until the write has taken it.
 */
public final class FpduWrite
{
    /** Payloads at least this long are referenced in place; shorter ones are copied into the frame. */
    public static final int GATHER_MIN = 4096;
    /** The most pieces one write carries (Linux's IOV_MAX is 1024). */
    static final int MAX_PIECES = 512;
    /** Payload memory segments whose views are kept. */
    private static final int MAX_MEMORIES = 16;

    private final ByteBuffer frame;
    /** The frame as a memory segment and a second view for checksumming, made once for the encoder. */
    final MemorySegment frameSegment;
    final ByteBuffer crcView;
    private final int maxBytes;
    private final ByteBuffer[] frameViews = new ByteBuffer[MAX_PIECES];
    private final ByteBuffer[] pieces = new ByteBuffer[MAX_PIECES];
    private final IdentityHashMap<MemorySegment, Views> views = new IdentityHashMap<>();
    /** The values of {@link #views}, reset by {@link #clear} without an iterator. */
    private final Views[] viewList = new Views[MAX_MEMORIES];
    private int count;
    private int frameViewsUsed;
    /** Start in the frame of the frame bytes not yet made a piece. */
    private int openFrom;
    /** Bytes in the pieces, the open frame bytes included, and how many of them were written. */
    private long bytes;
    private long written;

    /**
     * @param frameBytes the frame buffer's size: at least one whole FPDU of the largest length a
     *                   small message takes
     * @param maxBytes   the most bytes, frame and payload, one write carries (at least one FPDU)
     */
    public FpduWrite(final int frameBytes, final int maxBytes)
    {
        this.frame = ByteBuffer.allocateDirect(frameBytes);
        this.frameSegment = MemorySegment.ofBuffer(frame);
        this.crcView = frame.duplicate();
        this.maxBytes = Math.max(maxBytes, frameBytes);
    }

    /** The frame: the encoder appends at its position. */
    ByteBuffer frame()
    {
        return frame;
    }

    /**
     * Whether {@code frameBytes} more frame bytes and {@code payloadBytes} of payload in {@code payloadPieces} pieces
     * fit.
     */
    boolean fits(final int frameBytes, final long payloadBytes, final int payloadPieces)
    {
        return frame.remaining() >= frameBytes && count + 2 * payloadPieces + 2 <= MAX_PIECES
            && (bytes + frameBytes + payloadBytes <= maxBytes || bytes == 0);
    }

    /** The frame bytes appended since the last piece ended become a piece. */
    void closeFrame()
    {
        final int end = frame.position();
        if (end > openFrom)
        {
            ByteBuffer v = frameViews[frameViewsUsed];
            if (v == null)
            {
                v = frame.duplicate();
                frameViews[frameViewsUsed] = v;
            }
            frameViewsUsed++;
            v.limit(end).position(openFrom);
            pieces[count++] = v;
            bytes += end - openFrom;
            openFrom = end;
        }
    }

    /**
     * Appends {@code length} bytes of {@code memory} at {@code offset} as a piece, after the frame
     * bytes before it; returns the piece (position at its start, limit at its end) so that the
     * caller can checksum it, leaving position and limit as they were.
     */
    ByteBuffer payload(final MemorySegment memory, final long offset, final int length)
    {
        closeFrame();
        final ByteBuffer v;
        if (memory.byteSize() > Integer.MAX_VALUE)
        {
            // a buffer view covers at most 2 GiB: view just this piece
            v = memory.asSlice(offset, length).asByteBuffer();
        }
        else
        {
            Views vs = views.get(memory);
            if (vs == null)
            {
                if (views.size() == MAX_MEMORIES)
                {
                    views.clear();
                    java.util.Arrays.fill(viewList, null);
                }
                vs = new Views(memory);
                viewList[views.size()] = vs;
                views.put(memory, vs);
            }
            v = vs.next();
            v.limit((int) (offset + length)).position((int) offset);
        }
        pieces[count++] = v;
        bytes += length;
        return v;
    }

    /** Nothing appended, or everything written. */
    public boolean isEmpty()
    {
        return bytes == written && frame.position() == openFrom;
    }

    /** Bytes appended and not yet written. */
    public long remaining()
    {
        return bytes + frame.position() - openFrom - written;
    }

    /**
     * Writes what the channel takes now; when all of it was taken, the write is empty again.
     *
     * @return the bytes written
     */
    public long writeTo(final GatheringByteChannel channel) throws IOException
    {
        closeFrame();
        int first = 0;
        while (first < count && !pieces[first].hasRemaining())
        {
            first++;
        }
        final long n = first == count ? 0
            // one piece (small messages): a plain write, cheaper than a gathering one
            : first == count - 1 ? channel.write(pieces[first]) : channel.write(pieces, first, count - first);
        written += n;
        if (written == bytes)
        {
            clear();
        }
        return n;
    }

    /** Forgets everything appended (the connection ended, or all of it was written). */
    public void clear()
    {
        for (int i = 0; i < count; i++)
        {
            pieces[i] = null;
        }
        count = 0;
        frameViewsUsed = 0;
        frame.clear();
        openFrom = 0;
        bytes = 0;
        written = 0;
        // an indexed loop: an iterator over the map's values would be an allocation per write
        for (int i = 0; i < viewList.length && viewList[i] != null; i++)
        {
            viewList[i].used = 0;
        }
    }

    /** Buffer views of one payload memory segment, one per piece of a write that refers to it. */
    private static final class Views
    {
        private final MemorySegment memory;
        private ByteBuffer[] all = new ByteBuffer[4];
        private int used;

        Views(final MemorySegment memory)
        {
            this.memory = memory;
        }

        ByteBuffer next()
        {
            if (used == all.length)
            {
                all = java.util.Arrays.copyOf(all, all.length * 2);
            }
            ByteBuffer v = all[used];
            if (v == null)
            {
                v = memory.asByteBuffer();
                all[used] = v;
            }
            used++;
            return v.clear();
        }
    }
}

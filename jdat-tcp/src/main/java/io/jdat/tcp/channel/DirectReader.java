package io.jdat.tcp.channel;

import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.PlacementClaim;
import io.jdat.engine.channel.TaggedTarget;
import io.jdat.tcp.DdpRdmap;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.FpduDecoder;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The reading side of one connection's socket, with direct placement: the payload of a large
 * RDMA Write, Read Response or Send segment whose header arrived and passed every check goes from
 * the socket straight into the registered memory the engine names ({@link FpduDecoder#placeDirect}:
 * the tagged target, or the receive buffer at the head of the receive queue), one scattering read
 * per segment that also takes the segment's pad and CRC and the next header into the receive
 * buffer. Every write into that memory happens inside the connection's {@link PlacementClaim}, so
 * none lands after the engine closed the connection and flushed its receives; a read that finds
 * the claim closed leaves the payload unread ({@link #abandoned}).
 * Everything else is read into the receive buffer and decoded there. With CRC, each piece of
 * payload joins the FPDU's CRC right after it landed ({@link FpduDecoder#placed}), and the decoder
 * compares once the FPDU's CRC field arrives. Under the port's progress lock.
 */
final class DirectReader
{
    /**
     * Payload goes straight from the socket into its memory when at least this much of it is
     * still to come, or already in the receive buffer (below, one more read costs more than the
     * copies it saves: the rest through the buffer, the part there moved to its front).
     */
    private static final int DIRECT_MIN = 8192;
    /** What is read after a directly placed payload: its pad and CRC, and the next FPDU's header (up to a Send's). */
    private static final int TAIL = 3 + Fpdu.CRC_LENGTH + Fpdu.ULPDU_OFFSET + DdpRdmap.UNTAGGED_HEADER_LENGTH;
    private static final int HEADER = Fpdu.ULPDU_OFFSET + DdpRdmap.UNTAGGED_HEADER_LENGTH;

    private final SocketChannel sock;
    private final FpduDecoder decoder;
    private final ChannelHandler handler;
    private final PlacementClaim claim;
    /** The engine closed while a payload was being placed: the rest of the stream is not ours to place. */
    private boolean abandoned;
    /** Where the RDMA Write being placed goes, and the view the rest of its payload is read into. */
    private final TaggedTarget target = new TaggedTarget();
    private ByteBuffer direct;
    /** The last payload was placed directly: read the next header alone. */
    private boolean chained;
    /** A buffer view of the memory last placed into, kept while the target stays the same. */
    private MemorySegment viewed;
    private ByteBuffer view;
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    /** How many bytes the last read offered room for. */
    private long offered;

    /**
     * @param handler targets given by it are entered in {@code claim} before they are returned
     *                (the decoder copies the payload bytes it already has into them at once)
     */
    DirectReader(final SocketChannel sock, final FpduDecoder decoder, final ChannelHandler handler,
        final PlacementClaim claim)
    {
        this.sock = sock;
        this.decoder = decoder;
        this.handler = handler;
        this.claim = claim;
    }

    /** A read found the engine closed in the middle of a placed payload: read nothing more into memory. */
    boolean abandoned()
    {
        return abandoned;
    }

    /** A payload is being read straight into its memory. */
    boolean active()
    {
        return direct != null;
    }

    /**
     * Reads from the socket: into the payload being placed and then into {@code b}, or into
     * {@code b} alone. While a payload is being placed, {@code b} is empty and receives nothing
     * until the payload is complete.
     */
    long read(final ByteBuffer b) throws IOException
    {
        return direct != null ? readDirect(b) : readBuffered(b);
    }

    /**
     * Whether the last read returned {@code n} bytes with room for more: the socket held no more
     * at that moment, and another read now would most likely find nothing (a system call on the
     * path of every message). Readiness is level-triggered: bytes that come later are read on the
     * next poll or selection.
     */
    boolean drained(final long n)
    {
        return n < offered;
    }

    /** Reads into the receive buffer, no further than the next header right after a placed payload. */
    private long readBuffered(final ByteBuffer b) throws IOException
    {
        if (!chained)
        {
            offered = b.remaining();
            return sock.read(b);
        }
        // the last FPDU went straight into memory: read no further than the next one's header,
        // so that its payload can follow it there
        final int limit = b.limit();
        b.limit(Math.min(limit, b.position() + TAIL));
        offered = b.remaining();
        try
        {
            return sock.read(b);
        }
        finally
        {
            b.limit(limit);
        }
    }

    /** The rest of the payload into its memory and, in the same call, what follows into {@code b}. */
    private long readDirect(final ByteBuffer b) throws IOException
    {
        final ByteBuffer v = direct;
        if (!claim.enter())
        {
            // the engine closed and flushed: the memory is the consumer's again
            direct = null;
            abandoned = true;
            return 0;
        }
        b.limit(Math.min(b.capacity(), b.position() + TAIL));
        scatter[0] = v;
        scatter[1] = b;
        offered = (long) v.remaining() + b.remaining();
        final int from = v.position();
        try
        {
            final long n = sock.read(scatter);
            decoder.placed(v, from);
            return n;
        }
        finally
        {
            claim.exit();
            scatter[0] = null;
            scatter[1] = null;
            b.limit(b.capacity());
            if (!v.hasRemaining())
            {
                direct = null;
                chained = true;
            }
        }
    }

    /**
     * After decoding {@code b} (flipped, every complete FPDU delivered): if it ends in the header of
     * an RDMA Write or Read Response with enough payload still to come, and the engine says where the payload goes,
     * the rest of it will be read straight into that memory.
     */
    void start(final ByteBuffer b)
    {
        final int rest;
        try
        {
            rest = decoder.placeDirect(b, handler, target, DIRECT_MIN);
        }
        finally
        {
            // entered when the handler gave a target
            claim.exit();
        }
        if (rest == 0)
        {
            // go on reading headers alone only while the next one is not all there yet
            chained &= b.remaining() < HEADER || decoder.insideFpdu();
            return;
        }
        final MemorySegment m = target.memory;
        target.memory = null;
        if (m.byteSize() > Integer.MAX_VALUE)
        {
            // a buffer view covers at most 2 GiB: view just this payload
            direct = m.asSlice(target.offset, rest).asByteBuffer();
            return;
        }
        if (m != viewed)
        {
            viewed = m;
            view = m.asByteBuffer();
        }
        view.limit((int) (target.offset + rest)).position((int) target.offset);
        direct = view;
    }

    /** The connection ended: let go of the memory. */
    void clear()
    {
        direct = null;
        viewed = null;
        view = null;
    }
}

package io.jdat.shm;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;

/**
 * Writes one outbound message at a time into a connection's send ring ({@link ShmChannel}'s
 * progress rounds, under the port's progress lock): as records of at most {@code max_chunk}
 * payload bytes copied from the engine's registered memory, or, for a large enough RDMA Write or
 * Read Response whose bytes all lie in shared memory of this process, as direct records that name
 * that memory. A message may take several rounds (the ring fills up): this keeps how far it got.
 */
final class RecordWriter
{
    /** The most bytes one direct record names. */
    private static final int DIRECT_MAX = 1 << 30;

    private final ShmPort port;
    private final SpscRing tx;
    private final MemorySegment txData;
    private final int maxChunk;
    private final long directMin;
    /** How far the message being written got: bytes of it, gather piece, bytes of that piece. */
    private long msgDone;
    private int piece;
    private long pieceDone;
    /** The message being written travels as references to this process's shared memory. */
    private boolean direct;

    RecordWriter(final ShmPort port, final SpscRing tx)
    {
        this.port = port;
        this.tx = tx;
        this.txData = tx.data();
        this.maxChunk = port.transport.maxChunk;
        this.directMin = port.transport.directMin;
    }

    /** A new message (or a close or Terminate, which {@link #write} never sees) is about to be written. */
    void start(final Object m)
    {
        msgDone = 0;
        piece = 0;
        pieceDone = 0;
        direct = m instanceof OutboundMessage om && directable(om);
    }

    /** Writes (the rest of) one message; false if the ring filled up first. */
    boolean write(final OutboundMessage m)
    {
        final int op = m.opcode();
        if (op == RdmapOpcode.RDMA_READ_REQUEST)
        {
            final long at = tx.claim(Frame.HEADER);
            if (at < 0)
            {
                return false;
            }
            Frame.header(txData, at, op, Frame.FLAG_LAST);
            Frame.readRequest(txData, at, m.msn(), m.stag(), m.to(), m.readSize(), m.srcStag(), m.srcTo());
            tx.commit();
            return true;
        }
        if (direct)
        {
            return writeDirect(m);
        }
        final long total = m.payloadLength();
        final int header = Frame.headerLength(op, 0);
        do
        {
            final int chunk = (int) Math.min(total - msgDone, maxChunk);
            final long at = tx.claim(header + chunk);
            if (at < 0)
            {
                return false;
            }
            final boolean last = msgDone + chunk == total;
            Frame.header(txData, at, op, last ? Frame.FLAG_LAST : 0);
            switch (op)
            {
                case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE -> Frame.untagged(txData, at, m.msn(), (int) msgDone);
                case RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE -> Frame.tagged(txData, at, m.stag(),
                    m.to() + msgDone);
                default -> throw new IllegalArgumentException("opcode " + RdmapOpcode.name(op));
            }
            gather(m, at + header, chunk);
            tx.commit();
            msgDone += chunk;
        }
        while (msgDone < total);
        return true;
    }

    /**
     * Whether a Write or Read Response can travel as references: large enough, and every byte of
     * it in shared memory of this process under this provider root, which the peer can map.
     */
    private boolean directable(final OutboundMessage m)
    {
        final int op = m.opcode();
        if (directMin <= 0 || op != RdmapOpcode.RDMA_WRITE && op != RdmapOpcode.RDMA_READ_RESPONSE
            || m.payloadLength() < directMin)
        {
            return false;
        }
        return ShmMemory.holdsAll(port.transport.root, m);
    }

    /**
     * Writes (the rest of) a message as direct records, one per gather piece (or per
     * {@link #DIRECT_MAX} bytes of one): the peer's engine places each from this process's shared
     * memory, which stays as it is until the peer consumed the record (the DTO is not complete).
     */
    private boolean writeDirect(final OutboundMessage m)
    {
        final int op = m.opcode();
        final long total = m.payloadLength();
        while (msgDone < total)
        {
            final long left = m.payloadLength(piece) - pieceDone;
            if (left <= 0)
            {
                piece++;
                pieceDone = 0;
                continue;
            }
            final int n = (int) Math.min(left, DIRECT_MAX);
            final long address = m.payloadMemory(piece).address() + m.payloadOffset(piece) + pieceDone;
            final ShmMemory shared = ShmMemory.containing(port.transport.root, address, n);
            if (shared == null)
            {
                throw new IllegalStateException("shared memory of a message in flight was closed");
            }
            final long at = tx.claim(Frame.HEADER);
            if (at < 0)
            {
                return false;
            }
            final boolean last = msgDone + n == total;
            Frame.header(txData, at, op, Frame.FLAG_DIRECT | (last ? Frame.FLAG_LAST : 0));
            Frame.tagged(txData, at, m.stag(), m.to() + msgDone);
            Frame.direct(txData, at, shared.pid, shared.seq, n, shared.offsetOf(address));
            tx.commit();
            port.directSent += n;
            pieceDone += n;
            msgDone += n;
        }
        return true;
    }

    /** Copies the next {@code n} bytes of a message's gather list into the ring. */
    private void gather(final OutboundMessage m, final long to, final int n)
    {
        long done = 0;
        while (done < n)
        {
            if (piece >= m.payloadSegments())
            {
                throw new IllegalStateException("the message's pieces hold less than its length");
            }
            final long left = m.payloadLength(piece) - pieceDone;
            if (left <= 0)
            {
                piece++;
                pieceDone = 0;
                continue;
            }
            final long k = Math.min(left, n - done);
            MemorySegment.copy(m.payloadMemory(piece), m.payloadOffset(piece) + pieceDone, txData, to + done, k);
            pieceDone += k;
            done += k;
        }
    }
}

package io.jdat.shm;

import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The record format of the rings: one RDMAP message segment (or a control record) per record,
 * header first, payload after. Both ends run on one host, so fields are in native byte order.
 * The header is as long as its type needs ({@link #headerLength}), so that a small Send shares
 * its cache lines with as little header as possible: 16 bytes before a Send's payload (a 64-byte
 * Send's record is 80 bytes, two cache lines wherever it starts on a {@link SpscRing#ALIGN}
 * boundary), 32 before a Write's or Read Response's, 48 for the rest.
 * <pre>
 *    0       4   6   8       12      16              24      28      32              40      44   48
 *   +-------+---+---+-------+-------+---------------+-------+-------+---------------+-------+----+
 *   |length |typ|flg|  msn  |  mo   |      to       | stag  |srcStag|     srcTo     | term  |    |
 *   +-------+---+---+-------+-------+---------------+-------+-------+---------------+-------+----+
 *   |&lt;- Send: 16 -&gt;|
 *   |&lt;- RDMA Write, Read Response: payload at 32 -----&gt;|
 *   |&lt;- Read Request, Terminate, CLOSE, direct records, any other type: 48 -----------------&gt;|
 *   length  header + payload bytes (the record takes length rounded up to SpscRing.ALIGN)
 *   typ     (the low 16 bits of the int at 4) an RdmapOpcode (SEND, SEND_WITH_SE, RDMA_WRITE,
 *           RDMA_READ_REQUEST, RDMA_READ_RESPONSE, TERMINATE), or PAD (fills the end of the ring;
 *           only length and type are set), or CLOSE (graceful disconnect: nothing follows)
 *   flg     (the high 16 bits of the int at 4) bit 0 LAST: the last segment of its message; bit 1
 *           DIRECT (Write, Read Response): the payload is not in the record but in the sender's
 *           shared memory (ShmMemory), which the fields marked "direct" name; the record is then a
 *           header alone
 *   msn     Send, Read Request: the message sequence number; Terminate: the offending MSN;
 *           direct: the shared memory's creator (the file m-PID-SEQ)
 *   mo      Send: the message offset of the payload; Read Request: the bytes to read;
 *           Terminate: the offending MO; direct: the shared memory's sequence number
 *   to      Write, Read Response: the tagged offset of the first payload byte; Read Request: the
 *           sink TO; Terminate: the offending TO
 *   stag    Write, Read Response: the sink STag; Read Request: the requester's sink STag;
 *           Terminate: the offending STag
 *   srcStag Read Request: the data source STag; Terminate: hdrKnown | tagged &lt;&lt; 1 |
 *           opcode &lt;&lt; 8 | queue &lt;&lt; 16; direct: the payload's length
 *   srcTo   Read Request: the data source tagged offset; direct: the payload's offset in the
 *           shared memory
 *   term    Terminate: layer | etype &lt;&lt; 8 | code &lt;&lt; 16
 * </pre>
 * Type and flags share one int so that a reader takes a record's length, type and flags in two
 * loads; it reads each once (the peer may change the bytes under it).
 */
final class Frame
{
    static final int LENGTH = 0;
    /** Type (low 16 bits) and flags (high 16 bits) in one int. */
    static final int TYPE = 4;
    static final int MSN = 8;
    static final int MO = 12;
    static final int TO = 16;
    static final int STAG = 24;
    static final int SRC_STAG = 28;
    static final int SRC_TO = 32;
    static final int TERM = 40;
    /** The whole header: every type but the ones below. */
    static final int HEADER = 48;
    /** A Send's or Send with SE's header: through {@link #MO}. */
    static final int UNTAGGED_HEADER = 16;
    /** A ring-borne RDMA Write's or Read Response's header: through {@link #STAG}. */
    static final int TAGGED_HEADER = 32;

    static final int PAD = 0x100;
    static final int CLOSE = 0x101;

    static final int FLAG_LAST = 1;
    static final int FLAG_DIRECT = 2;

    private Frame()
    {
    }

    /** The header's length for a record of {@code type} with {@code flags}: where its payload starts. */
    static int headerLength(final int type, final int flags)
    {
        return switch (type)
        {
            case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE -> UNTAGGED_HEADER;
            case RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE -> (flags & FLAG_DIRECT) != 0 ? HEADER
                : TAGGED_HEADER;
            default -> HEADER;
        };
    }

    /**
     * The record's type and flags; its length is the word that publishes it, stored last by
     * {@link SpscRing#commit()}.
     */
    static void header(final MemorySegment d, final long at, final int type, final int flags)
    {
        d.set(ValueLayout.JAVA_INT, at + TYPE, typeWord(type, flags));
    }

    /** The int at {@link #TYPE}: the type in the low 16 bits, the flags in the high 16. */
    static int typeWord(final int type, final int flags)
    {
        return type & 0xFFFF | flags << 16;
    }

    /** The type of the int at {@link #TYPE}. */
    static int type(final int word)
    {
        return word & 0xFFFF;
    }

    /** The flags of the int at {@link #TYPE}. */
    static int flags(final int word)
    {
        return word >>> 16;
    }

    /** The type of the record at {@code at} (one load: for readers that need nothing else of the word). */
    static int typeAt(final MemorySegment d, final long at)
    {
        return type(d.get(ValueLayout.JAVA_INT, at + TYPE));
    }

    static void untagged(final MemorySegment d, final long at, final int msn, final int mo)
    {
        d.set(ValueLayout.JAVA_INT, at + MSN, msn);
        d.set(ValueLayout.JAVA_INT, at + MO, mo);
    }

    static void tagged(final MemorySegment d, final long at, final int stag, final long to)
    {
        d.set(ValueLayout.JAVA_INT, at + STAG, stag);
        d.set(ValueLayout.JAVA_LONG, at + TO, to);
    }

    /** A direct record's reference: {@code length} bytes at {@code offset} of shared memory m-PID-SEQ. */
    static void direct(final MemorySegment d, final long at, final int pid, final int seq, final int length,
        final long offset)
    {
        d.set(ValueLayout.JAVA_INT, at + MSN, pid);
        d.set(ValueLayout.JAVA_INT, at + MO, seq);
        d.set(ValueLayout.JAVA_INT, at + SRC_STAG, length);
        d.set(ValueLayout.JAVA_LONG, at + SRC_TO, offset);
    }

    static void readRequest(final MemorySegment d, final long at, final int msn, final int sinkStag,
        final long sinkTo, final int size, final int srcStag, final long srcTo)
    {
        d.set(ValueLayout.JAVA_INT, at + MSN, msn);
        d.set(ValueLayout.JAVA_INT, at + STAG, sinkStag);
        d.set(ValueLayout.JAVA_INT, at + MO, size);
        d.set(ValueLayout.JAVA_LONG, at + TO, sinkTo);
        d.set(ValueLayout.JAVA_INT, at + SRC_STAG, srcStag);
        d.set(ValueLayout.JAVA_LONG, at + SRC_TO, srcTo);
    }

    static void terminate(final MemorySegment d, final long at, final TerminateInfo t)
    {
        d.set(ValueLayout.JAVA_INT, at + MSN, t.msn());
        d.set(ValueLayout.JAVA_INT, at + STAG, t.stag());
        d.set(ValueLayout.JAVA_INT, at + MO, t.mo());
        d.set(ValueLayout.JAVA_LONG, at + TO, t.to());
        d.set(ValueLayout.JAVA_INT, at + SRC_STAG, (t.hdrKnown() ? 1 : 0) | (t.tagged() ? 2 : 0)
            | (t.opcode() & 0xFF) << 8 | (t.queue() & 0xFF) << 16);
        d.set(ValueLayout.JAVA_INT, at + TERM, (t.layer() & 0xFF) | (t.etype() & 0xFF) << 8 | (t.code() & 0xFF) << 16);
    }

    /** Decodes a Terminate record (the peer's values, whatever they are, stay inside their fields). */
    static TerminateInfo terminateInfo(final MemorySegment d, final long at)
    {
        final int hdr = d.get(ValueLayout.JAVA_INT, at + SRC_STAG);
        final int term = d.get(ValueLayout.JAVA_INT, at + TERM);
        return new TerminateInfo(term & 0xFF, term >>> 8 & 0xFF, term >>> 16 & 0xFF, (hdr & 1) != 0,
            hdr >>> 8 & 0xFF, (hdr & 2) != 0, d.get(ValueLayout.JAVA_INT, at + STAG),
            d.get(ValueLayout.JAVA_LONG, at + TO), hdr >>> 16 & 0xFF, d.get(ValueLayout.JAVA_INT, at + MSN),
            d.get(ValueLayout.JAVA_INT, at + MO));
    }

    static String typeName(final int type)
    {
        return switch (type)
        {
            case PAD -> "PAD";
            case CLOSE -> "CLOSE";
            default -> RdmapOpcode.name(type);
        };
    }
}

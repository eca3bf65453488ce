package io.jdat.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A posted receive buffer, on an endpoint's receive queue or on an SRQ: its validated segments
 * (the first in this object's own fields, see {@link Segments}), cookie and flags, and its place
 * in the ring. One object per slot: the placer that reads a receive of one segment reads only
 * this object's lines, which the poster wrote, and its two fields in the ring's array.
 *
 * <pre>
 *   lines[at]   a long[] of its ring, 16 longs (128 bytes) per slot; this slot's from at:
 *     +0 seq     on a receive queue: its position + 1 once posted ({@link RecvRing}),
 *                written with release, read with acquire; once complete (a ring's direct
 *                mode), the completion word below
 *     +1 cookie  the consumer's cookie of the post
 *     +2 .. +15  unused: no two slots' fields are within a line of each other
 *
 *   packed (a ring built for direct mode, {@link RecvRing#direct}): 16 bytes per slot, four
 *   slots to a line, of which the placer writes one word:
 *     lines[at]      +0 seq     as above, and the completion word once complete
 *                    +1         unused
 *     cookies[i]     the cookie, in an array of its own: written by the poster and read by the
 *                    consumer (the same thread in a ping-pong), never by the placer in direct mode
 *
 *   completion word  bit 63     set (posted words are positive)
 *                    bits 62-31 the received length + 1 (0: a hole, which no event reports; all
 *                               ones: the length is in the object's own field, written before)
 *                    bits 30-0  position + 1, its low 31 bits: the lap it completes
 * </pre>
 *
 * <p>A completion is one 8-byte word, so it lies on one line wherever the collector puts the
 * array. As two words side by side (the sequence, then the length) one slot in four straddled two
 * lines in half the placements of the array (its data 8 bytes past a 16-byte boundary): the placer
 * then wrote two lines and the consumer read two, and the round trip of a run that drew such a
 * placement at either end was about 10 ns longer.
 *
 * <p>The two fields a repost of the same buffer changes lie side by side in the ring's array,
 * every slot alike: on one line unless the array's data starts 8 bytes before a line's end (one
 * placement in eight), so a repost moves that line alone to the placer's core. In the heap object
 * they shared a line in some slots and spanned two in others, and neighbouring slots shared lines,
 * wherever the collector put each slot. The object's own fields are stored into only where they
 * change. (Memory off the heap, aligned, was measured slower: see {@link EventRing}.)
 */
final class RecvBuffer extends Segments
{
    /** Longs from one slot's fields to the next's: two lines. */
    static final int STRIDE = 16;
    /** The longs of a slot's fields, at the start of its stride. */
    static final int FIELDS = 2;
    /** Packed: longs from one slot's word to the next's, four slots to a line (the second long unused). */
    static final int PACKED_STRIDE = 2;
    /** The completion word's bit that tells it from a posted sequence. */
    private static final long COMPLETE = Long.MIN_VALUE;
    /** The completion word's bits of the position + 1: enough to tell one lap of any ring from the next. */
    private static final long LAP_MASK = (1L << 31) - 1;
    private static final int LENGTH_SHIFT = 31;
    private static final long LENGTH_MASK = (1L << 32) - 1;
    /** The length field that says the length is in {@link #bigLength}: 4 GiB - 2 and more. */
    static final long LENGTH_ESCAPE = LENGTH_MASK;
    private static final int SEQ = 0;
    private static final VarHandle LONG = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] lines;
    private final int at;
    private final long[] cookies;
    private final int cookieAt;
    int flags;
    /** The SRQ it came from, or null. */
    SrqImpl srq;
    /** On a receive queue: a claim given back, which the placer and a flush skip. */
    boolean hole;
    /** A completed length too large for the completion word ({@link #complete}), written before it. */
    private long bigLength;

    /** A buffer with an array of its own (one outside a ring: an endpoint's SRQ buffer in use). */
    RecvBuffer(final int maxIov)
    {
        this(maxIov, new long[STRIDE], 0);
    }

    /** A ring's slot whose fields start at {@code lines[at]}, 128 bytes from its neighbours'. */
    RecvBuffer(final int maxIov, final long[] lines, final int at)
    {
        super(maxIov);
        this.lines = lines;
        this.at = at;
        this.cookies = lines;
        this.cookieAt = at + 1;
    }

    /** A packed slot: its word at {@code lines[at]}, the cookie at {@code cookies[cookieAt]}. */
    RecvBuffer(final int maxIov, final long[] lines, final int at, final long[] cookies, final int cookieAt)
    {
        super(maxIov);
        this.lines = lines;
        this.at = at;
        this.cookies = cookies;
        this.cookieAt = cookieAt;
    }

    /** Where its fields start in its ring's array (a proof of the ring's layout). */
    int fieldsAt()
    {
        return at;
    }

    /** Its ring's array of slot fields (a proof of the ring's layout). */
    long[] lines()
    {
        return lines;
    }

    /** The consumer's cookie of the post. */
    long cookie()
    {
        return (long) LONG.get(cookies, cookieAt);
    }

    /**
     * Sets the cookie, whether it changes or not: the publish stores the sequence beside it anyway
     * (packed: on the poster's and consumer's line of cookies), so the store costs no other line.
     */
    void cookie(final long userCookie)
    {
        LONG.set(cookies, cookieAt, userCookie);
    }

    /**
     * The completion word of {@code position} with a length field of {@code lengthField} (the
     * received length + 1, or {@link #LENGTH_ESCAPE}); see the class comment.
     */
    private static long completion(final long position, final long lengthField)
    {
        return COMPLETE | lengthField << LENGTH_SHIFT | (position + 1) & LAP_MASK;
    }

    /** Whether {@code word}, read from a slot, is the completion of {@code position}. */
    static boolean completes(final long word, final long position)
    {
        return word < 0 && (word & LAP_MASK) == ((position + 1) & LAP_MASK);
    }

    /**
     * Whether {@code word}, read from a slot, is the completion of a position after
     * {@code position} (the slot was taken and reused meanwhile; a later lap by less than 2^30).
     */
    static boolean completesLater(final long word, final long position)
    {
        final long ahead = ((word & LAP_MASK) - ((position + 1) & LAP_MASK)) & LAP_MASK;
        return word < 0 && ahead != 0 && ahead < (LAP_MASK + 1) / 2;
    }

    /**
     * In a ring's direct mode: completes the receive of {@code position} with {@code length} (-1: a
     * hole) with one release store, everything the placer wrote into the buffer before it. A
     * length the word cannot hold goes into {@link #bigLength} first.
     */
    void complete(final long position, final long length)
    {
        long field = length + 1;
        if (field >= LENGTH_ESCAPE)
        {
            bigLength = length;
            field = LENGTH_ESCAPE;
        }
        LONG.setRelease(lines, at + SEQ, completion(position, field));
    }

    /** The received length that {@code word}, this slot's completion, holds; -1 for a hole. */
    long lengthIn(final long word)
    {
        final long field = word >>> LENGTH_SHIFT & LENGTH_MASK;
        return field == LENGTH_ESCAPE ? bigLength : field - 1;
    }

    /**
     * The length of the completed receive in this slot, -1 for a hole: read while it stays
     * complete. Not named {@code length}: {@link Segments#length(int)}, a segment's length, would
     * then be what {@code length(-1)} calls.
     */
    long completedLength()
    {
        return lengthIn((long) LONG.getAcquire(lines, at + SEQ));
    }

    /** The sequence word with a volatile read (a look that must not pass an earlier store). */
    long seqVolatile()
    {
        return (long) LONG.getVolatile(lines, at + SEQ);
    }

    /** Sets the sequence word from {@code expected} to {@code seq} if it still holds it. */
    boolean casSeq(final long expected, final long seq)
    {
        return LONG.compareAndSet(lines, at + SEQ, expected, seq);
    }

    /** On a receive queue: the position + 1 of the receive posted here (acquire). */
    long seq()
    {
        return (long) LONG.getAcquire(lines, at + SEQ);
    }

    /** Publishes {@code seq} (release: everything written into the buffer before comes first). */
    void seq(final long seq)
    {
        LONG.setRelease(lines, at + SEQ, seq);
    }

    /**
     * Sets the cookie and flags of a post, each only where it changes: the placer on another core
     * read this slot's lines at its last use, and a store of the same value would take them back.
     */
    void setCookieAndFlags(final long userCookie, final int postFlags)
    {
        cookie(userCookie);
        if (flags != postFlags)
        {
            flags = postFlags;
        }
    }

    /** Takes {@code from}'s segments, cookie and flags (a ring's regrow, an SRQ handing a buffer on). */
    void copyFrom(final RecvBuffer from)
    {
        copyFrom((Segments) from);
        cookie(from.cookie());
        flags = from.flags;
    }
}

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
 *                written with release, read with acquire
 *     +1 cookie  the consumer's cookie of the post
 *     +2 length  after a ring's direct mode ended: the length of a completed receive, -1 for a hole
 *     +3 .. +15  unused: no two slots' fields are within a line of each other
 *
 *   packed (a ring built for direct mode, {@link RecvRing#direct}): 2 longs (16 bytes) per slot,
 *   four slots to a line, what the placer touches alone:
 *     lines[at]      +0 seq     as above, and -(position + 1) once complete
 *                    +1 length  the completed receive's length, -1 for a hole
 *     cookies[i]     the cookie, in an array of its own: written by the poster and read by the
 *                    consumer (the same thread in a ping-pong), never by the placer in direct mode
 * </pre>
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
    static final int FIELDS = 3;
    /** Packed: longs from one slot's fields to the next's (sequence and length), four slots to a line. */
    static final int PACKED_STRIDE = 2;
    private static final int SEQ = 0;
    private static final VarHandle LONG = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] lines;
    private final int at;
    private final int lengthAt;
    private final long[] cookies;
    private final int cookieAt;
    int flags;
    /** The SRQ it came from, or null. */
    SrqImpl srq;
    /** On a receive queue: a claim given back, which the placer and a flush skip. */
    boolean hole;

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
        this.lengthAt = at + 2;
        this.cookies = lines;
        this.cookieAt = at + 1;
    }

    /** A packed slot: sequence and length at {@code lines[at]}, the cookie at {@code cookies[cookieAt]}. */
    RecvBuffer(final int maxIov, final long[] lines, final int at, final long[] cookies, final int cookieAt)
    {
        super(maxIov);
        this.lines = lines;
        this.at = at;
        this.lengthAt = at + 1;
        this.cookies = cookies;
        this.cookieAt = cookieAt;
    }

    /** Where its fields start in its ring's array (a proof of the ring's layout). */
    int fieldsAt()
    {
        return at;
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
     * In a ring's direct mode: the completed receive's length, -1 for a hole (written before the
     * flip). Not named {@code length}: {@link Segments#length(int)}, a segment's length, would then
     * be what {@code length(-1)} calls.
     */
    long completedLength()
    {
        return (long) LONG.get(lines, lengthAt);
    }

    /** Sets the completed receive's length (-1: a hole); the flip of {@link #seq} publishes it. */
    void completedLength(final long length)
    {
        LONG.set(lines, lengthAt, length);
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

package io.jdat.engine;

/**
 * A posted receive buffer, on an endpoint's receive queue or on an SRQ: its validated segments
 * (the first in this object's own fields, see {@link Segments}), cookie and flags, and its place
 * in the ring. One object per slot: the placer that reads a receive of one segment reads only
 * this object's lines, which the poster wrote.
 */
final class RecvBuffer extends Segments
{
    long cookie;
    int flags;
    /** The SRQ it came from, or null. */
    SrqImpl srq;
    /** On a receive queue: its position + 1 once posted ({@link RecvRing}). */
    volatile long seq;
    /** On a receive queue: a claim given back, which the placer and a flush skip. */
    boolean hole;

    RecvBuffer(final int maxIov)
    {
        super(maxIov);
    }

    /**
     * Sets the cookie and flags of a post, each only where it changes: the placer on another core
     * read this slot's lines at its last use, and a store of the same value would take them back.
     */
    void setCookieAndFlags(final long userCookie, final int postFlags)
    {
        if (cookie != userCookie)
        {
            cookie = userCookie;
        }
        if (flags != postFlags)
        {
            flags = postFlags;
        }
    }

    /** Takes {@code from}'s segments, cookie and flags (a ring's regrow, an SRQ handing a buffer on). */
    void copyFrom(final RecvBuffer from)
    {
        copyFrom((Segments) from);
        cookie = from.cookie;
        flags = from.flags;
    }
}

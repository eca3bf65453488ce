package io.jdat.engine;

/** A posted receive buffer, on an endpoint's receive queue or on an SRQ. */
final class RecvBuffer
{
    final Segments local;
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
        local = new Segments(maxIov);
    }

    /** Takes {@code from}'s segments, cookie and flags (a ring's regrow, an SRQ handing a buffer on). */
    void copyFrom(final RecvBuffer from)
    {
        final Segments s = from.local;
        for (int i = 0; i < s.count; i++)
        {
            local.regions[i] = s.regions[i];
            local.offsets[i] = s.offsets[i];
            local.lengths[i] = s.lengths[i];
        }
        local.count = s.count;
        local.total = s.total;
        cookie = from.cookie;
        flags = from.flags;
    }
}

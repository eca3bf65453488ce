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
}

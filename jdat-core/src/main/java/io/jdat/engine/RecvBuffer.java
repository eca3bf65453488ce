package io.jdat.engine;

/** A posted receive buffer, on an endpoint's receive queue or on an SRQ. */
final class RecvBuffer
{
    final Segments local;
    long cookie;
    int flags;
    /** The SRQ it came from, or null. */
    SrqImpl srq;

    RecvBuffer(final int maxIov)
    {
        local = new Segments(maxIov);
    }
}

package io.jdat.engine;

/**
 * An RDMA Read Response this side owes its peer: the bytes of a validated source range, sent to
 * the requester's sink. Pooled per connection, one per IRD credit.
 */
final class ReadResponse extends ReportedMessage
{
    ReadResponse()
    {
        super(1);
    }

    /** Back to the pool: empty, unreported. Lock held. */
    void recycle()
    {
        clearPayload();
        clearReported();
    }
}

package io.jdat.engine;

import io.jdat.engine.channel.OutboundMessage;

/**
 * An RDMA Read Request on the wire, for one local segment of a read work request; it stays
 * outstanding until its Read Response has been placed. Pooled per connection, one per ORD credit.
 */
final class ReadOp extends OutboundMessage
{
    WorkRequest wr;
    int msn;
    /** The local sink: its region (STag) and offset. */
    MemoryRegion sink;
    long sinkOffset;
    /** Bytes to read (at most 2^32 - 1, the wire's limit). */
    long size;
    int srcStag;
    long srcTo;
    /** Bytes of the response placed so far. */
    long received;

    ReadOp()
    {
        super(0);
    }

    void clear()
    {
        wr = null;
        sink = null;
        received = 0;
    }

    /** Fills the descriptor the channel reads from this request's fields. */
    void describe()
    {
        describeReadRequest(msn, sink == null ? 0 : sink.stag, sink == null ? 0 : sink.base + sinkOffset, (int) size,
            srcStag, srcTo);
    }
}

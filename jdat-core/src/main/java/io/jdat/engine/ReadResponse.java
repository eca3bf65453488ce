package io.jdat.engine;

import io.jdat.engine.channel.OutboundMessage;

/**
 * An RDMA Read Response this side owes its peer: the bytes of a validated source range, sent to
 * the requester's sink. Pooled per connection, one per IRD credit.
 */
final class ReadResponse extends OutboundMessage
{
    ReadResponse()
    {
        super(1);
    }
}

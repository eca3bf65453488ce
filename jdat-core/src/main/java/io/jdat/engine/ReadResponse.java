package io.jdat.engine;

import io.jdat.engine.channel.OutboundMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An RDMA Read Response this side owes its peer: the bytes of a validated source range, sent to
 * the requester's sink. Pooled per connection, one per IRD credit.
 */
final class ReadResponse extends OutboundMessage
{
    private static final VarHandle REPORTED;

    static
    {
        try
        {
            REPORTED = MethodHandles.lookup().findVarHandle(ReadResponse.class, "reported", boolean.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Set by the channel's thread once it reported this response sent; cleared when it is pooled again. */
    private boolean reported;

    ReadResponse()
    {
        super(1);
    }

    /** The channel is done with this response (a release store). Any thread. */
    void markReported()
    {
        REPORTED.setRelease(this, true);
    }

    /** Whether {@link #markReported} was called since it was last pooled. */
    boolean reported()
    {
        return (boolean) REPORTED.getAcquire(this);
    }

    /** Back to the pool: empty, unreported. Lock held. */
    void recycle()
    {
        clearPayload();
        reported = false;
    }
}

package io.jdat.engine;

import io.jdat.engine.channel.OutboundMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A message the engine hands to a channel and learns is sent through a mark rather than under
 * the endpoint's lock ({@link Connection#onSent}): the channel's thread stores the mark with
 * release semantics, and whoever holds the lock reads it with acquire semantics and takes it in.
 * The engine's work requests and Read Responses are such messages.
 */
abstract class ReportedMessage extends OutboundMessage
{
    private static final VarHandle REPORTED;

    static
    {
        try
        {
            REPORTED = MethodHandles.lookup().findVarHandle(ReportedMessage.class, "reported", boolean.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Set by the channel's thread once it reported the message sent; cleared when the slot is reused. */
    private boolean reported;

    ReportedMessage(final int pieces)
    {
        super(pieces);
    }

    /** The channel is done with this message (a release store: what it read before is done). Any thread. */
    final void markReported()
    {
        REPORTED.setRelease(this, true);
    }

    /** Whether {@link #markReported} was called since {@link #clearReported}. */
    final boolean reported()
    {
        return (boolean) REPORTED.getAcquire(this);
    }

    /** Unreported again, for the slot's next use. Lock held. */
    final void clearReported()
    {
        reported = false;
    }
}

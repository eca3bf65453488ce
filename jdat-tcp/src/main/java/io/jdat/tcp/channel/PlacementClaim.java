package io.jdat.tcp.channel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Orders a connection's direct placement (a payload read from the socket straight into a receive
 * buffer or a tagged target) against the engine's close of the connection
 * ({@link io.jdat.engine.channel.Channel#awaitPlacing}): after the engine closed, it flushes the
 * receive queue and the consumer owns those buffers again, so no read may land in one after.
 * The reader {@link #enter}s before each write into such memory and {@link #exit}s after; the
 * close marks the claim closed and waits for a write in progress, which is one non-blocking read
 * or copy. Both sides store with a full fence before they load the other's word, so at least one
 * sees the other: either the close waits for the write, or the write sees the close and does not
 * happen.
 */
final class PlacementClaim
{
    private static final VarHandle HOLDER;

    static
    {
        try
        {
            HOLDER = MethodHandles.lookup().findVarHandle(PlacementClaim.class, "holder", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The id of the thread writing into placed memory, else 0. */
    private volatile long holder;
    private volatile boolean closed;

    /** Before a write into placed memory: false, holding nothing, once the engine closed. */
    boolean enter()
    {
        holder = Thread.currentThread().threadId();
        if (closed)
        {
            HOLDER.setRelease(this, 0L);
            return false;
        }
        return true;
    }

    /** After the write (also when none was entered). */
    void exit()
    {
        HOLDER.setRelease(this, 0L);
    }

    /** The engine closes: no write begins after this, and one in progress is let finish first. */
    void close()
    {
        closed = true;
        final long self = Thread.currentThread().threadId();
        long t;
        int spins = 0;
        while ((t = holder) != 0 && t != self)
        {
            if ((++spins & 0xFF) == 0)
            {
                Thread.yield();
            }
            Thread.onSpinWait();
        }
    }
}

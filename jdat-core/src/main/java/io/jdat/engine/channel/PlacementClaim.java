package io.jdat.engine.channel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Orders a placement made without the endpoint's lock (a Send copied into the buffer at the head
 * of the receive queue, or a payload a transport reads from its socket straight into a receive
 * buffer or a tagged target) against the close of the connection: after the close the engine
 * flushes the receive queue and the consumer owns those buffers again, so nothing may land in one
 * after. The placing thread {@link #enter}s before it writes and {@link #exit}s after; the close
 * marks the claim closed and waits for a placement in progress, which is one copy or one
 * non-blocking read. Both sides store with a full fence before they load the other's word, so at
 * least one sees the other: either the close waits for the placement, or the placement sees the
 * close and does not happen. The exit is a release store, which the close's volatile read
 * acquires, so what the placement wrote happens before what the closing thread does next.
 * <p>
 * The holder is a thread id, not the {@code Thread}: storing a reference into a long-lived object
 * would add the collector's card-marking barrier, under G1 a second fence, to every placement.
 */
public final class PlacementClaim
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

    /** An open claim, held by nobody. */
    public PlacementClaim()
    {
    }

    /** Before a write into placed memory: false, holding nothing, once the engine closed. */
    public boolean enter()
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
    public void exit()
    {
        HOLDER.setRelease(this, 0L);
    }

    /** The engine closes: no write begins after this, and one in progress is let finish first. */
    public void close()
    {
        closed = true;
        final long self = Thread.currentThread().threadId();
        long t;
        int spins = 0;
        while ((t = holder) != 0 && t != self)
        {
            // a placement is a copy (and a completion): short, but its thread may need this core
            if ((++spins & 0xFF) == 0)
            {
                Thread.yield();
            }
            Thread.onSpinWait();
        }
    }
}

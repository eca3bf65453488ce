package io.jdat.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Who consumes a connection's inbound ring right now: the port's progress round (on whichever
 * thread runs it), or a consumer thread that reads its own connection's ring while it polls its
 * EVD ({@link ShmChannel#receiveOwn()}). One word, taken by compare-and-set and given back by a
 * store: a thread that finds it taken skips the ring rather than wait (the round goes on with the
 * other connections; the consumer's poll falls back to the round). Nobody waits for it, so no
 * thread can hold the port's progress lock, or an endpoint's lock, while it waits for a holder
 * that waits for that lock.
 *
 * <p>Nothing is left unseen by a thread that skipped: the holder reads until the ring is empty
 * (or its budget or a record it leaves to the round stops it), and every thread that would sleep
 * looks at the ring's next length word first ({@link ShmChannel#quiet()}, {@link ShmChannel#arm}),
 * without the claim: a record published while the ring was claimed keeps the port's threads
 * awake, and the next round or poll takes the claim and reads it. Records are consumed only under
 * the claim, so none is delivered twice and the connection's order is kept.
 *
 * <p>The connection's end ({@link #close(Runnable)}) unmaps the file the ring lies in; a holder
 * may be reading it on another thread, and may itself be waiting for the thread that ends the
 * connection (an endpoint's lock in a placement), so the end does not wait either: it marks the
 * claim closing and unmaps at once if the claim is free, else leaves the unmapping to the
 * holder's {@link #release()}. Each side stores first and then looks at the other's word, both
 * volatile: at least one of them sees the other, and the compare-and-set to {@link #CLOSED} lets
 * exactly one of them unmap.
 *
 * <p>The holder is a thread id, not the {@code Thread}, as in the engine's {@code PlacementClaim}:
 * storing a reference into this long-lived object would add the collector's card-marking barrier
 * to every take.
 */
final class RingClaim
{
    /** The word's value while nobody holds the claim. */
    private static final long FREE = 0;
    /** The word's value once the connection ended: nobody takes it again (thread ids are positive). */
    private static final long CLOSED = -1;
    private static final VarHandle HOLDER;

    static
    {
        try
        {
            HOLDER = MethodHandles.lookup().findVarHandle(RingClaim.class, "holder", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #FREE}, the holding thread's id, or {@link #CLOSED}. */
    private volatile long holder;
    /** The connection ended; what unmaps its file, run once by whoever frees the claim last. */
    private volatile Runnable closing;

    /** Takes the claim for the calling thread; false (at once) when another holds it or the connection ended. */
    boolean take()
    {
        if (holder != FREE || !HOLDER.compareAndSet(this, FREE, Thread.currentThread().threadId()))
        {
            return false;
        }
        if (closing != null)
        {
            release();
            return false;
        }
        return true;
    }

    /** Whether the calling thread holds the claim. */
    boolean heldByCurrentThread()
    {
        return holder == Thread.currentThread().threadId();
    }

    /** Gives the claim back; unmaps the connection's file if it ended meanwhile. Holder only. */
    void release()
    {
        holder = FREE;
        final Runnable c = closing;
        if (c != null && HOLDER.compareAndSet(this, FREE, CLOSED))
        {
            c.run();
        }
    }

    /**
     * The connection ends: runs {@code unmap} now if nobody holds the claim, else leaves it to
     * the holder's {@link #release()} (which may be the calling thread's own, further out). Once.
     */
    void close(final Runnable unmap)
    {
        closing = unmap;
        if (HOLDER.compareAndSet(this, FREE, CLOSED))
        {
            unmap.run();
        }
    }
}

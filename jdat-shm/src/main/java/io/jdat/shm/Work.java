package io.jdat.shm;

/**
 * Something a port's progress rounds move forward: a listener, a connection attempt, an accepted
 * request waiting for the active side, or an established connection. Both methods run holding the
 * port's progress lock, so the work of one port never runs on two threads at once.
 */
interface Work
{
    /** One step; returns how much was done (0 when idle). */
    int progress(long now);

    /**
     * A hint read without the progress lock, so that a polling consumer can skip rounds with
     * nothing to do: true when a round would find no work here now. A wrong "quiet" only delays
     * the work to the port's next full round (one in every few polls); a wrong "not quiet" costs
     * one round.
     */
    default boolean quiet()
    {
        return false;
    }

    /**
     * The I/O thread is about to sleep: announce it on the shared words this work waits on and
     * add their futex bells to {@code waiters} from entry {@code i} ({@link Futex#set}); returns
     * the next free entry, or -1 when there is work after all. Work without such words adds none
     * (the sleep's timeout bounds its delay). Progress lock held.
     */
    default int sleep(final java.lang.foreign.MemorySegment waiters, final int i)
    {
        return i;
    }

    /** The I/O thread woke: no more wake-ups wanted. Without the progress lock; must not throw. */
    default void awake()
    {
    }

    /** The port is closing: release everything at once, without callbacks to the engine. */
    void shutdown();
}

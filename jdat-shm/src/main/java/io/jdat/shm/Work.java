package io.jdat.shm;

/**
 * Something a port's progress rounds move forward: a listener, a connection attempt, an accepted
 * request waiting for the active side, or an established connection. Its steps run holding the
 * port's progress lock, so the work of one port never runs on two threads at once.
 */
interface Work
{
    /** One step; returns how much was done (0 when idle). */
    int progress(long now);

    /**
     * A step of a polling consumer's round between its full rounds: moves what the quiet hint
     * says is there. Work whose checks need the clock (deadlines, the peer's liveness) may leave
     * them to the next full round, which comes within a few polls.
     */
    default int move()
    {
        return progress(System.nanoTime());
    }

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
     * Looks at the peer's process, on the port's I/O thread and without the progress lock: reading
     * {@code /proc} takes a few hundred microseconds, too long for a thread that polls. What it finds
     * is acted on by the next full round, on whichever thread runs it.
     */
    default void watchPeer()
    {
    }

    /**
     * A thread of the port is about to sleep ({@link Futex}): announce it on the shared words this
     * work waits on and add their futex words to {@code s} from entry {@code i}; returns the next
     * free entry, or -1 when there is work after all. Work without such words adds none (the
     * sleep's timeout bounds how late it is looked at, as a park's did). Progress lock held.
     */
    default int arm(final Futex.Sleep s, final int i)
    {
        return i;
    }

    /** The sleeper woke: no more wake-ups wanted. Without the progress lock. */
    default void disarm()
    {
    }

    /** The port is closing: release everything at once, without callbacks to the engine. */
    void shutdown();
}

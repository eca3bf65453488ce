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

    /** The port is closing: release everything at once, without callbacks to the engine. */
    void shutdown();
}

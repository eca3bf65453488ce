package io.jdat.engine.channel;

/** A connection attempt in progress. */
public interface PendingConnect
{
    /** The local port qualifier the attempt is bound to (the peer sees it as the remote port). */
    long localPortQual();

    /**
     * Gives up (connect timeout or consumer disconnect). Returns true if the attempt had not
     * finished; then no outcome callback follows and the peer, if it accepts later, sees the
     * accept fail. Returns false if an outcome was already delivered.
     */
    boolean cancel();
}

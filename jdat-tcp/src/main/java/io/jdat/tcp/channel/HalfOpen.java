package io.jdat.tcp.channel;

import java.util.LinkedHashSet;

/**
 * The accepted connections of one port whose MPA Request is not complete yet, oldest first, and
 * the counts the IA's attributes show: how many were closed for taking too long
 * ({@code mpa_timeout_ms}) or for a newer one ({@code max_half_open}), and how many accepts
 * failed. Threadsafe: the I/O thread adds, requests end on whichever thread makes progress, and
 * attributes are read by the consumer.
 */
final class HalfOpen
{
    private final LinkedHashSet<TcpRequest> waiting = new LinkedHashSet<>();
    private final int max;
    private long timeouts;
    private long evictions;
    /** Accepts that failed (no descriptor left, most often); each pauses its listener a while. */
    private long acceptFailures;

    HalfOpen(final int max)
    {
        this.max = max;
    }

    /**
     * A request starts waiting for its MPA Request. Returns the one that waited longest if
     * {@code max_half_open} wait already (it no longer counts; the caller closes it), else null.
     */
    synchronized TcpRequest add(final TcpRequest r)
    {
        TcpRequest oldest = null;
        if (waiting.size() >= max)
        {
            oldest = waiting.removeFirst();
            evictions++;
        }
        waiting.add(r);
        return oldest;
    }

    /** A request's MPA Request arrived, or it ended. */
    synchronized void ended(final TcpRequest r)
    {
        waiting.remove(r);
    }

    synchronized void timedOut()
    {
        timeouts++;
    }

    synchronized void acceptFailed()
    {
        acceptFailures++;
    }

    synchronized int size()
    {
        return waiting.size();
    }

    synchronized long timeouts()
    {
        return timeouts;
    }

    synchronized long evictions()
    {
        return evictions;
    }

    synchronized long acceptFailures()
    {
        return acceptFailures;
    }
}

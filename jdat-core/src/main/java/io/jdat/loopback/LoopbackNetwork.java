package io.jdat.loopback;

import java.util.HashMap;
import java.util.Map;

/**
 * The JVM-wide table of loopback addresses: which ports are open on an address and what listens
 * on each connection qualifier.
 */
final class LoopbackNetwork
{
    static final LoopbackNetwork INSTANCE = new LoopbackNetwork();

    private record Key(String address, long qual)
    {
    }

    private final Map<Key, LoopbackListener> listeners = new HashMap<>();
    private final Map<String, Integer> ports = new HashMap<>();
    private long nextLocalPort = 1L << 32;

    synchronized void portOpened(final String address)
    {
        ports.merge(address, 1, Integer::sum);
    }

    synchronized void portClosed(final String address)
    {
        ports.computeIfPresent(address, (k, v) -> v == 1 ? null : v - 1);
    }

    /** Whether any IA instance has this address open. */
    synchronized boolean reachable(final String address)
    {
        return ports.containsKey(address);
    }

    /** Registers a listener; false if the qualifier is taken. */
    synchronized boolean bind(final String address, final long qual, final LoopbackListener l)
    {
        return listeners.putIfAbsent(new Key(address, qual), l) == null;
    }

    /** Registers a listener on a free qualifier of {@code [low, high]}; -1 if none is free. */
    synchronized long bindAny(final String address, final long low, final long high, final LoopbackListener l)
    {
        for (long q = low; q <= high; q++)
        {
            if (listeners.putIfAbsent(new Key(address, q), l) == null)
            {
                return q;
            }
        }
        return -1;
    }

    synchronized void unbind(final String address, final long qual, final LoopbackListener l)
    {
        listeners.remove(new Key(address, qual), l);
    }

    synchronized LoopbackListener lookup(final String address, final long qual)
    {
        return listeners.get(new Key(address, qual));
    }

    /** A local port qualifier for an active connection (from a range listeners rarely use). */
    synchronized long nextLocalPort()
    {
        return nextLocalPort++;
    }
}

package io.jdat.engine.channel;

import io.jdat.IaAddress;

/**
 * One IA instance's attachment to a transport: its address, its listeners and its connections.
 */
public interface TransportPort
{
    /** The address peers connect to. */
    IaAddress address();

    /** Transport-specific IA attributes ({@code transport_attr} of {@code dat_ia_query}). */
    default java.util.List<io.jdat.NamedAttr> attributes()
    {
        return java.util.List.of();
    }

    /** The most private data a connect or accept may carry on this transport. */
    int maxPrivateDataSize();

    /**
     * Checks, without blocking, that a remote address could be connected to at all.
     *
     * @throws io.jdat.DatException {@code DAT_INVALID_ADDRESS} with subtype
     *     {@code UNSUPPORTED}, {@code UNREACHABLE} or {@code MALFORMED}
     */
    void checkAddress(IaAddress remote);

    /**
     * Starts listening on a connection qualifier.
     *
     * @throws io.jdat.DatException {@code DAT_CONN_QUAL_IN_USE}, or {@code DAT_INVALID_PARAMETER}
     *     for a qualifier this transport cannot listen on
     */
    Listener listen(long connQual, ListenHandler handler);

    /**
     * Starts listening on a free qualifier of the transport's choice.
     *
     * @throws io.jdat.DatException {@code DAT_CONN_QUAL_UNAVAILABLE} when none is free
     */
    Listener listenAny(ListenHandler handler);

    /**
     * Starts connecting. The outcome arrives on {@code handler}, possibly before this returns.
     *
     * @throws io.jdat.DatException {@code DAT_INVALID_ADDRESS} if the address is unusable,
     *     {@code DAT_INSUFFICIENT_RESOURCES} if no local port is left
     */
    PendingConnect connect(ConnectRequest request, ConnectHandler handler);

    /**
     * Hands a request that arrived on this port to the listener on {@code connQual} of the same
     * address, as if it had arrived there.
     *
     * @return false if nothing listens there (the request is then untouched)
     */
    boolean handoff(IncomingRequest request, long connQual);

    /**
     * Makes progress on the calling thread, for transports that can (polling consumers get
     * lower latency). Returns how much work was done; 0 if none or not supported.
     */
    default int poll()
    {
        return 0;
    }

    /**
     * {@link #poll()} for a consumer that polls {@code evd} (the engine's EVD object): a transport
     * may read first, or more often, the connections whose completions and events go there
     * ({@link ChannelHandler#completesInto}), as long as every other connection keeps making
     * progress as well. {@code null} asks for a poll of everything.
     */
    default int poll(final Object evd)
    {
        return poll();
    }

    /**
     * The calling thread, which was calling {@link #poll()}, stops polling: it is about to park.
     * A transport that leaves reading to polling consumers resumes its own progress at once.
     */
    default void pollingStopped()
    {
    }

    /**
     * A waiter that would park blocks in the transport instead, for at most {@code nanos},
     * making progress itself when bytes arrive (one thread wake-up per message instead of two:
     * the transport's thread and then the waiter). Returns false, having waited for nothing, when
     * the transport cannot (it does not support it, or another thread already waits in it); the
     * caller then parks. A thread blocked here returns early on {@link #wakeWaiter()}, on
     * interrupt, and when the port closes.
     */
    default boolean awaitProgress(final long nanos)
    {
        return false;
    }

    /** Returns a thread blocked in {@link #awaitProgress} at once (an event for it came from elsewhere). */
    default void wakeWaiter()
    {
    }

    /**
     * Closes every listener and aborts every connection of this port, and ends every thread it
     * started. Called once, when the IA instance closes.
     */
    void close();
}

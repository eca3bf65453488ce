package io.jdat.engine.channel;

/** Receives the connection requests that arrive on a listener. */
@FunctionalInterface
public interface ListenHandler
{
    /**
     * A request arrived. The handler takes ownership: it must eventually accept, reject or hand
     * it off (or let it be abandoned by the active side). It returns false to refuse the request
     * at once (backlog full); the active side then sees a non-peer rejection.
     */
    boolean onRequest(IncomingRequest request);
}

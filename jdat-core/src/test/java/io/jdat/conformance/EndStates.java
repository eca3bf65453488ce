package io.jdat.conformance;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The end of one connection attempt between a client and a server endpoint, after calls that
 * raced each other: what each call returned, what each EVD got, and the states the endpoints are
 * left in. {@link #check()} asserts that it is an end the man pages allow and that the two ends
 * agree (digest §2.8 {@code dat_ep_connect}, {@code dat_ep_disconnect}, {@code dat_ep_free},
 * §2.9 {@code dat_cr_accept}, §2.1 {@code dat_ia_close}):
 * <ul>
 *   <li>each call returns SUCCESS or the error its man page gives for the state it found;</li>
 *   <li>each connect EVD holds one of the event sequences an attempt can produce, and the
 *       endpoint's state is the one its last event leaves it in;</li>
 *   <li>nothing is left half-open: one end is CONNECTED exactly when the other is;</li>
 *   <li>a connection the client saw established, the server saw established too (a disconnect of
 *       a CONNECTED endpoint shows the remote side DISCONNECTED, not a failed accept);</li>
 *   <li>a request that arrived was taken, an attempt that was accepted is decided at both ends,
 *       and neither IA's async EVD got anything.</li>
 * </ul>
 */
record EndStates(Map<String, String> calls, List<String> clientEvents, String clientState,
    List<String> clientAsync, List<String> serverEvents, String serverState, List<String> serverAsync,
    List<String> requests)
{
    static final String SUCCESS = "SUCCESS";
    static final String NO_REQUEST = "NO_REQUEST";
    /** An EVD or endpoint that no longer exists (its IA closed, or the endpoint freed). */
    static final String GONE = "GONE";
    static final String EST = "ESTABLISHED";
    static final String DISC = "DISCONNECTED";
    static final String ACE = "ACCEPT_COMPLETION_ERROR";
    private static final Set<List<String>> CLIENT_SEQUENCES = Set.of(List.of(), List.of(EST), List.of(EST, DISC),
        List.of(DISC));
    private static final Set<List<String>> SERVER_SEQUENCES = Set.of(List.of(), List.of(EST), List.of(EST, DISC),
        List.of(ACE));

    void check()
    {
        final boolean freed = SUCCESS.equals(calls.get("clientFree"));
        final boolean closed = SUCCESS.equals(calls.get("clientIaClose"));
        final boolean connected = SUCCESS.equals(calls.get("connect"));
        final String accept = calls.get("accept");
        returnCodes(freed || closed, connected, accept);

        // the client's connect EVD and state
        if (closed)
        {
            require(clientEvents.equals(List.of(GONE)) && GONE.equals(clientState),
                "dat_ia_close destroys the client's EVD and endpoint");
        }
        else
        {
            require(CLIENT_SEQUENCES.contains(clientEvents), "client events are not a sequence an attempt produces");
            if (freed)
            {
                require(GONE.equals(clientState), "the freed endpoint is still there");
            }
            else
            {
                require(clientState.equals(stateAfter(clientEvents, "UNCONNECTED")),
                    "the client's state does not follow from its events");
                require(!(connected && accept != null && clientEvents.isEmpty()),
                    "the client's attempt was accepted but it never heard the outcome");
            }
        }

        // the server's connect EVD and state
        require(SERVER_SEQUENCES.contains(serverEvents), "server events are not a sequence an accept produces");
        require(serverEvents.isEmpty() == !SUCCESS.equals(accept),
            "a successful dat_cr_accept gives the server exactly one outcome, nothing else does");
        require(serverState.equals(stateAfter(serverEvents, "UNCONNECTED")),
            "the server's state does not follow from its events");

        // the two ends agree
        final boolean clientConnected = "CONNECTED".equals(clientState);
        final boolean serverConnected = "CONNECTED".equals(serverState);
        require(clientConnected == serverConnected, "half-open: one end is CONNECTED and the other is not");
        require(!clientEvents.contains(EST) || serverEvents.contains(EST),
            "the client saw the connection established, the server never did");
        require(!serverEvents.contains(ACE) || !clientEvents.contains(EST),
            "the server's accept failed but the client saw the connection established");
        require(!SUCCESS.equals(calls.get("serverDisconnect")) || !serverConnected,
            "the server disconnected successfully but is still CONNECTED");
        for (final String d : List.of("clientDisconnect", "clientDisconnectGraceful"))
        {
            require(!SUCCESS.equals(calls.get(d)) || freed || closed || "DISCONNECTED".equals(clientState),
                d + " succeeded but the client is not DISCONNECTED");
        }

        require(requests.isEmpty(), "a connection request was left on the CR EVD");
        require(serverAsync.isEmpty(), "the server's async EVD got an event");
        require(clientAsync.isEmpty() || closed && clientAsync.equals(List.of(GONE)),
            "the client's async EVD got an event");
    }

    private void returnCodes(final boolean clientGone, final boolean connected, final String accept)
    {
        for (final Map.Entry<String, String> e : calls.entrySet())
        {
            final String result = e.getValue();
            final boolean allowed = switch (e.getKey())
            {
                // the endpoint or its IA may be gone before the connect
                case "connect" -> SUCCESS.equals(result) || clientGone && "INVALID_HANDLE".equals(result);
                // a request that arrived waits on the CR EVD: the accept that follows the connect finds it
                case "accept" -> SUCCESS.equals(result) || !connected && NO_REQUEST.equals(result);
                // an UNCONNECTED endpoint cannot be disconnected (the connect had not started)
                case "clientDisconnect", "clientDisconnectGraceful" -> SUCCESS.equals(result)
                    || "INVALID_STATE".equals(result);
                default -> SUCCESS.equals(result);
            };
            require(allowed, e.getKey() + " returned " + result);
        }
        require(accept == null || connected || NO_REQUEST.equals(accept), "accepted a request no connect made");
    }

    /** The state the last event of a connect EVD leaves its endpoint in. */
    private static String stateAfter(final List<String> events, final String initial)
    {
        if (events.isEmpty())
        {
            return initial;
        }
        return EST.equals(events.get(events.size() - 1)) ? "CONNECTED" : "DISCONNECTED";
    }

    private void require(final boolean condition, final String rule)
    {
        if (!condition)
        {
            throw new AssertionError(rule + ": " + this);
        }
    }
}

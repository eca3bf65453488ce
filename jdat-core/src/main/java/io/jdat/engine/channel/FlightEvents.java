package io.jdat.engine.channel;

import java.lang.System.Logger.Level;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * What an operator asks about after the fact, recorded twice: as JDK Flight Recorder events
 * ({@code io.jdat.*}, in a recording only when one runs) and as {@code System.Logger} lines
 * (logger {@code io.jdat}, level DEBUG). A connection established, rejected or broken (why, and
 * the Terminate's layer, error type and code when one was sent or received), an EVD that
 * overflowed, a peer taken for dead. Each happens once per connection or per fault, never per
 * message: nothing here is on the data path. {@code docs/reliability.md} shows how to read them.
 */
public final class FlightEvents
{
    private static final System.Logger LOG = System.getLogger("io.jdat");
    private static final String CATEGORY = "jdat";

    private FlightEvents()
    {
    }

    @Name("io.jdat.ConnectionEstablished")
    @Label("Connection Established")
    @Category(CATEGORY)
    @Description("A DAT connection is up: CONNECTION_EVENT_ESTABLISHED was posted")
    @StackTrace(false)
    static final class Established extends Event
    {
        @Label("Endpoint")
        String endpoint;
        @Label("Side")
        @Description("active (dat_ep_connect) or passive (dat_cr_accept)")
        String side;
        @Label("Remote Address")
        String remoteAddress;
        @Label("Remote Port Qualifier")
        long remotePortQual;
    }

    @Name("io.jdat.ConnectionRejected")
    @Label("Connection Rejected")
    @Category(CATEGORY)
    @Description("A connection was not set up: the event the endpoint got instead of ESTABLISHED")
    @StackTrace(false)
    static final class Rejected extends Event
    {
        @Label("Endpoint")
        String endpoint;
        @Label("Event")
        @Description("PEER_REJECTED, NON_PEER_REJECTED, UNREACHABLE, ACCEPT_COMPLETION_ERROR, ...")
        String event;
        @Label("Remote Address")
        String remoteAddress;
        @Label("Remote Port Qualifier")
        long remotePortQual;
    }

    @Name("io.jdat.ConnectionBroken")
    @Label("Connection Broken")
    @Category(CATEGORY)
    @Description("An established connection broke: CONNECTION_EVENT_BROKEN was posted")
    @StackTrace(false)
    static final class Broken extends Event
    {
        @Label("Endpoint")
        String endpoint;
        @Label("Reason")
        @Description("terminate-sent (this side found a violation), terminate-received, or transport (the peer "
            + "died, the link or the transport failed)")
        String reason;
        @Label("Terminate")
        @Description("the Terminate as RFC 5040 names it, empty if none")
        String terminate;
        @Label("Terminate Layer")
        @Description("RDMAP 0, DDP 1, LLP 2; -1 without a Terminate")
        int terminateLayer;
        @Label("Terminate Error Type")
        int terminateErrorType;
        @Label("Terminate Error Code")
        int terminateErrorCode;
    }

    @Name("io.jdat.EvdOverflow")
    @Label("EVD Overflow")
    @Category(CATEGORY)
    @Description("An event dispatcher was full when an event arrived: ASYNC_ERROR_EVD_OVERFLOW")
    @StackTrace(false)
    static final class Overflow extends Event
    {
        @Label("EVD")
        String evd;
        @Label("Queue Length")
        int qlen;
    }

    @Name("io.jdat.PeerDeath")
    @Label("Peer Death")
    @Category(CATEGORY)
    @Description("A transport took its peer for dead: its process ended, or it stopped answering")
    @StackTrace(false)
    static final class PeerDeath extends Event
    {
        @Label("Transport")
        String transport;
        @Label("Connection")
        String connection;
        @Label("How It Was Found")
        String how;
    }

    /** CONNECTION_EVENT_ESTABLISHED was posted to {@code endpoint}. */
    public static void established(final Object endpoint, final boolean active, final Object remoteAddress,
        final long remotePortQual)
    {
        final Established e = new Established();
        if (e.isEnabled())
        {
            e.endpoint = String.valueOf(endpoint);
            e.side = active ? "active" : "passive";
            e.remoteAddress = String.valueOf(remoteAddress);
            e.remotePortQual = remotePortQual;
            e.commit();
        }
        if (LOG.isLoggable(Level.DEBUG))
        {
            LOG.log(Level.DEBUG, "jdat: connection established ({0}) with {1}:{2}, {3}",
                active ? "active" : "passive", remoteAddress, Long.toString(remotePortQual), endpoint);
        }
    }

    /** {@code event} (a rejection, an unreachable peer, a failed accept) was posted to {@code endpoint}. */
    public static void rejected(final Object endpoint, final String event, final Object remoteAddress,
        final long remotePortQual)
    {
        final Rejected e = new Rejected();
        if (e.isEnabled())
        {
            e.endpoint = String.valueOf(endpoint);
            e.event = event;
            e.remoteAddress = String.valueOf(remoteAddress);
            e.remotePortQual = remotePortQual;
            e.commit();
        }
        if (LOG.isLoggable(Level.DEBUG))
        {
            LOG.log(Level.DEBUG, "jdat: connection to {0}:{1} not set up: {2}, {3}", remoteAddress,
                Long.toString(remotePortQual), event, endpoint);
        }
    }

    /**
     * CONNECTION_EVENT_BROKEN was posted to {@code endpoint}: {@code reason} says why, and
     * {@code terminate} is the Terminate sent or received (null if none).
     */
    public static void broken(final Object endpoint, final String reason, final TerminateInfo terminate)
    {
        final Broken e = new Broken();
        if (e.isEnabled())
        {
            e.endpoint = String.valueOf(endpoint);
            e.reason = reason;
            e.terminate = terminate == null ? "" : terminate.toString();
            e.terminateLayer = terminate == null ? -1 : terminate.layer();
            e.terminateErrorType = terminate == null ? -1 : terminate.etype();
            e.terminateErrorCode = terminate == null ? -1 : terminate.code();
            e.commit();
        }
        if (LOG.isLoggable(Level.DEBUG))
        {
            LOG.log(Level.DEBUG, "jdat: connection broken ({0}){1}, {2}", reason,
                terminate == null ? "" : ": " + terminate, endpoint);
        }
    }

    /** {@code evd} (of {@code qlen} entries) overflowed. */
    public static void evdOverflow(final Object evd, final int qlen)
    {
        final Overflow e = new Overflow();
        if (e.isEnabled())
        {
            e.evd = String.valueOf(evd);
            e.qlen = qlen;
            e.commit();
        }
        if (LOG.isLoggable(Level.DEBUG))
        {
            LOG.log(Level.DEBUG, "jdat: EVD overflow, {0}", evd);
        }
    }

    /** The {@code transport} took the peer of {@code connection} for dead; {@code how} says how it knows. */
    public static void peerDeath(final String transport, final Object connection, final String how)
    {
        final PeerDeath e = new PeerDeath();
        if (e.isEnabled())
        {
            e.transport = transport;
            e.connection = String.valueOf(connection);
            e.how = how;
            e.commit();
        }
        if (LOG.isLoggable(Level.DEBUG))
        {
            LOG.log(Level.DEBUG, "jdat: {0}: peer taken for dead ({1}), {2}", transport, how, connection);
        }
    }
}

package io.jdat.engine;

import io.jdat.CloseFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatReturnSubtype;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Qos;
import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.FlightEvents;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.PendingConnect;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.spi.DatArg;
import java.util.concurrent.ScheduledFuture;

/**
 * An endpoint's connection state machine (uDAPL 1.2's 13 states, {@link EpState}): connect,
 * accept, the outcome of setup, disconnect, the end of a connection (flushing both queues and
 * posting one connection event), reset, and the RSP and CR transitions of the passive side.
 * The state and the current {@link Connection} live on the endpoint and are guarded by its lock.
 */
final class EpStateMachine
{
    private final EpImpl ep;

    EpStateMachine(final EpImpl ep)
    {
        this.ep = ep;
    }

    /** dat_ep_connect. */
    void connect(final IaAddress remote, final long remoteConnQual, final long timeoutMicros,
        final byte[] privateData, final int qos, final int connectFlags)
    {
        ep.checkLive();
        if (remote == null)
        {
            throw new io.jdat.DatException(io.jdat.DatReturnType.INVALID_ADDRESS,
                DatReturnSubtype.INVALID_ADDRESS_MALFORMED, "remote_ia_address is null");
        }
        checkSetupArguments(timeoutMicros, privateData, qos,
            DatArg.EP_CONNECT_TIMEOUT, DatArg.EP_CONNECT_PRIVATE_DATA_SIZE, DatArg.EP_CONNECT_QOS);
        if ((connectFlags & ~ConnectFlags.MULTIPATH_FLAG) != 0)
        {
            throw Errors.invalidParameter(DatArg.EP_CONNECT_FLAGS,
                "unknown connect flags 0x" + Integer.toHexString(connectFlags));
        }
        if (connectFlags == ConnectFlags.MULTIPATH_FLAG)
        {
            throw Errors.modelNotSupported("multipath connections are not supported");
        }
        ep.ia.port().checkAddress(remote);
        startConnect(remote, remoteConnQual, timeoutMicros, privateData);
    }

    /** dat_ep_dup_connect. */
    void dupConnect(final Endpoint dupEp, final long timeoutMicros, final byte[] privateData, final int qos)
    {
        ep.checkLive();
        final EpImpl dup = EngineObject.cast(dupEp, EpImpl.class, ep.ia, DatReturnSubtype.INVALID_HANDLE_EP, false,
            "dup_ep_handle");
        checkSetupArguments(timeoutMicros, privateData, qos,
            DatArg.EP_DUP_CONNECT_TIMEOUT, DatArg.EP_DUP_CONNECT_PRIVATE_DATA_SIZE, DatArg.EP_DUP_CONNECT_QOS);
        final IaAddress address;
        final long qual;
        dup.lock.lock();
        try
        {
            if (dup.state != EpState.CONNECTED)
            {
                throw Errors.invalidState(EpImpl.stateSubtype(dup.state), "dup_ep_handle is not CONNECTED");
            }
            if (dup.connectedAddress == null)
            {
                throw Errors.invalidParameter(DatArg.EP_DUP_CONNECT_DUP_EP,
                    "dup_ep_handle was connected passively: there is no service "
                    + "point to connect to again");
            }
            address = dup.connectedAddress;
            qual = dup.connectedQual;
        }
        finally
        {
            dup.lock.unlock();
        }
        startConnect(address, qual, timeoutMicros, privateData);
    }

    /**
     * The checks connect and dup_connect share; the argument positions are the caller's, as
     * dat_ep_dup_connect has no address or qualifier and so counts from 3 where connect counts from 4.
     */
    private void checkSetupArguments(final long timeoutMicros, final byte[] privateData, final int qos,
        final int timeoutArg, final int privateDataSizeArg, final int qosArg)
    {
        Errors.checkTimeout(timeoutMicros, timeoutArg);
        if (timeoutMicros == 0)
        {
            throw Errors.invalidParameter(timeoutArg, "the connect timeout must be positive");
        }
        final int max = ep.ia.port().maxPrivateDataSize();
        if (privateData != null && privateData.length > max)
        {
            throw Errors.invalidParameter(privateDataSizeArg,
                privateData.length + " bytes of private data; this provider carries "
                + max);
        }
        if ((qos & ~EpImpl.ALL_QOS) != 0)
        {
            throw Errors.invalidParameter(qosArg, "unknown QoS bits 0x" + Integer.toHexString(qos));
        }
        if (qos != Qos.BEST_EFFORT)
        {
            throw Errors.modelNotSupported("QoS other than DAT_QOS_BEST_EFFORT");
        }
    }

    private void startConnect(final IaAddress remote, final long qual, final long timeoutMicros,
        final byte[] privateData)
    {
        final Connection c = new Connection(ep, true);
        ep.lock.lock();
        try
        {
            ep.checkLive();
            if (ep.state != EpState.UNCONNECTED)
            {
                throw Errors.invalidState(EpImpl.stateSubtype(ep.state), "connect needs an UNCONNECTED endpoint");
            }
            if (ep.pz == null)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EP_PZ, "the endpoint has no PZ");
            }
            if (ep.connectEvd == null)
            {
                throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_EP_EVD_CONNECT,
                    "the endpoint has no connect EVD");
            }
            ep.conn = c;
            ep.state = EpState.ACTIVE_CONNECTION_PENDING;
            ep.remoteAddress = remote;
            ep.remotePortQual = qual;
            ep.connectedAddress = null;
        }
        finally
        {
            ep.lock.unlock();
        }
        final PendingConnect pending;
        try
        {
            pending = ep.ia.port().connect(new ConnectRequest(remote, qual,
                privateData == null ? new byte[0] : privateData.clone(), ep.attr.maxRdmaReadIn, ep.attr.maxRdmaReadOut),
                c);
        }
        catch (final RuntimeException e)
        {
            ep.lock.lock();
            try
            {
                if (ep.conn == c && ep.state == EpState.ACTIVE_CONNECTION_PENDING)
                {
                    ep.conn = null;
                    ep.state = EpState.UNCONNECTED;
                }
            }
            finally
            {
                ep.lock.unlock();
            }
            // dat_ia_close destroyed the endpoint before its transport refused: the handle is gone
            ep.checkLive();
            throw e;
        }
        ep.lock.lock();
        try
        {
            c.pending = pending;
            if (ep.conn == c)
            {
                ep.localPortQual = pending.localPortQual();
                if (!c.closed && !c.established && timeoutMicros != Dat.TIMEOUT_INFINITE)
                {
                    c.timer = ep.ia.schedule(c::timedOut, timeoutMicros);
                }
            }
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** The active side's connection is up. */
    void activeEstablished(final Connection c, final Channel ch, final byte[] privateData, final int peerIrd,
        final int peerOrd)
    {
        ScheduledFuture<?> timer = null;
        boolean stale = false;
        ep.lock.lock();
        try
        {
            if (ep.conn != c || c.closed || ep.state != EpState.ACTIVE_CONNECTION_PENDING)
            {
                stale = true;
            }
            else
            {
                c.channel = ch;
                c.established = true;
                c.negotiated(ep.attr.maxRdmaReadIn, Math.min(ep.attr.maxRdmaReadOut, peerIrd));
                ep.state = EpState.CONNECTED;
                ep.connectedAddress = ep.remoteAddress;
                ep.connectedQual = ep.remotePortQual;
                timer = c.timer;
                FlightEvents.established(ep, true, ep.remoteAddress, ep.remotePortQual);
                ep.postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, privateData.clone());
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        if (timer != null)
        {
            timer.cancel(false);
        }
        if (stale)
        {
            ch.abort();
            return;
        }
        ep.checkWatermarks();
    }

    /** Accepts {@code request} on this endpoint (dat_cr_accept validated the call). */
    void accept(final CrImpl crObj, final IncomingRequest request, final byte[] privateData)
    {
        final Connection c = new Connection(ep, false);
        final int ird;
        final int ord;
        final boolean mismatch;
        ep.lock.lock();
        try
        {
            final int peerIrd = request.peerIrd();
            final int peerOrd = request.peerOrd();
            if (ep.readLimitsExplicit)
            {
                // the consumer chose the limits: they must cover what the peer asked for
                mismatch = ep.attr.maxRdmaReadIn < peerOrd || ep.attr.maxRdmaReadOut > peerIrd;
                ird = ep.attr.maxRdmaReadIn;
                ord = ep.attr.maxRdmaReadOut;
            }
            else
            {
                // provider defaults may be adjusted during setup
                ep.attr.maxRdmaReadIn = Math.min(Math.max(ep.attr.maxRdmaReadIn, peerOrd),
                    ep.ia.config.maxRdmaReadPerEp);
                ep.attr.maxRdmaReadOut = Math.min(ep.attr.maxRdmaReadOut, peerIrd);
                ird = ep.attr.maxRdmaReadIn;
                ord = ep.attr.maxRdmaReadOut;
                mismatch = ird < peerOrd;
            }
            ep.conn = c;
            ep.cr = null;
            ep.rsp = null;
            ep.state = EpState.COMPLETION_PENDING;
            ep.remoteAddress = request.remoteAddress();
            ep.remotePortQual = request.remotePortQual();
            ep.localPortQual = request.localConnQual();
            ep.connectedAddress = null;
            if (!mismatch)
            {
                c.negotiated(ird, Math.min(ord, peerIrd));
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        if (mismatch)
        {
            request.reject(false);
            setupFailed(c, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            return;
        }
        request.accept(privateData == null ? new byte[0] : privateData.clone(), ird, ord, c);
    }

    /** The passive side's connection is up. */
    void passiveEstablished(final Connection c, final Channel ch)
    {
        boolean stale = false;
        ep.lock.lock();
        try
        {
            if (ep.conn != c || c.closed || ep.state != EpState.COMPLETION_PENDING)
            {
                stale = true;
            }
            else
            {
                c.channel = ch;
                c.established = true;
                ep.state = EpState.CONNECTED;
                FlightEvents.established(ep, false, ep.remoteAddress, ep.remotePortQual);
                ep.postConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        if (stale)
        {
            ch.abort();
            return;
        }
        ep.checkWatermarks();
    }

    /** Connection setup failed: the EP is DISCONNECTED, its receives flushed, one event says why. */
    void setupFailed(final Connection c, final EventNumber event)
    {
        ScheduledFuture<?> timer = null;
        ep.lock.lock();
        try
        {
            if (ep.conn != c || c.closed)
            {
                return;
            }
            c.close();
            timer = c.timer;
            ep.state = EpState.DISCONNECTED;
            ep.recvs.flush(c, null);
            ep.requests.flush(null, null);
            FlightEvents.rejected(ep, event.name(), ep.remoteAddress, ep.remotePortQual);
            ep.postConnection(event, null);
        }
        finally
        {
            ep.lock.unlock();
        }
        if (timer != null)
        {
            timer.cancel(false);
        }
    }

    /** dat_ep_disconnect. */
    void disconnect(final int flags)
    {
        ep.checkLive();
        if (flags != CloseFlags.ABRUPT_FLAG && flags != CloseFlags.GRACEFUL_FLAG)
        {
            throw Errors.invalidParameter(DatArg.EP_DISCONNECT_FLAGS,
                "disconnect flags must be ABRUPT (0) or GRACEFUL (1)");
        }
        Connection abortIt = null;
        Channel closeGracefully = null;
        ep.lock.lock();
        try
        {
            final Connection c = ep.conn;
            switch (ep.state)
            {
                case DISCONNECTED:
                    return;
                case ACTIVE_CONNECTION_PENDING:
                case COMPLETION_PENDING:
                    // aborting setup ends in DISCONNECTED, with one terminal event
                    abortIt = c;
                    break;
                case CONNECTED:
                    if (flags == CloseFlags.ABRUPT_FLAG)
                    {
                        abortIt = c;
                    }
                    else
                    {
                        ep.state = EpState.DISCONNECT_PENDING;
                        if (ep.requests.idle() && !c.disconnecting)
                        {
                            c.disconnecting = true;
                            closeGracefully = c.channel;
                        }
                    }
                    break;
                case DISCONNECT_PENDING:
                    // an abrupt disconnect ends it at once; a graceful one changes nothing
                    if (flags == CloseFlags.ABRUPT_FLAG)
                    {
                        abortIt = c;
                    }
                    break;
                default:
                    throw Errors.invalidState(EpImpl.stateSubtype(ep.state), "there is no connection to disconnect");
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        if (abortIt != null)
        {
            // the transport lets go of the queued messages before they are flushed, so a request
            // reported flushed never reaches the peer (Channel#abort); what is delivered meanwhile
            // completes as usual, and whoever ends the connection first reports the one event
            final Channel seen = abortIt.channel;
            abortTransport(abortIt);
            final Channel late;
            ep.lock.lock();
            try
            {
                if (ep.conn == abortIt && ep.state != EpState.DISCONNECTED)
                {
                    endLocked(abortIt, EventNumber.CONNECTION_EVENT_DISCONNECTED, null, null);
                }
                late = abortIt.channel;
            }
            finally
            {
                ep.lock.unlock();
            }
            if (late != null && late != seen)
            {
                // the connection came up while it was being aborted
                late.abort();
            }
        }
        if (closeGracefully != null)
        {
            closeGracefully.disconnect();
        }
    }

    static void abortTransport(final Connection c)
    {
        final ScheduledFuture<?> timer = c.timer;
        if (timer != null)
        {
            timer.cancel(false);
        }
        final PendingConnect p = c.pending;
        if (p != null && !c.established)
        {
            p.cancel();
        }
        final Channel ch = c.channel;
        if (ch != null)
        {
            ch.abort();
        }
    }

    /**
     * Ends a connection: DISCONNECTED, every request and receive flushed (the culprit, if any,
     * with its own status), and one event. Lock held.
     */
    private void endLocked(final Connection c, final EventNumber event, final WorkRequest culprit,
        final DtoStatus culpritStatus)
    {
        c.close();
        ep.state = EpState.DISCONNECTED;
        ep.requests.flush(culprit, culpritStatus);
        ep.recvs.flush(c, null);
        ep.postConnection(event, null);
    }

    /**
     * A violation or an error ends the connection: it breaks here (BROKEN), and the peer is told
     * with a Terminate if {@code send} is given.
     */
    void fail(final Connection c, final TerminateInfo send, final WorkRequest culprit, final DtoStatus culpritStatus,
        final boolean abort)
    {
        final Channel ch;
        ep.lock.lock();
        try
        {
            ch = failLocked(c, send, null, culprit, culpritStatus);
        }
        finally
        {
            ep.lock.unlock();
        }
        tell(ch, send, abort);
    }

    /**
     * {@link #fail} inside the caller's hold of the endpoint's lock, so that the connection breaks
     * at the instant the caller decided it must (nothing posted meanwhile succeeds on a connection
     * that is already lost). Returns the channel to {@link #tell} once the lock is released, or
     * null if the connection had already ended.
     */
    Channel failLocked(final Connection c, final TerminateInfo send, final TerminateInfo received,
        final WorkRequest culprit, final DtoStatus culpritStatus)
    {
        if (ep.conn != c || c.closed)
        {
            return null;
        }
        final Channel ch = c.channel;
        FlightEvents.broken(ep, send != null ? "terminate-sent" : received != null ? "terminate-received"
            : "local error", send != null ? send : received);
        endLocked(c, EventNumber.CONNECTION_EVENT_BROKEN, culprit, culpritStatus);
        return ch;
    }

    /** Tells the peer of a connection {@link #failLocked} ended: a Terminate if given, else an abort if asked. */
    static void tell(final Channel ch, final TerminateInfo send, final boolean abort)
    {
        if (ch == null)
        {
            return;
        }
        if (send != null)
        {
            ch.terminate(send);
        }
        else if (abort)
        {
            ch.abort();
        }
    }

    /** The channel ended. */
    void closed(final Connection c, final CloseReason reason)
    {
        ep.lock.lock();
        try
        {
            if (ep.conn != c || c.closed)
            {
                return;
            }
            if (!c.established)
            {
                c.close();
                ep.state = EpState.DISCONNECTED;
                ep.recvs.flush(c, null);
                ep.requests.flush(null, null);
                final EventNumber event = c.active ? EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED
                    : EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR;
                FlightEvents.rejected(ep, event.name(), ep.remoteAddress, ep.remotePortQual);
                ep.postConnection(event, null);
                return;
            }
            if (reason == CloseReason.BROKEN)
            {
                FlightEvents.broken(ep, "transport", null);
            }
            endLocked(c, reason == CloseReason.BROKEN ? EventNumber.CONNECTION_EVENT_BROKEN
                : EventNumber.CONNECTION_EVENT_DISCONNECTED, null, null);
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** The peer sent a Terminate: the operation it names fails with the matching error. */
    void terminated(final Connection c, final TerminateInfo info)
    {
        ep.lock.lock();
        try
        {
            if (ep.conn != c || c.closed)
            {
                return;
            }
            // one hold: a request posted after the Terminate arrived is flushed, never its culprit
            failLocked(c, null, info, ep.requests.culprit(c, info), dtoStatusFor(info));
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** What a Terminate means for the initiator's DTO. */
    static DtoStatus dtoStatusFor(final TerminateInfo t)
    {
        return switch (t.layer())
        {
            case TerminateCodes.LAYER_RDMAP -> t.etype() == TerminateCodes.RDMAP_REMOTE_PROTECTION
                ? DtoStatus.ERR_REMOTE_ACCESS : DtoStatus.ERR_REMOTE_RESPONDER;
            case TerminateCodes.LAYER_DDP -> switch (t.etype())
            {
                case TerminateCodes.DDP_TAGGED_BUFFER -> DtoStatus.ERR_REMOTE_ACCESS;
                case TerminateCodes.DDP_UNTAGGED_BUFFER -> t.code() == TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER
                    ? DtoStatus.ERR_RECEIVER_NOT_READY : DtoStatus.ERR_REMOTE_RESPONDER;
                default -> DtoStatus.ERR_REMOTE_RESPONDER;
            };
            default -> DtoStatus.ERR_TRANSPORT;
        };
    }

    /** dat_ep_reset. */
    void reset()
    {
        ep.checkLive();
        ep.lock.lock();
        try
        {
            switch (ep.state)
            {
                case UNCONNECTED:
                    return;
                case DISCONNECTED:
                    ep.conn = null;
                    ep.state = EpState.UNCONNECTED;
                    // the old ring may still be referenced by a closing channel: never reuse it
                    ep.requests.renew(ep.attr);
                    ep.localPortQual = 0;
                    ep.remoteAddress = null;
                    ep.remotePortQual = 0;
                    return;
                default:
                    throw Errors.invalidState(EpImpl.stateSubtype(ep.state), "reset needs a DISCONNECTED endpoint");
            }
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** Passive side: the endpoint is handed to a connection request (RSP or provider PSP). */
    void reserveFor(final RspImpl r)
    {
        ep.lock.lock();
        try
        {
            if (ep.state != EpState.UNCONNECTED)
            {
                throw Errors.invalidState(EpImpl.stateSubtype(ep.state), "an RSP needs an UNCONNECTED endpoint");
            }
            ep.rsp = r;
            ep.state = EpState.RESERVED;
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** The RSP received its request: the endpoint waits for accept or reject. */
    boolean requestArrived(final CrImpl crObj)
    {
        ep.lock.lock();
        try
        {
            if (ep.state != EpState.RESERVED)
            {
                return false;
            }
            ep.cr = crObj;
            ep.state = EpState.PASSIVE_CONNECTION_PENDING;
            return true;
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** The RSP's request could not be delivered (its CR EVD was full): reserved again. */
    void requestWithdrawn()
    {
        ep.lock.lock();
        try
        {
            if (ep.state == EpState.PASSIVE_CONNECTION_PENDING)
            {
                ep.state = EpState.RESERVED;
            }
            ep.cr = null;
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** Back to the consumer: its RSP's request was rejected or handed off. */
    void released()
    {
        ep.lock.lock();
        try
        {
            if (ep.state == EpState.PASSIVE_CONNECTION_PENDING)
            {
                ep.state = EpState.UNCONNECTED;
            }
            ep.rsp = null;
            ep.cr = null;
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** Back to the consumer: its RSP was freed before a request came. */
    void unreserve()
    {
        ep.lock.lock();
        try
        {
            if (ep.state == EpState.RESERVED)
            {
                ep.state = EpState.UNCONNECTED;
                ep.rsp = null;
            }
        }
        finally
        {
            ep.lock.unlock();
        }
    }
}

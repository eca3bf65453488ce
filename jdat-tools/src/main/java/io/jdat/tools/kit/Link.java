package io.jdat.tools.kit;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.SharedReceiveQueue;

/**
 * An endpoint with the EVDs it reports to (receive DTOs, request DTOs, connection events),
 * waiting for events in one {@link Completion} mode and checking every completion as dapltest
 * does: event type, status, endpoint, cookie and length. A link is used by one thread at a time.
 */
public final class Link
{
    /** How long an initiator waits for the answer to its first message before it nudges ({@link #nudge()}). */
    public static final long NUDGE_AFTER_MICROS = 250_000;
    /** The cookie of a nudge's RDMA Write. */
    public static final long NUDGE_COOKIE = 0x6e75646765L;
    private static final RmrTriplet NOWHERE = new RmrTriplet(0, 0, 0);
    private static final LmrTriplet[] NOTHING = {};

    /** The endpoint. */
    public final Endpoint ep;
    /** Receive completions. */
    public final EventDispatcher recvEvd;
    /** Send, RDMA and bind completions. */
    public final EventDispatcher reqEvd;
    /** Connection events. */
    public final EventDispatcher connEvd;
    /** The CNO the DTO EVDs report to ({@link Completion#CNO}), else null. */
    public final Cno cno;
    /** How this link waits for DTO completions. */
    public final Completion mode;
    /** The name failures use, for example {@code client thread 0 ep 1}. */
    public final String name;
    private final long timeoutMicros;
    private final DatEvent event = new DatEvent();
    private final DatCount nmore = new DatCount();
    private final DatOut<EventDispatcher> woken = new DatOut<>();

    Link(final Node node, final String name, final EpAttr attr, final Completion mode, final long timeoutMicros)
    {
        this(node, name, attr, mode, timeoutMicros, null);
    }

    Link(final Node node, final String name, final EpAttr attr, final Completion mode, final long timeoutMicros,
        final SharedReceiveQueue srq)
    {
        this.name = name;
        this.mode = mode;
        this.timeoutMicros = timeoutMicros;
        this.cno = mode == Completion.CNO ? node.cno() : null;
        final int depth = attr == null ? 64 : Math.max(attr.maxRecvDtos, attr.maxRequestDtos);
        this.recvEvd = node.evd(depth + 8, cno, EvdFlags.DTO_FLAG);
        this.reqEvd = node.evd(depth + 8, cno, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
        this.connEvd = node.evd(8, null, EvdFlags.CONNECTION_FLAG);
        this.ep = srq == null ? node.ia.epCreate(node.pz, recvEvd, reqEvd, connEvd, attr)
            : node.ia.epCreateWithSrq(node.pz, recvEvd, reqEvd, connEvd, srq, attr == null ? new EpAttr() : attr);
    }

    /** The wait limit of every event this link waits for, in microseconds. */
    public long timeoutMicros()
    {
        return timeoutMicros;
    }

    /**
     * The next event of one of this link's DTO EVDs, waited for in this link's mode. The event
     * object is reused by the next call.
     *
     * @param what what is awaited, for the failure message
     */
    public DatEvent next(final EventDispatcher evd, final String what)
    {
        return next(evd, what, mode);
    }

    /** As {@link #next(EventDispatcher, String)}, waited for in mode {@code how} (CNO only on a CNO link). */
    public DatEvent next(final EventDispatcher evd, final String what, final Completion how)
    {
        final DatStatus s = switch (how)
        {
            case WAIT -> evd.wait(timeoutMicros, 1, event, nmore);
            case POLL -> poll(evd);
            case CNO -> viaCno(evd);
        };
        if (s != DatStatus.SUCCESS)
        {
            throw new CheckFailed(what + " on " + name + ": no event within " + timeoutMicros / 1_000_000.0
                + " s (" + s + ")");
        }
        return event;
    }

    private DatStatus poll(final EventDispatcher evd)
    {
        final long deadline = System.nanoTime() + timeoutMicros * 1000;
        int spins = 0;
        while (evd.dequeue(event) != DatStatus.SUCCESS)
        {
            if ((++spins & 0x3FF) == 0)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    return DatStatus.TIMEOUT_EXPIRED;
                }
                // with more spinning threads than cores, let the peer's thread run
                Thread.yield();
            }
            Thread.onSpinWait();
        }
        return DatStatus.SUCCESS;
    }

    private DatStatus viaCno(final EventDispatcher evd)
    {
        final long deadline = System.nanoTime() + timeoutMicros * 1000;
        while (evd.dequeue(event) != DatStatus.SUCCESS)
        {
            final long left = (deadline - System.nanoTime()) / 1000;
            if (left <= 0)
            {
                return DatStatus.TIMEOUT_EXPIRED;
            }
            // the CNO may name another EVD of this link: dequeue again either way
            final DatStatus s = cno.wait(left, woken);
            if (s != DatStatus.SUCCESS && s != DatStatus.QUEUE_EMPTY && s != DatStatus.TIMEOUT_EXPIRED)
            {
                return s;
            }
        }
        return DatStatus.SUCCESS;
    }

    /** Waits for a receive completion and checks it; returns the event. */
    public DatEvent expectRecv(final String op, final long cookie, final long length)
    {
        return expectDto(recvEvd, op, cookie, length);
    }

    /** Waits for a request completion (Send, RDMA Read or Write) and checks it; returns the event. */
    public DatEvent expectRequest(final String op, final long cookie, final long length)
    {
        return expectDto(reqEvd, op, cookie, length);
    }

    /**
     * Waits for a DTO completion and checks what dapltest's {@code DT_dto_check} checks: a DTO
     * event of this endpoint, status SUCCESS, the cookie posted, and {@code length} bytes
     * transferred ({@code length < 0}: any length).
     */
    public DatEvent expectDto(final EventDispatcher evd, final String op, final long cookie, final long length)
    {
        return checkDto(next(evd, op), op, cookie, length);
    }

    /**
     * As {@link #expectRecv(String, long, long)}, but waits in slices of {@code sliceMicros} and
     * runs {@code meanwhile} after each slice that brought nothing, until this link's timeout.
     * With {@link Completion#CNO} it waits as {@code expectRecv} does, without slices.
     */
    public DatEvent expectRecv(final String op, final long cookie, final long length, final long sliceMicros,
        final Runnable meanwhile)
    {
        return checkDto(nextRecv(op, sliceMicros, meanwhile), op, cookie, length);
    }

    /**
     * The next event of the receive EVD, waited for in slices of {@code sliceMicros}; after each
     * slice that brought nothing {@code meanwhile} runs, until this link's timeout. With
     * {@link Completion#CNO} it waits as {@link #next} does, without slices.
     */
    public DatEvent nextRecv(final String what, final long sliceMicros, final Runnable meanwhile)
    {
        if (mode == Completion.CNO)
        {
            return next(recvEvd, what);
        }
        final long deadline = System.nanoTime() + timeoutMicros * 1000;
        while (true)
        {
            final long left = (deadline - System.nanoTime()) / 1000;
            final DatStatus s = recvEvd.wait(Math.max(1, Math.min(sliceMicros, left)), 1, event, nmore);
            if (s == DatStatus.SUCCESS)
            {
                return event;
            }
            if (s != DatStatus.TIMEOUT_EXPIRED || left <= sliceMicros)
            {
                throw new CheckFailed(what + " on " + name + ": no event within " + timeoutMicros / 1_000_000.0
                    + " s (" + s + ")");
            }
            meanwhile.run();
        }
    }

    /**
     * A zero-length RDMA Write, which places nothing and completes nothing at the peer, its
     * completion reaped. Linux siw, accepting, leaves bytes that arrive between its MPA Reply and
     * the moment it hands the socket to the QP unread until more bytes arrive (docs/interop.md);
     * an initiator that waits for an answer to its first message sends these more bytes.
     */
    public void nudge()
    {
        ep.postRdmaWrite(0, NOTHING, NUDGE_COOKIE, NOWHERE, CompletionFlags.DEFAULT_FLAG);
        expectRequest("a zero-length RDMA Write", NUDGE_COOKIE, 0);
    }

    private DatEvent checkDto(final DatEvent ev, final String op, final long cookie, final long length)
    {
        if (!ev.is(EventNumber.DTO_COMPLETION_EVENT))
        {
            throw new CheckFailed(op + " on " + name + ": expected a DTO completion, saw " + ev);
        }
        if (ev.dto.status != DtoStatus.SUCCESS)
        {
            throw new CheckFailed(op + " on " + name + ": completion status " + ev.dto.status + " (cookie "
                + ev.dto.userCookie + ")");
        }
        if (ev.dto.epHandle != ep)
        {
            throw new CheckFailed(op + " on " + name + ": completion names another endpoint: " + ev);
        }
        if (ev.dto.userCookie != cookie)
        {
            throw new CheckFailed(op + " on " + name + ": completion cookie " + ev.dto.userCookie + ", expected "
                + cookie);
        }
        if (length >= 0 && ev.dto.transferredLength != length)
        {
            throw new CheckFailed(op + " on " + name + ": " + ev.dto.transferredLength + " bytes transferred, expected "
                + length);
        }
        return ev;
    }

    /** The next connection event, waited for with {@code dat_evd_wait}. */
    public DatEvent nextConnectionEvent(final String what)
    {
        final DatStatus s = connEvd.wait(timeoutMicros, 1, event, nmore);
        if (s != DatStatus.SUCCESS)
        {
            throw new CheckFailed(what + " on " + name + ": no connection event within "
                + timeoutMicros / 1_000_000.0 + " s (" + s + ")");
        }
        return event;
    }

    /** Waits for a connection event of the given number. */
    public DatEvent expectConnectionEvent(final EventNumber expected, final String what)
    {
        final DatEvent ev = nextConnectionEvent(what);
        if (!ev.is(expected))
        {
            throw new CheckFailed(what + " on " + name + ": expected " + expected + ", saw " + ev);
        }
        return ev;
    }

    /**
     * {@code dat_ep_connect} and waits for ESTABLISHED; returns the private data the acceptor
     * sent.
     */
    public byte[] connect(final IaAddress address, final long qual, final byte[] privateData)
    {
        ep.connect(address, qual, timeoutMicros, privateData, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
        final DatEvent ev = nextConnectionEvent("connect to " + address + ":" + qual);
        if (ev.is(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED))
        {
            // the peer's provider refused: on tcp a refused TCP connect, on shm no listening file
            throw new CheckFailed("nobody is listening at " + address + ":" + qual + " (connect on " + name + ": "
                + ev.number() + ")");
        }
        if (!ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
        {
            throw new CheckFailed("connect to " + address + ":" + qual + " on " + name + ": " + ev.number());
        }
        return ev.connection.privateData;
    }

    /** {@code dat_cr_accept} of {@code cr} on this endpoint, then waits for ESTABLISHED. */
    public void accept(final ConnectionRequest cr, final byte[] privateData)
    {
        cr.accept(ep, privateData);
        expectConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, "accept");
    }

    /**
     * A graceful {@code dat_ep_disconnect}, then waits for DISCONNECTED (a connection the peer
     * already closed counts).
     */
    public void disconnect()
    {
        try
        {
            ep.disconnect(CloseFlags.GRACEFUL_FLAG);
        }
        catch (final DatException e)
        {
            // not connected (any more): the DISCONNECTED event may already be queued
        }
        awaitDisconnected();
    }

    /** Waits until the connection is gone: DISCONNECTED or BROKEN. */
    public void awaitDisconnected()
    {
        while (true)
        {
            final DatEvent ev = nextConnectionEvent("disconnect");
            if (ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED) || ev.is(EventNumber.CONNECTION_EVENT_BROKEN))
            {
                return;
            }
        }
    }

    /** An abrupt disconnect that never throws: for the error path. */
    public void abort()
    {
        try
        {
            ep.disconnect(CloseFlags.ABRUPT_FLAG);
        }
        catch (final RuntimeException e)
        {
            // not connected
        }
    }

    /**
     * Frees the endpoint, its EVDs and its CNO; what cannot be freed now (for example an
     * endpoint still connected) is left to {@code dat_ia_close}.
     */
    public void free()
    {
        try
        {
            ep.free();
            recvEvd.free();
            reqEvd.free();
            connEvd.free();
            if (cno != null)
            {
                cno.free();
            }
        }
        catch (final DatException e)
        {
            // dat_ia_close frees the rest
        }
    }

    @Override
    public String toString()
    {
        return name;
    }
}

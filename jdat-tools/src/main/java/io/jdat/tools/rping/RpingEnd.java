package io.jdat.tools.rping;

import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;

/**
 * One side of an rping exchange: its endpoint, the 16-byte buffers the {@link RpingInfo}
 * messages go through, and the steps both sides take, each waiting for its completion. A step
 * that fails because the connection ended says so in one line: the connection event and the
 * completion status that were seen.
 */
class RpingEnd
{
    private static final long RECV = 1;
    private static final long SEND = 2;
    private static final long RDMA = 3;

    final Node node;
    final Link link;
    final PrintWriter out;
    final boolean verbose;
    private final Lmr recvBuf;
    private final Lmr sendBuf;
    /** The ping in progress, for messages. */
    int ping;
    private int nudges;

    RpingEnd(final Node node, final PrintWriter out, final boolean verbose, final long timeoutMicros)
    {
        this.node = node;
        this.out = out;
        this.verbose = verbose;
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = 2;
        attr.maxRequestDtos = 4;
        attr.maxRdmaReadIn = 1;
        attr.maxRdmaReadOut = 1;
        this.link = node.link("rping", attr, Completion.WAIT, timeoutMicros);
        this.recvBuf = node.register(RpingInfo.LENGTH, MemPriv.LOCAL_WRITE_FLAG);
        this.sendBuf = node.register(RpingInfo.LENGTH, MemPriv.LOCAL_READ_FLAG);
    }

    /** Posts the one receive buffer (iWARP has no receiver-not-ready: it is always posted before the peer sends). */
    void postRecv()
    {
        link.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(recvBuf, 0, RpingInfo.LENGTH)}, RECV,
            CompletionFlags.DEFAULT_FLAG);
    }

    /** Waits for the peer's message, posts the buffer again, and returns what it said. */
    RpingInfo recv(final String what)
    {
        return received(link.next(link.recvEvd, what), what);
    }

    /**
     * As {@link #recv}, for the answer to this side's first message as an initiator: while it is
     * late, nudges the peer ({@link Link#nudge()}), whose siw may have left that message unread.
     */
    RpingInfo recvNudging(final String what)
    {
        return received(link.nextRecv(what, Link.NUDGE_AFTER_MICROS, () ->
        {
            link.nudge();
            nudges++;
        }), what);
    }

    /** How many times this side nudged the peer ({@link #recvNudging}). */
    int nudges()
    {
        return nudges;
    }

    private RpingInfo received(final DatEvent ev, final String what)
    {
        check(ev, what, RECV);
        final RpingInfo info = RpingInfo.read(recvBuf.memory());
        postRecv();
        return info;
    }

    /** Sends {@code info} and waits until the Send completed. */
    void send(final RpingInfo info, final String what)
    {
        info.write(sendBuf.memory());
        link.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(sendBuf, 0, RpingInfo.LENGTH)}, SEND,
            CompletionFlags.DEFAULT_FLAG);
        check(link.next(link.reqEvd, what), what, SEND);
    }

    /** An RDMA Read of {@code length} bytes of the peer's buffer into the start of {@code lmr}. */
    void read(final Lmr lmr, final RpingInfo from, final int length, final String what)
    {
        link.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, length)}, RDMA,
            new RmrTriplet(from.rkey(), from.buf(), length), CompletionFlags.DEFAULT_FLAG);
        check(link.next(link.reqEvd, what), what, RDMA);
    }

    /** An RDMA Write of the first {@code length} bytes of {@code lmr} into the peer's buffer. */
    void write(final Lmr lmr, final RpingInfo to, final int length, final String what)
    {
        link.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, length)}, RDMA,
            new RmrTriplet(to.rkey(), to.buf(), length), CompletionFlags.DEFAULT_FLAG);
        check(link.next(link.reqEvd, what), what, RDMA);
    }

    private void check(final DatEvent ev, final String what, final long cookie)
    {
        if (!ev.is(EventNumber.DTO_COMPLETION_EVENT))
        {
            throw new CheckFailed(what + " in ping " + ping + ": expected a completion, saw " + ev);
        }
        final DtoStatus status = ev.dto.status;
        if (status != DtoStatus.SUCCESS)
        {
            throw ended(what + " completed with " + status);
        }
        if (ev.dto.userCookie != cookie)
        {
            throw new CheckFailed(what + " in ping " + ping + ": completion cookie " + ev.dto.userCookie);
        }
    }

    /**
     * The connection ended under {@code seen}: with the connection event if one comes within a
     * second (a flushed completion may be dequeued just before the event is posted).
     */
    private Ended ended(final String seen)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = link.connEvd.wait(1_000_000, 1, ev, new DatCount());
        final EventNumber event = s == DatStatus.SUCCESS ? ev.number() : null;
        return new Ended(event, "connection ended in ping " + ping + ": "
            + (event == null ? "no connection event" : event.toString()) + " (" + seen + ")");
    }

    /** A step failed because the connection ended; {@link #event} is what the connection EVD said. */
    static final class Ended extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        /** The connection event seen, or null if none came. */
        final transient EventNumber event;

        Ended(final EventNumber event, final String message)
        {
            super(message);
            this.event = event;
        }

        /** The peer closed the connection (rather than it breaking). */
        boolean byPeer()
        {
            return event == EventNumber.CONNECTION_EVENT_DISCONNECTED;
        }
    }
}

package io.jdat.tools.demo;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PublicServicePoint;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;
import io.jdat.tools.Steps;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import io.jdat.tools.kit.Pattern;

/**
 * {@code jdat demo --srq}: two more connections through the demo's PSP whose server endpoints
 * share one SRQ ({@code dat_srq_create}, {@code dat_ep_create_with_srq}). Each client sends a
 * message of its own pattern; each receive completion must name the server endpoint of that
 * client, whichever SRQ buffer the message landed in, and every byte is checked. Also checked:
 * the SRQ's counts, the low-watermark event on the IA's async EVD, and the SRQ's refusals
 * ({@code dat_ep_post_recv} on its endpoint, {@code dat_srq_free} while in use).
 */
final class SrqDemo
{
    private static final long SECOND = 1_000_000L;
    private static final int BUFFERS = 4;
    private static final int MESSAGE = 4096;
    private static final int LOW_WATERMARK = 3;

    private SrqDemo()
    {
    }

    static void run(final Node node, final Steps steps, final EventDispatcher crEvd, final PublicServicePoint psp,
        final Lmr clientMem, final boolean corrupt)
    {
        final SharedReceiveQueue srq = node.ia.srqCreate(node.pz, new SrqAttr(BUFFERS, 1));
        final Lmr srqMem = node.register((long) BUFFERS * MESSAGE, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        final Link[] clients = new Link[2];
        final Link[] servers = new Link[2];
        for (int i = 0; i < 2; i++)
        {
            clients[i] = node.link("srq client " + i, null, Completion.WAIT, 10 * SECOND);
            servers[i] = node.link("srq server " + i, null, Completion.WAIT, 10 * SECOND, srq);
        }
        steps.step("dat_srq_create (" + BUFFERS + " buffers); dat_ep_create_with_srq x2 on it, two client endpoints");
        for (int i = 0; i < 2; i++)
        {
            clients[i].ep.connect(node.address, psp.connQual(), 10 * SECOND, null, io.jdat.Qos.BEST_EFFORT,
                io.jdat.ConnectFlags.DEFAULT_FLAG);
            final DatEvent ev = new DatEvent();
            if (crEvd.wait(10 * SECOND, 1, ev, new DatCount()) != DatStatus.SUCCESS
                || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
            {
                throw new CheckFailed("srq client " + i + ": no connection request on the PSP");
            }
            final ConnectionRequest cr = ev.crArrival.crHandle;
            servers[i].accept(cr, null);
            clients[i].expectConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, "connect");
        }
        steps.step("both connected through the PSP, each accepted on an endpoint of the SRQ");
        steps.passed(2);

        for (int b = 0; b < BUFFERS; b++)
        {
            srqMem.memory().asSlice((long) b * MESSAGE, MESSAGE).fill((byte) 0);
            srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(srqMem, (long) b * MESSAGE, MESSAGE)}, 100 + b);
        }
        expectCounts(srq, BUFFERS, BUFFERS, "after " + BUFFERS + " dat_srq_post_recv");
        srq.setLw(LOW_WATERMARK);
        if (node.asyncEvd.dequeue(new DatEvent()) != DatStatus.QUEUE_EMPTY)
        {
            throw new CheckFailed("dat_srq_set_lw(" + LOW_WATERMARK + ") with " + BUFFERS
                + " buffers available raised an event at once");
        }
        refused(() -> servers[0].ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(srqMem, 0, MESSAGE)}, 1,
            CompletionFlags.DEFAULT_FLAG), DatReturnType.INVALID_STATE, null,
            "dat_ep_post_recv on an endpoint of an SRQ");
        refused(srq::free, DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
            "dat_srq_free while endpoints use it");
        steps.step("dat_srq_post_recv x" + BUFFERS + ": dat_srq_query counts " + BUFFERS + " available, " + BUFFERS
            + " outstanding; dat_srq_set_lw(" + LOW_WATERMARK + "); dat_ep_post_recv on its endpoint and dat_srq_free "
            + "refused with DAT_INVALID_STATE");
        steps.passed(4);

        final long[] seeds = {40, 41};
        for (int i = 0; i < 2; i++)
        {
            final long at = 49152 + (long) i * MESSAGE;
            Pattern.fill(clientMem.memory(), at, MESSAGE, seeds[i]);
            clients[i].ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(clientMem, at, MESSAGE)}, 200 + i,
                CompletionFlags.DEFAULT_FLAG);
            clients[i].expectRequest("Send to the SRQ", 200 + i, MESSAGE);
        }
        // the event comes when an endpoint takes the buffer that leaves fewer than the watermark,
        // not when the consumer reaps its completion: wait for it before dequeuing any receive
        final DatEvent lw = new DatEvent();
        if (node.asyncEvd.wait(10 * SECOND, 1, lw, new DatCount()) != DatStatus.SUCCESS
            || !lw.is(EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK) || lw.asyncError.datHandle != srq)
        {
            throw new CheckFailed("no SRQ low-watermark event for this SRQ on the async EVD once two of "
                + BUFFERS + " buffers were taken (watermark " + LOW_WATERMARK + "), before any receive was reaped: "
                + lw);
        }
        steps.step("two messages took two SRQ buffers: the low-watermark event (" + (BUFFERS - 2) + " left, below "
            + LOW_WATERMARK + ") reached the async EVD before any receive was dequeued");
        steps.passed(1);
        final boolean[] used = new boolean[BUFFERS];
        for (int i = 0; i < 2; i++)
        {
            final DatEvent ev = servers[i].next(servers[i].recvEvd, "Recv from the SRQ");
            if (!ev.is(EventNumber.DTO_COMPLETION_EVENT) || ev.dto.status != DtoStatus.SUCCESS
                || ev.dto.epHandle != servers[i].ep || ev.dto.transferredLength != MESSAGE)
            {
                throw new CheckFailed("srq server " + i + ": expected a successful " + MESSAGE
                    + "-byte receive naming its own endpoint, saw " + ev + " (" + ev.dto.status + ")");
            }
            final int b = (int) (ev.dto.userCookie - 100);
            if (b < 0 || b >= BUFFERS || used[b])
            {
                throw new CheckFailed("srq server " + i + ": receive cookie " + ev.dto.userCookie
                    + " is no buffer posted to the SRQ, or one already used");
            }
            used[b] = true;
            if (corrupt)
            {
                Pattern.corrupt(srqMem.memory(), (long) b * MESSAGE, MESSAGE);
            }
            Pattern.verify(srqMem.memory(), (long) b * MESSAGE, MESSAGE, seeds[i],
                "SRQ buffer " + b + " of srq server " + i);
        }
        steps.step("a Send from each client: each server endpoint's receive EVD names that endpoint, with an SRQ "
            + "buffer's cookie, and every byte is the pattern of its own client");
        steps.passed(4);

        expectCounts(srq, BUFFERS - 2, BUFFERS - 2, "after two receives were reaped");
        steps.step("dat_srq_query counts " + (BUFFERS - 2) + " available, " + (BUFFERS - 2) + " outstanding");
        steps.passed(1);

        for (int i = 0; i < 2; i++)
        {
            clients[i].disconnect();
            servers[i].awaitDisconnected();
            clients[i].free();
            servers[i].free();
        }
        srq.free();
        srqMem.free();
        steps.step("disconnected and freed both pairs; dat_srq_free with " + (BUFFERS - 2) + " buffers still posted");
        steps.passed(1);
        steps.verified("one SRQ shared by two endpoints: each message in an SRQ buffer, completed on the endpoint it "
            + "came to, every byte checked; counts, low watermark and refusals");
    }

    private static void expectCounts(final SharedReceiveQueue srq, final int available, final int outstanding,
        final String when)
    {
        final SrqParam p = new SrqParam();
        srq.query(SrqParam.FIELD_ALL, p);
        if (p.availableDtoCount != available || p.outstandingDtoCount != outstanding)
        {
            throw new CheckFailed("dat_srq_query " + when + ": " + p.availableDtoCount + " available, "
                + p.outstandingDtoCount + " outstanding; expected " + available + " and " + outstanding);
        }
    }

    private static void refused(final Runnable call, final DatReturnType type, final DatReturnSubtype subtype,
        final String what)
    {
        try
        {
            call.run();
        }
        catch (final DatException e)
        {
            if (e.type() != type || (subtype != null && e.subtype() != subtype))
            {
                throw new CheckFailed(what + ": " + e.getMessage() + " (expected " + type
                    + (subtype == null ? "" : " / " + subtype) + ")");
            }
            return;
        }
        throw new CheckFailed(what + " succeeded; expected " + type);
    }
}

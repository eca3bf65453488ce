package io.jdat.tools.demo;

import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.ReservedServicePoint;
import io.jdat.RspParam;
import io.jdat.tools.Steps;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import io.jdat.tools.kit.Pattern;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code jdat demo --rsp}: a connection through a reserved service point ({@code dat_rsp_create}).
 * The first request to it is rejected, which gives the endpoint back (RESERVED, then
 * PASSIVE_CONNECTION_PENDING, then UNCONNECTED); a second RSP on the same endpoint gets the next
 * request handed off to it ({@code dat_cr_handoff}) from the demo's PSP, it is accepted on that
 * endpoint, and a Send is checked byte by byte over it.
 */
final class RspDemo
{
    private static final long SECOND = 1_000_000L;
    private static final int MESSAGE = 1024;
    /** Where the RSP's qualifier search starts. */
    private static final long FIRST_QUAL = 47300;

    private RspDemo()
    {
    }

    static void run(final Node node, final Steps steps, final Lmr clientMem, final Lmr serverMem,
        final PublicServicePoint psp, final EventDispatcher pspEvd)
    {
        final Link client = node.link("rsp client", null, Completion.WAIT, 10 * SECOND);
        final Link server = node.link("rsp server", null, Completion.WAIT, 10 * SECOND);
        final EventDispatcher crEvd = node.evd(4, null, io.jdat.EvdFlags.CR_FLAG);
        ReservedServicePoint rsp = reserve(node, server, crEvd);
        expectState(server, EpState.RESERVED, "after dat_rsp_create");
        try
        {
            server.ep.free();
            throw new CheckFailed("dat_ep_free of an endpoint reserved by an RSP succeeded");
        }
        catch (final DatException e)
        {
            if (e.type() != DatReturnType.INVALID_STATE)
            {
                throw new CheckFailed("dat_ep_free of a reserved endpoint: " + e.getMessage());
            }
        }
        steps.step("dat_rsp_create on qualifier " + qualOf(rsp) + ": the endpoint is RESERVED, and "
            + "dat_ep_free of it is refused with DAT_INVALID_STATE");
        steps.passed(2);

        final byte[] first = "jdat demo: first".getBytes(StandardCharsets.UTF_8);
        ConnectionRequest cr = request(node, client, rsp, crEvd, server, first);
        cr.reject();
        client.expectConnectionEvent(EventNumber.CONNECTION_EVENT_PEER_REJECTED, "connect to the RSP");
        expectState(server, EpState.UNCONNECTED, "after dat_cr_reject");
        rsp.free();
        client.ep.reset();
        steps.step("a request to the RSP names it and its endpoint (PASSIVE_CONNECTION_PENDING, private data "
            + "checked); dat_cr_reject: PEER_REJECTED on the client, the endpoint UNCONNECTED again");
        steps.detail("then a request to the PSP, dat_cr_handoff to a second RSP on the endpoint: it arrives there");
        steps.passed(4);

        rsp = reserve(node, server, crEvd);
        final byte[] second = "jdat demo: second".getBytes(StandardCharsets.UTF_8);
        client.ep.connect(node.address, psp.connQual(), 10 * SECOND, second, Qos.BEST_EFFORT,
            ConnectFlags.DEFAULT_FLAG);
        final DatEvent ev = new DatEvent();
        if (pspEvd.wait(10 * SECOND, 1, ev, new DatCount()) != DatStatus.SUCCESS
            || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT) || ev.crArrival.spHandle != psp)
        {
            throw new CheckFailed("dat_ep_connect to the PSP: no connection request on its CR EVD");
        }
        ev.crArrival.crHandle.handoff(qualOf(rsp));
        cr = arrived(rsp, crEvd, server, second);
        cr.accept(null, null);
        server.expectConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, "accept on the RSP's endpoint");
        client.expectConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, "connect to the RSP");
        final long seed = 50;
        final long at = 57344;
        server.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(serverMem, at, MESSAGE)}, 61,
            CompletionFlags.DEFAULT_FLAG);
        Pattern.fill(clientMem.memory(), at, MESSAGE, seed);
        client.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(clientMem, at, MESSAGE)}, 62,
            CompletionFlags.DEFAULT_FLAG);
        client.expectRequest("Send over the RSP's connection", 62, MESSAGE);
        server.expectRecv("Recv over the RSP's connection", 61, MESSAGE);
        Pattern.verify(serverMem.memory(), at, MESSAGE, seed, "Recv buffer of the RSP's endpoint");
        steps.step("a request to the PSP handed off (dat_cr_handoff) to a second RSP on the endpoint: it arrives there "
            + "with its private data; dat_cr_accept(DAT_HANDLE_NULL) connects it; a Send of " + MESSAGE
            + " bytes checked byte by byte");
        steps.passed(6);

        client.disconnect();
        server.awaitDisconnected();
        rsp.free();
        client.free();
        server.free();
        crEvd.free();
        steps.step("disconnected; dat_rsp_free, endpoints and EVDs freed");
        steps.passed(1);
        steps.verified("connection through an RSP: reject gives the endpoint back, a request handed off to it "
            + "from a PSP is accepted on it, a Send checked byte by byte");
    }

    /** An RSP for {@code server} on the first free qualifier from {@link #FIRST_QUAL}. */
    private static ReservedServicePoint reserve(final Node node, final Link server, final EventDispatcher crEvd)
    {
        for (long q = FIRST_QUAL; q < FIRST_QUAL + 100; q++)
        {
            try
            {
                return node.ia.rspCreate(q, server.ep, crEvd);
            }
            catch (final DatException e)
            {
                if (e.type() != DatReturnType.CONN_QUAL_IN_USE)
                {
                    throw e;
                }
            }
        }
        throw new CheckFailed("dat_rsp_create: qualifiers " + FIRST_QUAL + ".." + (FIRST_QUAL + 99) + " are in use");
    }

    /** Connects {@code client} to the RSP; checks the request's event and parameters; returns it. */
    private static ConnectionRequest request(final Node node, final Link client, final ReservedServicePoint rsp,
        final EventDispatcher crEvd, final Link server, final byte[] hello)
    {
        client.ep.connect(node.address, qualOf(rsp), 10 * SECOND, hello, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
        return arrived(rsp, crEvd, server, hello);
    }

    /** Waits for the RSP's request; checks its event and parameters; returns it. */
    private static ConnectionRequest arrived(final ReservedServicePoint rsp, final EventDispatcher crEvd,
        final Link server, final byte[] hello)
    {
        final long qual = qualOf(rsp);
        final DatEvent ev = new DatEvent();
        if (crEvd.wait(10 * SECOND, 1, ev, new DatCount()) != DatStatus.SUCCESS
            || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
        {
            throw new CheckFailed("dat_ep_connect to the RSP: no connection request on its CR EVD");
        }
        if (ev.crArrival.spHandle != rsp || ev.crArrival.connQual != qual)
        {
            throw new CheckFailed("the request names another service point or qualifier: " + ev);
        }
        final CrParam p = new CrParam();
        ev.crArrival.crHandle.query(CrParam.FIELD_ALL, p);
        if (p.localEpHandle != server.ep || !Arrays.equals(hello, Arrays.copyOf(p.privateData, p.privateDataSize)))
        {
            throw new CheckFailed("dat_cr_query of the RSP's request: endpoint " + p.localEpHandle
                + ", or private data differs from what dat_ep_connect sent");
        }
        expectState(server, EpState.PASSIVE_CONNECTION_PENDING, "when the request arrived");
        return ev.crArrival.crHandle;
    }

    private static long qualOf(final ReservedServicePoint rsp)
    {
        final RspParam p = new RspParam();
        rsp.query(RspParam.FIELD_ALL, p);
        return p.connQual;
    }

    private static void expectState(final Link link, final EpState expected, final String when)
    {
        final EpParam p = new EpParam();
        link.ep.query(EpParam.FIELD_ALL, p);
        if (p.epState != expected)
        {
            throw new CheckFailed(link.name + " " + when + ": state " + p.epState + ", expected " + expected);
        }
    }
}

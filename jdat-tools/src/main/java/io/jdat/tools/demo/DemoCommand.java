package io.jdat.tools.demo;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RmrTriplet;
import io.jdat.tools.Jdat;
import io.jdat.tools.ProviderOption;
import io.jdat.tools.Steps;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import io.jdat.tools.kit.Pattern;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jdat demo}: one process, one IA, a PSP and two endpoints connected through it; a
 * Send/Recv, an RDMA Write and an RDMA Read, each checked byte by byte; a graceful disconnect
 * and an orderly close. Exits 0 only when every check passed.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Connects two endpoints of one IA and checks Send/Recv, RDMA Write and RDMA Read byte by byte.",
        "The endpoints meet through a PSP; at the end they disconnect and everything is closed. The exit code is "
            + "0 when every check passed."})
public final class DemoCommand implements Callable<Integer>
{
    private static final long SECOND = 1_000_000L;
    private static final int MESSAGE = 4096;
    private static final int RDMA = 16384;
    /** The Send that tells the server an RDMA Write is done. */
    private static final int NOTICE = 8;
    private static final int BUFFER = 65536;

    /** Where {@code --inject-corruption} damages the data, to show that the checks catch it. */
    enum Fault
    {
        none, send, write, read, srq
    }

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private ProviderOption provider;

    @Option(names = "--inject-corruption", hidden = true, defaultValue = "none",
        description = "test only: damage one received byte of this transfer before it is checked")
    private Fault fault;

    @Option(names = "--srq", description = "also connect two endpoints that share one shared receive queue (SRQ) "
        + "and check their receives, the SRQ's counts and its low-watermark event")
    private boolean srq;

    @Option(names = "--rsp", description = "also connect two endpoints through a reserved service point (RSP): "
        + "a rejected request gives the endpoint back, a request handed off to it from the PSP connects it")
    private boolean rsp;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        out.println("jdat demo: provider " + provider.name() + ", one process, two endpoints");
        final Steps steps = new Steps(out);
        try (Node node = Node.open(provider.name()))
        {
            run(node, steps);
        }
        catch (final CheckFailed e)
        {
            spec.commandLine().getErr().println("jdat demo: FAILED: " + e.getMessage());
            out.println("FAILED after " + steps.checks() + " checks passed");
            return Jdat.EXIT_FAILED;
        }
        steps.summary();
        return 0;
    }

    private void run(final Node node, final Steps steps)
    {
        steps.step("dat_ia_open(\"" + node.iaName + "\"): IA address " + node.address + "; dat_pz_create");
        final Lmr clientMem = node.register(BUFFER, MemPriv.ALL_FLAG);
        final Lmr serverMem = node.register(BUFFER, MemPriv.ALL_FLAG);
        steps.step("dat_lmr_create x2 (" + BUFFER + " bytes each): lmr_context 0x"
            + Integer.toHexString(clientMem.lmrContext()) + " and 0x" + Integer.toHexString(serverMem.lmrContext())
            + ", rmr_context 0x" + Integer.toHexString(serverMem.rmrContext()));
        final Link client = node.link("client ep", null, Completion.WAIT, 10 * SECOND);
        final Link server = node.link("server ep", null, Completion.WAIT, 10 * SECOND);
        final EventDispatcher crEvd = node.evd(4, null, EvdFlags.CR_FLAG);
        steps.step("dat_evd_create x7 (receive, request, connection per endpoint; one CR); dat_ep_create x2");
        final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        steps.step("dat_psp_create_any: listening on connection qualifier " + psp.connQual());

        connect(node, steps, client, server, crEvd, psp);
        sendRecv(steps, client, server, clientMem, serverMem);
        rdmaWrite(steps, client, server, clientMem, serverMem);
        rdmaRead(steps, client, clientMem, serverMem);
        if (srq)
        {
            SrqDemo.run(node, steps, crEvd, psp, clientMem, fault == Fault.srq);
        }
        if (rsp)
        {
            RspDemo.run(node, steps, clientMem, serverMem, psp, crEvd);
        }

        client.disconnect();
        server.awaitDisconnected();
        steps.step("dat_ep_disconnect(GRACEFUL): DISCONNECTED on both endpoints");
        steps.passed(2);
        steps.verified("graceful disconnect seen by both endpoints");

        client.ep.free();
        server.ep.free();
        psp.free();
        for (final EventDispatcher evd : new EventDispatcher[] {client.recvEvd, client.reqEvd, client.connEvd,
            server.recvEvd, server.reqEvd, server.connEvd, crEvd})
        {
            evd.free();
        }
        clientMem.free();
        serverMem.free();
        node.pz.free();
        node.ia.close(CloseFlags.GRACEFUL_FLAG);
        steps.step("freed endpoints, PSP, EVDs, LMRs and PZ; dat_ia_close(GRACEFUL) succeeded");
        steps.passed(1);
        steps.verified("every object freed and the IA closed gracefully");
    }

    private static void connect(final Node node, final Steps steps, final Link client, final Link server,
        final EventDispatcher crEvd, final PublicServicePoint psp)
    {
        final byte[] hello = "jdat demo: hello".getBytes(StandardCharsets.UTF_8);
        final byte[] welcome = "jdat demo: welcome".getBytes(StandardCharsets.UTF_8);
        client.ep.connect(node.address, psp.connQual(), 10 * SECOND, hello, io.jdat.Qos.BEST_EFFORT,
            io.jdat.ConnectFlags.DEFAULT_FLAG);
        final DatEvent ev = new DatEvent();
        if (crEvd.wait(10 * SECOND, 1, ev, new io.jdat.DatCount()) != io.jdat.DatStatus.SUCCESS
            || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
        {
            throw new CheckFailed("dat_ep_connect: no connection request on the PSP's CR EVD");
        }
        if (ev.crArrival.spHandle != psp || ev.crArrival.connQual != psp.connQual())
        {
            throw new CheckFailed("connection request names another service point or qualifier: " + ev);
        }
        final ConnectionRequest cr = ev.crArrival.crHandle;
        final CrParam param = new CrParam();
        cr.query(CrParam.FIELD_ALL, param);
        if (!Arrays.equals(hello, Arrays.copyOf(param.privateData, param.privateDataSize)))
        {
            throw new CheckFailed("dat_cr_query: private data differs from what dat_ep_connect sent");
        }
        steps.step("dat_ep_connect -> CONNECTION_REQUEST on the PSP; dat_cr_query shows \"jdat demo: hello\"");
        server.accept(cr, welcome);
        final byte[] got = client.expectConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, "connect")
            .connection.privateData;
        if (!Arrays.equals(welcome, got))
        {
            throw new CheckFailed("ESTABLISHED on the client carries other private data than dat_cr_accept sent");
        }
        steps.step("dat_cr_accept -> ESTABLISHED on both endpoints; the client got \"jdat demo: welcome\"");
        steps.passed(5);
        steps.verified("connection through a PSP, private data checked both ways");
    }

    private void sendRecv(final Steps steps, final Link client, final Link server, final Lmr clientMem,
        final Lmr serverMem)
    {
        final long seed = 1;
        server.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(serverMem, 0, MESSAGE)}, 11,
            CompletionFlags.DEFAULT_FLAG);
        Pattern.fill(clientMem.memory(), 0, MESSAGE, seed);
        client.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(clientMem, 0, MESSAGE)}, 12,
            CompletionFlags.DEFAULT_FLAG);
        client.expectRequest("Send", 12, MESSAGE);
        server.expectRecv("Recv", 11, MESSAGE);
        if (fault == Fault.send)
        {
            Pattern.corrupt(serverMem.memory(), 0, MESSAGE);
        }
        Pattern.verify(serverMem.memory(), 0, MESSAGE, seed, "Recv buffer of the server");
        steps.step("dat_ep_post_send " + MESSAGE + " bytes -> Recv on the server: completions (status, cookie, "
            + "length) and every byte checked");
        steps.passed(3);
        steps.verified("Send/Recv of " + MESSAGE + " bytes: both completions and every byte");
    }

    private void rdmaWrite(final Steps steps, final Link client, final Link server, final Lmr clientMem,
        final Lmr serverMem)
    {
        final long seed = 2;
        final long at = 16384;
        Pattern.fill(clientMem.memory(), at, RDMA, seed);
        client.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(clientMem, at, RDMA)}, 21,
            new RmrTriplet(serverMem.rmrContext(), serverMem.registeredAddress() + at, RDMA),
            CompletionFlags.DEFAULT_FLAG);
        client.expectRequest("RDMA Write", 21, RDMA);
        // a Write's completion means only that the initiator is done with its buffer (over tcp:
        // the bytes left); a Send posted after it arrives after the Write was placed, so the
        // server checks its memory once that Send's Recv completed
        server.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(serverMem, 0, NOTICE)}, 22,
            CompletionFlags.DEFAULT_FLAG);
        client.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(clientMem, 0, NOTICE)}, 23,
            CompletionFlags.DEFAULT_FLAG);
        client.expectRequest("Send after the RDMA Write", 23, NOTICE);
        server.expectRecv("Recv after the RDMA Write", 22, NOTICE);
        if (fault == Fault.write)
        {
            Pattern.corrupt(serverMem.memory(), at, RDMA);
        }
        Pattern.verify(serverMem.memory(), at, RDMA, seed, "RDMA Write target in the server's LMR");
        steps.step("dat_ep_post_rdma_write " + RDMA + " bytes into the server's LMR, then a Send: completions, and "
            + "every byte checked once the Send arrived");
        steps.passed(4);
        steps.verified("RDMA Write of " + RDMA + " bytes: completion and every byte at the target");
    }

    private void rdmaRead(final Steps steps, final Link client, final Lmr clientMem, final Lmr serverMem)
    {
        final long seed = 3;
        final long at = 32768;
        Pattern.fill(serverMem.memory(), at, RDMA, seed);
        client.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(clientMem, at, RDMA)}, 31,
            new RmrTriplet(serverMem.rmrContext(), serverMem.registeredAddress() + at, RDMA),
            CompletionFlags.DEFAULT_FLAG);
        client.expectRequest("RDMA Read", 31, RDMA);
        if (fault == Fault.read)
        {
            Pattern.corrupt(clientMem.memory(), at, RDMA);
        }
        Pattern.verify(clientMem.memory(), at, RDMA, seed, "RDMA Read sink in the client's LMR");
        steps.step("dat_ep_post_rdma_read " + RDMA + " bytes from the server's LMR: completion and every byte checked");
        steps.passed(2);
        steps.verified("RDMA Read of " + RDMA + " bytes: completion and every byte in the sink");
    }
}

package io.jdat.tools.dapltest;

import io.jdat.DatException;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.ReservedServicePoint;
import io.jdat.RspParam;
import io.jdat.ConnectionRequest;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.ControlChannel;
import io.jdat.tools.kit.HostPort;
import io.jdat.tools.kit.Message;
import io.jdat.tools.kit.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * dapltest's transaction test, both sides: endpoints per thread connected through a PSP (or one
 * RSP each), the op list run for the iterations asked, every completion (and with validation
 * every byte) checked; the server reports its own checks back to the client.
 */
final class Transaction
{
    private Transaction()
    {
    }

    private static List<List<TestEndpoint>> endpoints(final Node node, final boolean client,
        final TransactionParams p, final long timeoutMicros)
    {
        final List<List<TestEndpoint>> all = new ArrayList<>();
        for (int t = 0; t < p.threads(); t++)
        {
            final List<TestEndpoint> mine = new ArrayList<>();
            for (int e = 0; e < p.eps(); e++)
            {
                final TestEndpoint ep = new TestEndpoint(node, client, t, e, p.ops(), p.mode(), timeoutMicros);
                ep.prepare();
                mine.add(ep);
            }
            all.add(mine);
        }
        return all;
    }

    private static void abortAll(final List<List<TestEndpoint>> all)
    {
        all.forEach(eps -> eps.forEach(ep -> ep.link.abort()));
    }

    private static void freeAll(final List<List<TestEndpoint>> all)
    {
        all.forEach(eps -> eps.forEach(TestEndpoint::free));
    }

    /** The client: asks the server, connects, runs, and returns both sides' outcome (the server's as failures). */
    static Outcome client(final Node node, final ControlChannel ctrl, final HostPort server, final TransactionParams p,
        final long timeoutMicros, final Outcome serverOutcome)
    {
        final Outcome mine = new Outcome();
        final Message ready = ctrl.call(p.toMessage()).expect("READY");
        final List<List<TestEndpoint>> all = endpoints(node, true, p, timeoutMicros);
        final long[] quals = new long[p.threads() * p.eps()];
        if (p.rsp())
        {
            final String[] q = ready.get("rsp").split(",");
            for (int i = 0; i < quals.length; i++)
            {
                quals[i] = Long.parseLong(q[i]);
            }
        }
        else
        {
            java.util.Arrays.fill(quals, ready.getLong("psp"));
        }
        final boolean[][] connected = new boolean[p.threads()][p.eps()];
        final AtomicBoolean corrupt = new AtomicBoolean(p.corrupt());
        mine.runThreads("jdat-test-client", p.threads(), t ->
        {
            final List<TestEndpoint> eps = all.get(t);
            for (final TestEndpoint ep : eps)
            {
                ep.link.connect(server.address(), quals[t * p.eps() + ep.index], Protocol.testEp(t, ep.index));
                connected[t][ep.index] = true;
            }
            new TransactionWorker(eps, true, p.iters(), p.validate(), mine.checks(), corrupt).run();
        }, () -> abortAll(all));
        final Message result = ctrl.receive();
        if (result.verb().equals(Message.FAIL))
        {
            serverOutcome.fail(result.get(Message.WHY));
        }
        else
        {
            result.expect("RESULT");
        }
        serverOutcome.checks().set(result.fields().containsKey("checks") ? result.getLong("checks") : 0);
        for (final List<TestEndpoint> eps : all)
        {
            for (final TestEndpoint ep : eps)
            {
                if (connected[ep.thread][ep.index])
                {
                    try
                    {
                        ep.link.disconnect();
                    }
                    catch (final RuntimeException e)
                    {
                        mine.fail(e);
                    }
                }
            }
        }
        ctrl.send("END");
        freeAll(all);
        return mine;
    }

    /** The server's part of one transaction request; reports RESULT or FAIL, then waits for END. */
    static Outcome server(final Node node, final ControlChannel ctrl, final TransactionParams p, final long basePort,
        final long timeoutMicros)
    {
        final Outcome mine = new Outcome();
        final List<List<TestEndpoint>> all = new ArrayList<>();
        final List<Runnable> frees = new ArrayList<>();
        try
        {
            all.addAll(endpoints(node, false, p, timeoutMicros));
            final List<TestEndpoint> flat = all.stream().flatMap(List::stream).toList();
            final List<EventDispatcher> crEvds = new ArrayList<>();
            if (p.rsp())
            {
                final List<String> quals = new ArrayList<>();
                long next = basePort + 1;
                for (final TestEndpoint ep : flat)
                {
                    final EventDispatcher crEvd = node.evd(4, null, EvdFlags.CR_FLAG);
                    crEvds.add(crEvd);
                    final ReservedServicePoint rsp = reserve(node, ep, crEvd, next);
                    final long qual = connQual(rsp);
                    next = qual + 1;
                    quals.add(Long.toString(qual));
                    frees.add(rsp::free);
                }
                ctrl.send(Message.of("READY").with("rsp", String.join(",", quals)).build());
                for (int i = 0; i < flat.size(); i++)
                {
                    final TestEndpoint ep = flat.get(i);
                    final ConnectionRequest cr = Protocol.nextRequest(crEvds.get(i), timeoutMicros,
                        "RSP of " + ep.link.name);
                    checkPrivateData(cr, ep);
                    cr.accept(null, null);
                    ep.link.expectConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, "accept on the RSP");
                }
            }
            else
            {
                final EventDispatcher crEvd = node.evd(flat.size() + 4, null, EvdFlags.CR_FLAG);
                crEvds.add(crEvd);
                final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
                frees.add(psp::free);
                ctrl.send(Message.of("READY").with("psp", psp.connQual()).build());
                final boolean[] accepted = new boolean[flat.size()];
                for (int n = 0; n < flat.size(); n++)
                {
                    final ConnectionRequest cr = Protocol.nextRequest(crEvd, timeoutMicros, "test PSP");
                    final TestEndpoint ep = byPrivateData(cr, all);
                    final int i = ep.thread * p.eps() + ep.index;
                    if (accepted[i])
                    {
                        cr.reject();
                        throw new CheckFailed("test PSP: a second connection request for " + ep.link.name);
                    }
                    accepted[i] = true;
                    ep.link.accept(cr, null);
                }
            }
            crEvds.forEach(e -> frees.add(e::free));
            final AtomicBoolean corrupt = new AtomicBoolean(p.corrupt());
            mine.runThreads("jdat-test-server", p.threads(),
                t -> new TransactionWorker(all.get(t), false, p.iters(), p.validate(), mine.checks(), corrupt).run(),
                () -> abortAll(all));
        }
        catch (final CheckFailed | DatException e)
        {
            mine.fail(e);
            abortAll(all);
        }
        if (mine.passed())
        {
            ctrl.send(Message.of("RESULT").with("checks", mine.checks().get()).build());
        }
        else
        {
            ctrl.send(Message.of(Message.FAIL).with("checks", mine.checks().get())
                .with(Message.WHY, String.join(" | ", mine.failures())).build());
        }
        ctrl.receive().expect("END");
        freeAll(all);
        frees.forEach(f ->
        {
            try
            {
                f.run();
            }
            catch (final DatException e)
            {
                // left to dat_ia_close
            }
        });
        return mine;
    }

    private static ReservedServicePoint reserve(final Node node, final TestEndpoint ep, final EventDispatcher crEvd,
        final long from)
    {
        DatException last = null;
        // from the base port up, then a range that is also a TCP port range
        for (int n = 0; n < 2000; n++)
        {
            final long q = n < 1000 ? from + n : 20_000 + n;
            try
            {
                return node.ia.rspCreate(q, ep.link.ep, crEvd);
            }
            catch (final DatException e)
            {
                last = e;
            }
        }
        throw new CheckFailed("no free connection qualifier for an RSP from " + from + ": " + last.getMessage());
    }

    /** The connection qualifier an RSP listens on ({@code dat_rsp_query}). */
    private static long connQual(final ReservedServicePoint rsp)
    {
        final RspParam param = new RspParam();
        rsp.query(RspParam.FIELD_CONN_QUAL, param);
        return param.connQual;
    }

    private static void checkPrivateData(final ConnectionRequest cr, final TestEndpoint ep)
    {
        final String pd = Protocol.privateData(cr);
        final String expected = new String(Protocol.testEp(ep.thread, ep.index),
            java.nio.charset.StandardCharsets.US_ASCII);
        if (!pd.equals(expected))
        {
            cr.reject();
            throw new CheckFailed("connection request for " + ep.link.name + ": private data '" + pd + "', expected '"
                + expected + "'");
        }
    }

    private static TestEndpoint byPrivateData(final ConnectionRequest cr, final List<List<TestEndpoint>> all)
    {
        final String pd = Protocol.privateData(cr);
        if (pd.startsWith(Protocol.TEST_EP + " "))
        {
            final Message m = Message.parse("X " + pd.substring(Protocol.TEST_EP.length() + 1));
            final int t = m.getInt("t");
            final int e = m.getInt("e");
            if (t >= 0 && t < all.size() && e >= 0 && e < all.get(t).size())
            {
                return all.get(t).get(e);
            }
        }
        cr.reject();
        throw new CheckFailed("test PSP: connection request with unexpected private data '" + pd + "'");
    }
}

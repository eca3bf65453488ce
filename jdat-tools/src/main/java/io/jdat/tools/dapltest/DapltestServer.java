package io.jdat.tools.dapltest;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.ReservedServicePoint;
import io.jdat.tools.Jdat;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's side of one OFED dapltest client ({@code dapltest -T T|P|Q}, {@code test/dapltest/}:
 * {@code dapl_server.c}), on the control connection {@link TestServer} accepted for it.
 *
 * <ol>
 * <li>Receives {@code Client_Info} and the command, 8192 bytes each ({@link DapltestWire}); a
 * message of another size, version or byte order, or a command out of range, ends the session
 * with an error naming it.</li>
 * <li>Creates the PSPs of the test connections, {@code first_port + t * eps + e} (a performance
 * test has one; a transaction client that asks for RSPs gets an endpoint and an RSP bound to it on
 * each port instead, as from dapltest's server), then Sends {@code Server_Info} with
 * {@code first_port} and disconnects.</li>
 * <li>A transaction test runs the server's part of the op list on one thread per client thread
 * ({@link DapltestThread}); a test connection's private data must start with
 * {@code "DAPL and RDMA rule! Test 4321."}. A performance test exposes one buffer of the op's
 * size: it Sends its remote memory entry (12 bytes), the client runs its RDMA Reads or Writes
 * against it, and Sends one back when done. A quit test stops the server.</li>
 * </ol>
 */
final class DapltestServer
{
    private static final long CTRL_COOKIE = 0xc0;
    private static final long PERF_COOKIE = 0xf0;
    /**
     * How long the performance server waits after ESTABLISHED before its first Send. Its client
     * Sends nothing first, so the Send follows the MPA Reply at once; siw's active side reads the
     * Reply together with the next 4 bytes and fails the connection ("peer sent extra data") when
     * they are there already, which a relay that joins the two into one TCP segment makes sure of.
     */
    static final long PERF_FIRST_SEND_PAUSE_MS = 250;

    /** What a session needs of the server it runs in. */
    interface Host
    {
        /** Reserves {@code n} consecutive test ports; returns the first. */
        long ports(int n);

        /** Stops the server once the running sessions end. */
        void quit();

        /** One line of the server's log. */
        void log(String line);
    }

    private final Node node;
    private final Host host;
    private final String name;
    private final long timeoutMicros;
    private final Link ctrl;
    private final Lmr buf;
    private final LmrTriplet[] one = {new LmrTriplet()};

    private DapltestServer(final Node node, final Host host, final String name, final long timeoutMicros)
    {
        this.node = node;
        this.host = host;
        this.name = name;
        this.timeoutMicros = timeoutMicros;
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = 2;
        attr.maxRequestDtos = 2;
        this.ctrl = node.link(name + " control", attr, Completion.WAIT, timeoutMicros);
        this.buf = node.register(3L * DapltestWire.CONTROL_SIZE, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
    }

    /**
     * Posts the receives of {@code Client_Info} and the command (the client Sends them at once),
     * accepts {@code cr} and returns the session, to be {@link #run() run} on a thread of its own.
     */
    static DapltestServer accept(final Node node, final Host host, final String name, final ConnectionRequest cr,
        final long timeoutMicros)
    {
        final DapltestServer s = new DapltestServer(node, host, name, timeoutMicros);
        try
        {
            for (int i = 0; i < 2; i++)
            {
                s.one[0].set(s.buf, (long) i * DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE);
                s.ctrl.ep.postRecv(1, s.one, CTRL_COOKIE + i, CompletionFlags.DEFAULT_FLAG);
            }
            s.ctrl.accept(cr, null);
            return s;
        }
        catch (final RuntimeException e)
        {
            s.free();
            throw e;
        }
    }

    /** Serves the client; every failure ends up in the log, none escapes. */
    void run()
    {
        final List<PublicServicePoint> psps = new ArrayList<>();
        final List<ReservedServicePoint> rsps = new ArrayList<>();
        final List<EventDispatcher> crEvds = new ArrayList<>();
        try
        {
            final MemorySegment m = buf.memory();
            final long got = ctrl.expectRecv("Recv of Client_Info", CTRL_COOKIE, -1).dto.transferredLength;
            final DapltestWire.ClientInfo info = DapltestWire.clientInfo(m, got);
            final long cmdLength = ctrl.expectRecv("Recv of the command", CTRL_COOKIE + 1, -1).dto.transferredLength;
            final MemorySegment cmd = m.asSlice(DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE);
            switch (info.testType())
            {
                case TRANSACTION ->
                {
                    final TransactionParams p = DapltestWire.transaction(cmd, cmdLength);
                    host.log(name + ": dapltest transaction, " + p.describe());
                    final List<DapltestEndpoint> reserved = new ArrayList<>();
                    try
                    {
                        final long first = p.rsp() ? reserve(p, reserved, rsps, crEvds)
                            : listen(p.threads() * p.eps(), psps, crEvds);
                        answer(first);
                        transaction(p, first, reserved, crEvds);
                    }
                    finally
                    {
                        // those no server thread took over
                        DapltestEndpoint.endAll(reserved.stream().filter(Objects::nonNull).toList(), false);
                    }
                }
                case PERFORMANCE ->
                {
                    final DapltestWire.PerformanceCmd p = DapltestWire.performance(cmd, cmdLength);
                    host.log(name + ": dapltest performance, client " + p.type() + " of " + p.segs() + " x "
                        + p.segSize() + " bytes, " + p.iterations() + " iterations, pipeline " + p.pipeline()
                        + (p.poll() ? ", polling" : ""));
                    final long first = listen(1, psps, crEvds);
                    answer(first);
                    performance(p, psps.getFirst(), crEvds.getFirst());
                }
                case QUIT ->
                {
                    host.log(name + ": dapltest quit");
                    host.quit();
                    answer(host.ports(0));
                }
                case LIMIT, FFT ->
                {
                    // as dapltest: a limit test is the client's alone, an FFT test is not served
                    host.log(name + ": dapltest test type " + info.testType() + " (" + info.testType().wire
                        + ") is not served here");
                    answer(host.ports(0));
                }
            }
        }
        catch (final RuntimeException e)
        {
            host.log(name + ": FAILED: " + Jdat.describe(e));
            ctrl.abort();
        }
        finally
        {
            for (final PublicServicePoint psp : psps)
            {
                freeQuietly(psp::free);
            }
            for (final ReservedServicePoint rsp : rsps)
            {
                freeQuietly(rsp::free);
            }
            for (final EventDispatcher evd : crEvds)
            {
                freeQuietly(evd::free);
            }
            free();
        }
    }

    /** One PSP with its own CR EVD on each of {@code n} new test ports; returns the first port. */
    private long listen(final int n, final List<PublicServicePoint> psps, final List<EventDispatcher> crEvds)
    {
        final long first = host.ports(n);
        for (int i = 0; i < n; i++)
        {
            final EventDispatcher evd = node.evd(4, null, EvdFlags.CR_FLAG);
            crEvds.add(evd);
            psps.add(node.ia.pspCreate(first + i, evd, PspFlags.CONSUMER_FLAG));
        }
        return first;
    }

    /**
     * As dapltest's server with {@code -r}: for each test endpoint, the endpoint itself and an RSP
     * bound to it, with its own CR EVD, on each of the new test ports; returns the first port.
     */
    private long reserve(final TransactionParams p, final List<DapltestEndpoint> reserved,
        final List<ReservedServicePoint> rsps, final List<EventDispatcher> crEvds)
    {
        final int n = p.threads() * p.eps();
        final long first = host.ports(n);
        for (int i = 0; i < n; i++)
        {
            final DapltestEndpoint ep = new DapltestEndpoint(node, true, endpointName(i / p.eps(), i % p.eps()), p,
                timeoutMicros);
            reserved.add(ep);
            final EventDispatcher evd = node.evd(4, null, EvdFlags.CR_FLAG);
            crEvds.add(evd);
            rsps.add(node.ia.rspCreate(first + i, ep.link.ep, evd));
        }
        return first;
    }

    private String endpointName(final int thread, final int e)
    {
        return name + " thread " + thread + " ep " + e;
    }

    /** Sends {@code Server_Info} naming {@code firstPort}, then closes the control connection. */
    private void answer(final long firstPort)
    {
        DapltestWire.serverInfo(buf.memory().asSlice(2L * DapltestWire.CONTROL_SIZE), firstPort);
        one[0].set(buf, 2L * DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE);
        ctrl.ep.postSend(1, one, CTRL_COOKIE + 2, CompletionFlags.DEFAULT_FLAG);
        ctrl.expectRequest("Send of Server_Info", CTRL_COOKIE + 2, DapltestWire.CONTROL_SIZE);
        ctrl.disconnect();
    }

    private void transaction(final TransactionParams p, final long first, final List<DapltestEndpoint> reserved,
        final List<EventDispatcher> crEvds)
    {
        final AtomicLong checks = new AtomicLong();
        DapltestThread.inParallel(p.threads(), "jdat-dapltest-server-" + first + "-",
            thread -> serverThread(p, thread, first, reserved, crEvds, checks), () ->
            {
                // each server thread ends on its own, at its endpoints' errors or timeouts
            });
        host.log(name + ": dapltest transaction passed, " + checks.get() + " checks on this side");
    }

    /**
     * One server thread: accepts its endpoints' connections, each on its PSP or, when the client
     * asked for RSPs, on the RSP of an endpoint {@link #reserve reserved} for it (taken over from
     * {@code reserved}), then runs the op list over them.
     */
    private void serverThread(final TransactionParams p, final int thread, final long first,
        final List<DapltestEndpoint> reserved, final List<EventDispatcher> crEvds, final AtomicLong checks)
    {
        final List<DapltestEndpoint> eps = new ArrayList<>();
        boolean passed = false;
        try
        {
            for (int e = 0; e < p.eps(); e++)
            {
                final int i = thread * p.eps() + e;
                final String what = endpointName(thread, e);
                final ConnectionRequest cr = Protocol.nextRequest(crEvds.get(i), timeoutMicros,
                    what + " on port " + (first + i));
                final String pd = Protocol.privateData(cr);
                if (!pd.startsWith(DapltestWire.TEST_EP_PRIVATE_DATA))
                {
                    cr.reject();
                    throw new CheckFailed(what + ": the connection request's private data is '" + printable(pd)
                        + "', dapltest's starts with '" + DapltestWire.TEST_EP_PRIVATE_DATA + "'");
                }
                if (p.rsp())
                {
                    final DapltestEndpoint ep = takeOver(reserved, i);
                    eps.add(ep);
                    cr.accept(null, null);
                    ep.link.expectConnectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, "accept on the RSP");
                }
                else
                {
                    final DapltestEndpoint ep = new DapltestEndpoint(node, true, what, p, timeoutMicros);
                    eps.add(ep);
                    ep.link.accept(cr, null);
                }
                eps.getLast().exchangeRmi();
            }
            new DapltestThread(true, p, eps, checks).run(() ->
            {
            });
            passed = true;
        }
        finally
        {
            DapltestEndpoint.endAll(eps, passed);
        }
    }

    /** Takes endpoint {@code i} out of {@code reserved}: from now on its server thread frees it. */
    private static DapltestEndpoint takeOver(final List<DapltestEndpoint> reserved, final int i)
    {
        synchronized (reserved)
        {
            return reserved.set(i, null);
        }
    }

    private void performance(final DapltestWire.PerformanceCmd p, final PublicServicePoint psp,
        final EventDispatcher crEvd)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = 2;
        attr.maxRequestDtos = 2;
        final Link link = node.link(name + " performance", attr, p.poll() ? Completion.POLL : Completion.WAIT,
            timeoutMicros);
        final Lmr target = node.register(p.length(), MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG
            | MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG);
        final Lmr sync = node.register(2L * DapltestWire.PERF_SYNC_SIZE, MemPriv.LOCAL_READ_FLAG
            | MemPriv.LOCAL_WRITE_FLAG);
        try
        {
            final LmrTriplet[] iov = {LmrTriplet.of(sync, DapltestWire.PERF_SYNC_SIZE, DapltestWire.PERF_SYNC_SIZE)};
            link.ep.postRecv(1, iov, PERF_COOKIE + 1, CompletionFlags.DEFAULT_FLAG);
            final ConnectionRequest cr = Protocol.nextRequest(crEvd, timeoutMicros,
                name + " performance connection on port " + psp.connQual());
            link.accept(cr, null);
            pause(PERF_FIRST_SEND_PAUSE_MS);
            DapltestWire.putEntry(sync.memory(), target.rmrContext(), target.registeredAddress());
            iov[0] = LmrTriplet.of(sync, 0, DapltestWire.PERF_SYNC_SIZE);
            link.ep.postSend(1, iov, PERF_COOKIE, CompletionFlags.DEFAULT_FLAG);
            try
            {
                link.expectRequest("Send of the remote memory entry", PERF_COOKIE, DapltestWire.PERF_SYNC_SIZE);
            }
            catch (final CheckFailed e)
            {
                // dapltest's performance server Sends first, against RFC 5044's startup rule
                throw new CheckFailed(e.getMessage() + "; the client sent nothing first: a tcp IA holds the "
                    + "responder's first Send until it does, unless its instance data says responder_waits=false");
            }
            // the client's two phases of RDMA run against the buffer; its sync says they are done
            link.expectRecv("Recv of the client's sync after " + 2 * p.iterations() + " RDMA ops", PERF_COOKIE + 1,
                DapltestWire.PERF_SYNC_SIZE);
            link.abort();
            link.awaitDisconnected();
            host.log(name + ": dapltest performance done: the client's sync arrived after its " + p.iterations()
                + " + " + p.iterations() + " " + p.type() + " ops");
        }
        catch (final RuntimeException e)
        {
            link.abort();
            throw e;
        }
        finally
        {
            link.free();
            freeQuietly(target::free);
            freeQuietly(sync::free);
        }
    }

    private static void pause(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new CheckFailed("interrupted");
        }
    }

    private static String printable(final String s)
    {
        return s.codePoints().map(c -> c >= 0x20 && c < 0x7f ? c : '.')
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    }

    private static void freeQuietly(final Runnable free)
    {
        try
        {
            free.run();
        }
        catch (final RuntimeException e)
        {
            // dat_ia_close frees the rest
        }
    }

    private void free()
    {
        ctrl.free();
        freeQuietly(buf::free);
    }
}

package io.jdat.tools.dtest;

import io.jdat.ConnectFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.tools.Jdat;
import io.jdat.tools.ProviderOption;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Node;
import io.jdat.registry.Registry;
import io.jdat.spi.StaticRegistryEntry;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jdat dtest}: OFED DAPL's dtest, on its wire, so that either end may be the real
 * {@code dtest}. {@code -s} serves one client: it waits for a client on TCP port 15828, writes
 * it dtest's 128-byte message (address and IA name), creates its PSP on 45248 and accepts the
 * connection whose private data is dtest's 48 bytes. {@code -h HOST} fetches that message and
 * connects. Then both run dtest's phases ({@link DtestPeer}). Without {@code -s} or {@code -h}
 * both sides run in this process, through a PSP of any qualifier and without the out-of-band
 * step.
 */
@Command(name = "dtest", sortOptions = false,
    description = {"Runs OFED DAPL's dtest as a peer of the real one: an RDMA Write burst, RDMA Reads and a ping-pong.",
        "-s serves one client (out-of-band message on TCP 15828, PSP 45248); -h HOST connects to a dtest server, "
            + "jdat's or DAPL's. After the connection each side Sends its RMR triplet, writes -B times -b bytes into "
            + "the peer's buffer, reads it back 4 times, and runs 100 Send/Recv round trips of -b bytes (-W: an RDMA "
            + "Write ping-pong instead). Both ends must run with the same -b. Without -s or -h, client and server "
            + "run in this process."})
public final class DtestCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private ProviderOption provider;

    // dtest's -h is the server's host, so help is --help alone
    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
    private boolean help;

    @Option(names = "-s", description = "server: serve one dtest client, then exit")
    private boolean server;

    @Option(names = "-h", paramLabel = "HOST", description = "client of the dtest server on HOST")
    private String host;

    @Option(names = "-b", defaultValue = "64", paramLabel = "BYTES",
        description = "bytes per RDMA Write and per message (default: ${DEFAULT-VALUE}; with -W and no -D: 1)")
    private int size;

    @Option(names = "-B", defaultValue = "10", paramLabel = "N",
        description = "RDMA Writes in the burst, or write ping-pong rounds with -W (default: ${DEFAULT-VALUE})")
    private int burst;

    @Option(names = "-S", defaultValue = "10", paramLabel = "N",
        description = "signal one RDMA Write completion in N (default: ${DEFAULT-VALUE}; -W: 1)")
    private int signalRate;

    @Option(names = "-u", description = "unidirectional: the server does not write")
    private boolean uni;

    @Option(names = "-w", description = "RDMA Writes only (no reads, no ping-pong)")
    private boolean writeOnly;

    @Option(names = "-W", description = "RDMA Write ping-pong instead of the three phases")
    private boolean writePingPong;

    @Option(names = "-D", description = "RDMA Write ping-pong with data patterns, checked (implies -W)")
    private boolean dataCheck;

    @Option(names = "-a", description = "with -W: every power-of-2 size up to -b, and each one -1 and +1")
    private boolean allSizes;

    @Option(names = "-i", defaultValue = "0", paramLabel = "BYTES",
        description = "with -a: sizes BYTES, 2*BYTES, ... up to -b instead of powers of 2")
    private int increment;

    @Option(names = "-p", description = "poll completions with dat_evd_dequeue")
    private boolean poll;

    @Option(names = "-c", description = "wait for completions on a CNO (dat_cno_wait)")
    private boolean cno;

    @Option(names = "-d", defaultValue = "0", paramLabel = "SECONDS",
        description = "server: wait this long before accepting the connection")
    private int delay;

    @Option(names = "-t", description = "accepted as dtest's performance times; the timings are always printed")
    private boolean times;

    @Option(names = "-v", description = "verbose: print each step")
    private boolean verbose;

    @Option(names = "--connect-address", paramLabel = "ADDRESS",
        description = "client: dial ADDRESS (out-of-band step and connection) instead of HOST and of the "
            + "address the server advertises, e.g. behind port forwarding")
    private String connectAddress;

    @Option(names = "--advertise", paramLabel = "IPV4",
        description = "server: the address written into the out-of-band message (default: the IA's own)")
    private String advertise;

    @Option(names = "--advertise-provider", paramLabel = "NAME",
        description = "server: the provider name written into the out-of-band message, which a DAPL client "
            + "opens (default: ofa-v2-iwarp, OFED's name for iWARP, on a tcp IA; else the IA name)")
    private String advertiseProvider;

    @Option(names = "--oob-port", defaultValue = "" + DtestWire.OOB_PORT, paramLabel = "PORT",
        description = "TCP port of the out-of-band step (default: ${DEFAULT-VALUE}; server: 0 picks one)")
    private int oobPort;

    @Option(names = "--conn-qual", defaultValue = "" + DtestWire.CONN_QUAL, paramLabel = "QUAL",
        description = "connection qualifier of the server's PSP (default: ${DEFAULT-VALUE})")
    private long connQual;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS",
        description = "longest wait for any one event, and for the server to answer (default: ${DEFAULT-VALUE})")
    private double timeout;

    @Option(names = "--inject-fault", hidden = true, defaultValue = "none",
        description = "test only: damage one byte of a transfer, or send what a broken peer would")
    private DtestPeer.Fault fault;

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        validate(cl);
        final PrintWriter out = cl.getOut();
        final DtestPeer.Params params = params(cl);
        out.println("jdat dtest: provider " + provider.name() + ", " + describe(params)
            + (server ? ", server" : host != null ? ", client of " + host : ", client and server in this process"));
        out.flush();
        try
        {
            if (server)
            {
                print(out, "server", params, serve(out, params));
            }
            else if (host != null)
            {
                print(out, "client", params, client(out, params));
            }
            else
            {
                inProcess(out, params);
            }
        }
        catch (final CheckFailed | DatException e)
        {
            cl.getErr().println("jdat dtest: FAILED: " + Jdat.describe(e));
            return Jdat.EXIT_FAILED;
        }
        out.println("all checks passed");
        return 0;
    }

    private static String describe(final DtestPeer.Params p)
    {
        final String mode = p.mode().name().toLowerCase();
        if (p.writePingPong())
        {
            return "RDMA Write ping-pong" + (p.dataCheck() ? " with data check" : "") + ", " + p.burst()
                + " rounds of "
                + (p.sizes().size() == 1 ? p.sizes().get(0) + " bytes" : p.sizes().size() + " sizes up to "
                    + p.size() + " bytes") + ", " + mode;
        }
        return p.size() + "-byte buffers, burst " + p.burst() + (p.uni() ? ", unidirectional" : "")
            + (p.writeOnly() ? ", writes only" : "") + ", " + mode;
    }

    private DtestPeer.Params params(final CommandLine cl)
    {
        final boolean wpp = writePingPong || dataCheck;
        int len = size;
        if (wpp && !dataCheck && !cl.getParseResult().hasMatchedOption("-b"))
        {
            len = 1; // dtest -W without -b or -D
        }
        final Completion mode = poll ? Completion.POLL : cno ? Completion.CNO : Completion.WAIT;
        final int rate = wpp ? 1 : Math.min(signalRate, burst);
        return new DtestPeer.Params(len, burst, rate, uni || wpp, writeOnly, wpp, dataCheck,
            wpp ? sizes(len) : List.of(len), mode, (long) (timeout * 1_000_000));
    }

    /**
     * The sizes of dtest's write ping-pong: -b alone, or -a's series (powers of 2 and their neighbours, or -i steps).
     */
    private List<Integer> sizes(final int len)
    {
        final List<Integer> s = new ArrayList<>();
        if (!allSizes)
        {
            s.add(len);
            return s;
        }
        if (increment > 0)
        {
            for (int i = 1; i <= len / increment; i++)
            {
                s.add(i * increment);
            }
            return s;
        }
        int p2 = 0;
        while (1L << p2 < len)
        {
            p2++;
        }
        for (int i = 0; i <= p2; i++)
        {
            final int l = 1 << i;
            if (l > 4)
            {
                s.add(l - 1);
            }
            s.add(l);
            if (l > 1 && l < len)
            {
                s.add(l + 1);
            }
        }
        s.removeIf(l -> l > len);
        return s;
    }

    private void validate(final CommandLine cl)
    {
        if (size < 1 || size > 8 << 20 || burst < 1 || burst > 1_000_000 || signalRate < 1)
        {
            throw new CommandLine.ParameterException(cl, "-b must be 1 to 8M, -B 1 to 1000000, -S at least 1");
        }
        if (poll && cno)
        {
            throw new CommandLine.ParameterException(cl, "-p and -c exclude each other");
        }
        if (server && host != null)
        {
            throw new CommandLine.ParameterException(cl, "-s and -h exclude each other");
        }
        if (allSizes && !(writePingPong || dataCheck))
        {
            throw new CommandLine.ParameterException(cl, "-a is only valid with -W (as in dtest)");
        }
        if (increment < 0 || (increment > 0 && !allSizes))
        {
            throw new CommandLine.ParameterException(cl, "-i needs -a and a positive size");
        }
        if (writeOnly && (writePingPong || dataCheck))
        {
            throw new CommandLine.ParameterException(cl, "-w and -W exclude each other");
        }
        if ((server || host != null) && provider.inJvmOnly())
        {
            throw new CommandLine.ParameterException(cl, "provider " + provider.name()
                + " connects only inside one JVM: run without -s/-h");
        }
        if (!(timeout > 0) || timeout > 86_400 || delay < 0 || delay > 3600)
        {
            throw new CommandLine.ParameterException(cl, "--timeout must be between 0 and 86400 seconds, -d 0 to 3600");
        }
        if (oobPort < (server ? 0 : 1) || oobPort > 65535 || connQual < 0)
        {
            throw new CommandLine.ParameterException(cl, "--oob-port must be a TCP port, --conn-qual at least 0");
        }
        if (advertise != null && !(IaAddress.parse(advertise).inet() instanceof Inet4Address))
        {
            throw new CommandLine.ParameterException(cl, "--advertise: '" + advertise
                + "' is not an IPv4 address (dtest's message carries only IPv4)");
        }
        if (connectAddress != null && connectAddress.isBlank())
        {
            throw new CommandLine.ParameterException(cl, "--connect-address: empty address");
        }
        if (advertiseProvider != null && (advertiseProvider.isEmpty() || advertiseProvider.length() > 63
            || !advertiseProvider.matches("[\\x21-\\x7e]+")))
        {
            throw new CommandLine.ParameterException(cl, "--advertise-provider: 1 to 63 printable characters");
        }
        if ((advertise != null || advertiseProvider != null) && !server)
        {
            throw new CommandLine.ParameterException(cl, "--advertise is a server option (-s)");
        }
        if (connectAddress != null && host == null)
        {
            throw new CommandLine.ParameterException(cl, "--connect-address is a client option (-h HOST)");
        }
    }

    private Consumer<String> log(final PrintWriter out, final String side)
    {
        if (!verbose)
        {
            return s ->
            {
                // not verbose: the line is dropped
            };
        }
        return s ->
        {
            synchronized (out)
            {
                out.println(side + ": " + s);
                out.flush();
            }
        };
    }

    private int timeoutMillis()
    {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout * 1000));
    }

    /**
     * The server: the PSP, the out-of-band message to the first client of the TCP port, then one
     * connection whose private data is checked as dtest's server checks it.
     */
    private DtestPeer.Timings serve(final PrintWriter out, final DtestPeer.Params params)
    {
        try (Node node = Node.open(provider.name()))
        {
            final Inet4Address advertised = advertise != null ? (Inet4Address) IaAddress.parse(advertise).inet()
                : node.address.inet() instanceof Inet4Address a ? a : null;
            final String name = advertiseProvider != null ? advertiseProvider : advertisedProvider(node.iaName);
            final byte[] message = OobMessage.of(advertised, name).encode();
            // the PSP listens before the out-of-band message goes out: a DAPL client connects as
            // soon as it has the message and does not retry a refused connection
            final EventDispatcher crEvd = node.evd(4, null, EvdFlags.CR_FLAG);
            final DtestPeer peer = new DtestPeer(node, false, params, fault, log(out, "server"));
            final PublicServicePoint psp = node.ia.pspCreate(connQual, crEvd, PspFlags.CONSUMER_FLAG);
            final ServerSocket listener = OutOfBand.listen(oobPort);
            out.println("server: waiting for a client on TCP port " + listener.getLocalPort() + " (advertising "
                + (advertised == null ? "no address" : advertised.getHostAddress()) + ", provider " + name + ")");
            out.flush();
            OutOfBand.serve(listener, fault == DtestPeer.Fault.shortOob ? Arrays.copyOf(message, 100) : message, 0);
            if (fault == DtestPeer.Fault.shortOob)
            {
                throw new CheckFailed("server: sent a short out-of-band message (--inject-fault shortOob)");
            }
            out.println("server: listening on " + node.address + ":" + psp.connQual());
            out.flush();
            return accept(node, crEvd, psp, peer, params.timeoutMicros());
        }
    }

    /**
     * The provider name a dtest client is to open: a dtest client opens the name the server
     * sends, whatever its own {@code -P}, so a tcp IA (an iWARP peer on the wire) names the
     * entry OFED's stock dat.conf has for iWARP; other IAs name themselves.
     */
    static String advertisedProvider(final String iaName)
    {
        for (final StaticRegistryEntry e : Registry.get().staticEntries())
        {
            if (e.info().iaName().equals(iaName) && "tcp".equals(e.library()))
            {
                return "ofa-v2-iwarp";
            }
        }
        return iaName;
    }

    private DtestPeer.Timings accept(final Node node, final EventDispatcher crEvd, final PublicServicePoint psp,
        final DtestPeer peer, final long timeoutMicros)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = crEvd.wait(timeoutMicros, 1, ev, new DatCount());
        if (s != DatStatus.SUCCESS || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
        {
            throw new CheckFailed("server: no connection request on the PSP within " + timeoutMicros / 1e6 + " s ("
                + (s == DatStatus.SUCCESS ? ev : s) + ")");
        }
        if (ev.crArrival.spHandle != psp || ev.crArrival.connQual != psp.connQual())
        {
            throw new CheckFailed("server: the connection request names another service point or qualifier: " + ev);
        }
        final ConnectionRequest cr = ev.crArrival.crHandle;
        final CrParam param = new CrParam();
        cr.query(CrParam.FIELD_PRIVATE_DATA | CrParam.FIELD_PRIVATE_DATA_SIZE, param);
        byte[] reply;
        try
        {
            reply = DtestWire.replyTo(param.privateData == null ? new byte[0]
                : Arrays.copyOf(param.privateData, param.privateDataSize));
        }
        catch (final CheckFailed e)
        {
            cr.reject();
            throw new CheckFailed("server: rejected the connection: " + e.getMessage());
        }
        if (peer.fault() == DtestPeer.Fault.replyData)
        {
            reply = DtestWire.requestData();
        }
        if (delay > 0)
        {
            pause(delay * 1000L);
        }
        peer.link.accept(cr, reply);
        final DtestPeer.Timings t = runOrAbort(peer);
        peer.link.awaitDisconnected();
        peer.free();
        return t;
    }

    /** Runs the flow; on a failure, breaks the connection at once so that the peer fails too, not waits. */
    private static DtestPeer.Timings runOrAbort(final DtestPeer peer)
    {
        try
        {
            return peer.run();
        }
        catch (final RuntimeException e)
        {
            peer.link.abort();
            throw e;
        }
    }

    /** The client: the server's message, then the connection with dtest's private data. */
    private DtestPeer.Timings client(final PrintWriter out, final DtestPeer.Params params)
    {
        final String dial = connectAddress != null ? connectAddress : host;
        final OobMessage m = OutOfBand.fetch(dial, oobPort, timeoutMillis());
        out.println("client: the server runs " + m.provider() + " and advertises "
            + (m.address() == null ? "no IPv4 address" : m.address().getHostAddress()));
        out.flush();
        try (Node node = Node.open(provider.name()))
        {
            final IaAddress to;
            if (connectAddress != null)
            {
                to = IaAddress.parse(connectAddress);
            }
            else if (!node.address.isInet())
            {
                to = node.address; // a host-local provider (shm): the server's IA is on this host
            }
            else if (m.address() != null)
            {
                to = IaAddress.of(m.address());
            }
            else
            {
                throw new CheckFailed("client: the server's out-of-band message names no address (" + m.provider()
                    + "); name one with --connect-address");
            }
            return connect(out, node, to, params);
        }
    }

    private DtestPeer.Timings connect(final PrintWriter out, final Node node, final IaAddress to,
        final DtestPeer.Params params)
    {
        final byte[] pd = DtestWire.requestData();
        if (fault == DtestPeer.Fault.privateData)
        {
            pd[0] = 7;
        }
        final long deadline = System.nanoTime() + params.timeoutMicros() * 1000;
        final long start = System.nanoTime();
        DtestPeer peer;
        DatEvent ev;
        while (true)
        {
            peer = new DtestPeer(node, true, params, fault, log(out, "client"));
            peer.link.ep.connect(to, connQual, params.timeoutMicros(), pd, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
            ev = peer.link.nextConnectionEvent("connect to " + to + ":" + connQual);
            // a dtest server creates its PSP only after its out-of-band message: until then the
            // connection is refused, which is no answer from the server; try again on a new endpoint
            final boolean refused = ev.is(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED)
                || ev.is(EventNumber.CONNECTION_EVENT_UNREACHABLE);
            if (!refused || System.nanoTime() - deadline > 0)
            {
                break;
            }
            peer.free();
            pause(200);
        }
        if (!ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
        {
            final String what = ev.number().toString();
            peer.free();
            throw new CheckFailed("client: connect to " + to + ":" + connQual + ": " + what
                + (ev.is(EventNumber.CONNECTION_EVENT_PEER_REJECTED) ? " (the server rejected the connection)" : ""));
        }
        final long connected = System.nanoTime() - start;
        try
        {
            DtestWire.checkReply(ev.connection.privateData);
        }
        catch (final CheckFailed e)
        {
            peer.link.abort();
            throw new CheckFailed("client: " + e.getMessage());
        }
        synchronized (out)
        {
            out.printf("client: connected to %s:%d in %.1f us%n", to, connQual, connected / 1e3);
            out.flush();
        }
        final DtestPeer.Timings t = runOrAbort(peer);
        peer.link.disconnect();
        peer.free();
        return t;
    }

    /** Both sides in this process: the server on its own thread and IA, the client here. */
    private void inProcess(final PrintWriter out, final DtestPeer.Params params)
    {
        final AtomicReference<RuntimeException> serverFailure = new AtomicReference<>();
        final AtomicReference<DtestPeer.Timings> serverTimings = new AtomicReference<>();
        try (Node serverNode = Node.open(provider.name()))
        {
            final EventDispatcher crEvd = serverNode.evd(4, null, EvdFlags.CR_FLAG);
            final DtestPeer serverPeer = new DtestPeer(serverNode, false, params, DtestPeer.Fault.none,
                log(out, "server"));
            final PublicServicePoint psp = serverNode.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            connQual = psp.connQual();
            final Thread thread = new Thread(() ->
            {
                try
                {
                    serverTimings.set(accept(serverNode, crEvd, psp, serverPeer, params.timeoutMicros()));
                }
                catch (final RuntimeException e)
                {
                    serverFailure.set(e);
                }
            }, "jdat-dtest-server");
            thread.setDaemon(true);
            thread.start();
            DtestPeer.Timings t = null;
            RuntimeException clientFailure = null;
            try (Node node = Node.open(provider.name()))
            {
                t = connect(out, node, serverNode.address, params);
            }
            catch (final CheckFailed | DatException e)
            {
                clientFailure = e;
            }
            join(thread, params.timeoutMicros());
            final RuntimeException s = serverFailure.get();
            if (clientFailure != null)
            {
                // a flushed completion, a reject or a broken connection on the client is what a
                // failed server check looks like from here
                final String c = Jdat.describe(clientFailure);
                throw s != null && (c.contains("FLUSHED") || c.contains("REJECTED") || c.contains("BROKEN")
                    || c.contains("DISCONNECTED")) ? new CheckFailed(Jdat.describe(s) + " (client: " + c + ")", s)
                    : clientFailure;
            }
            if (s != null)
            {
                throw new CheckFailed(Jdat.describe(s), s);
            }
            print(out, "client", params, t);
            if (serverTimings.get() != null)
            {
                print(out, "server", params, serverTimings.get());
            }
        }
    }

    private static void join(final Thread t, final long timeoutMicros)
    {
        try
        {
            t.join(timeoutMicros / 1000 + 1000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
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
        }
    }

    private void print(final PrintWriter out, final String side, final DtestPeer.Params p, final DtestPeer.Timings t)
    {
        synchronized (out)
        {
            final int size = p.size();
            for (final long[] run : t.writePingPongs())
            {
                out.printf("%s: RDMA Write ping-pong: %d x %d bytes in %.1f us: latency %.1f us%s%n", side, p.burst(),
                    run[0], run[1] / 1e3, run[1] / 1e3 / p.burst() / 2, p.dataCheck() ? ", data checked" : "");
            }
            if (t.write() > 0)
            {
                final boolean wrote = !(p.uni() && "server".equals(side));
                out.printf("%s: RDMA Write: %s%d x %d bytes, then a Send each way, in %.1f us; "
                    + "the peer's data checked%n", side, wrote ? "" : "none of ours, the peer's ", p.burst(), size,
                    t.write() / 1e3);
            }
            if (t.read() > 0)
            {
                out.printf("%s: RDMA Read: %d x %d bytes in %.1f us (%.1f us each), data checked%n", side,
                    DtestWire.READS, size, t.read() / 1e3, t.read() / 1e3 / DtestWire.READS);
            }
            final Histogram h = t.pingPong();
            if (h.getTotalCount() > 0)
            {
                out.printf("%s: ping-pong: %d round trips of %d bytes: mean %.1f us, p50 %.1f us, max %.1f us%n", side,
                    h.getTotalCount(), size, h.getMean() / 1e3, h.getValueAtPercentile(50) / 1e3,
                    h.getMaxValue() / 1e3);
            }
            else if (t.pingPongTotal() > 0)
            {
                out.printf("%s: ping-pong: answered %d messages of %d bytes in %.1f us%n", side, DtestWire.PING_PONGS,
                    size, t.pingPongTotal() / 1e3);
            }
            out.flush();
        }
    }
}

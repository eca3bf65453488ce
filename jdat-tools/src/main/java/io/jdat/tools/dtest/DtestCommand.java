package io.jdat.tools.dtest;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.Jdat;
import io.jdat.tools.ProviderOption;
import io.jdat.tools.dat.CheckFailed;
import io.jdat.tools.dat.Completion;
import io.jdat.tools.dat.HostPort;
import io.jdat.tools.dat.Node;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jdat dtest}: DAPL's dtest (digest §8.2). A client and a server, in this process or in
 * two ({@code --listen} / {@code --connect}), connect through a PSP, swap RMR triplets, and
 * each runs an RDMA Write burst followed by a Send, an RDMA Read of the peer's buffer and a
 * Send/Recv ping-pong, checking every completion and every byte; the timings are printed.
 */
@Command(name = "dtest", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"DAPL's dtest: RDMA Write burst then Send, RDMA Read, ping-pong, with timings.",
        "Connect through a PSP, swap RMR triplets, then on each side an RDMA Write",
        "burst (all but the last write suppressed) followed by a Send, an RDMA Read",
        "of the peer's buffer, and a Send/Recv ping-pong; every completion and every",
        "byte is checked and the timings are printed. Client and server run in this",
        "process unless --listen or --connect is given."})
public final class DtestCommand implements Callable<Integer>
{
    /** dtest's server connection qualifier. */
    static final long DEFAULT_PORT = 45248;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private ProviderOption provider;

    @Option(names = {"-b", "--buffer-size"}, defaultValue = "64", paramLabel = "BYTES",
        description = "bytes per RDMA Write and per ping-pong message (default: ${DEFAULT-VALUE})")
    private int size;

    @Option(names = {"-B", "--burst"}, defaultValue = "10", paramLabel = "N",
        description = "RDMA Writes in the burst and ping-pong round trips (default: ${DEFAULT-VALUE})")
    private int burst;

    @Option(names = {"-p", "--poll"}, description = "poll completions with dat_evd_dequeue")
    private boolean poll;

    @Option(names = {"-c", "--cno"}, description = "wait for completions on a CNO (dat_cno_wait)")
    private boolean cno;

    @Option(names = "--listen", arity = "0..1", fallbackValue = "" + DEFAULT_PORT, paramLabel = "PORT",
        description = "be the server for one client on PORT (default ${FALLBACK-VALUE}), then exit")
    private Long listen;

    @Option(names = "--connect", paramLabel = "ADDRESS[:PORT]", description = "be the client of a 'jdat dtest --listen'")
    private String connect;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS",
        description = "longest wait for any one event (default: ${DEFAULT-VALUE})")
    private double timeout;

    @Option(names = "--inject-corruption", hidden = true, defaultValue = "none",
        description = "test only: damage one byte of this transfer before it is checked")
    private DtestPeer.Fault fault;

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        validate(cl);
        final PrintWriter out = cl.getOut();
        final Completion mode = poll ? Completion.POLL : cno ? Completion.CNO : Completion.WAIT;
        final long timeoutMicros = (long) (timeout * 1_000_000);
        final DtestPeer.Params params = new DtestPeer.Params(size, burst, mode, timeoutMicros);
        out.println("jdat dtest: provider " + provider.name() + ", " + (listen != null
            ? "the client chooses buffer size and burst" : size + "-byte buffers, burst " + burst) + ", "
            + mode.name().toLowerCase() + (listen == null && connect == null ? ", client and server in this process"
                : ""));
        out.flush();
        try
        {
            if (listen != null)
            {
                try (Node node = Node.open(provider.name()))
                {
                    final EventDispatcher crEvd = node.evd(4, null, EvdFlags.CR_FLAG);
                    final PublicServicePoint psp = node.ia.pspCreate(listen, crEvd, PspFlags.CONSUMER_FLAG);
                    out.println("server: listening on " + node.address + ":" + psp.connQual());
                    out.flush();
                    print(out, "server", serve(node, crEvd, psp, mode, io.jdat.Dat.TIMEOUT_INFINITE - 1, timeoutMicros,
                        fault));
                }
            }
            else if (connect != null)
            {
                print(out, "client", client(HostPort.parse(connect, "localhost", DEFAULT_PORT), params, fault));
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

    private void validate(final CommandLine cl)
    {
        if (size < 1 || size > 1 << 24 || burst < 1 || burst > 4096 || (long) size * burst > 1L << 30)
        {
            throw new CommandLine.ParameterException(cl,
                "--buffer-size must be 1 to 16M, --burst 1 to 4096, and together at most 1G");
        }
        if (poll && cno)
        {
            throw new CommandLine.ParameterException(cl, "--poll and --cno exclude each other");
        }
        if (listen != null && connect != null)
        {
            throw new CommandLine.ParameterException(cl, "--listen and --connect exclude each other");
        }
        if ((listen != null || connect != null) && provider.inJvmOnly())
        {
            throw new CommandLine.ParameterException(cl, "provider " + provider.name()
                + " connects only inside one JVM: run without --listen/--connect");
        }
        if (!(timeout > 0) || timeout > 86_400)
        {
            throw new CommandLine.ParameterException(cl, "--timeout must be between 0 and 86400 seconds");
        }
        if (connect != null)
        {
            try
            {
                HostPort.parse(connect, "localhost", DEFAULT_PORT);
            }
            catch (final IllegalArgumentException e)
            {
                throw new CommandLine.ParameterException(cl, "--connect: " + Jdat.describe(e));
            }
        }
    }

    /** Both sides in this process: the server on its own thread and IA, the client here. */
    private void inProcess(final PrintWriter out, final DtestPeer.Params params)
    {
        final AtomicReference<RuntimeException> serverFailure = new AtomicReference<>();
        try (Node node = Node.open(provider.name()))
        {
            final EventDispatcher crEvd = node.evd(4, null, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final Thread server = new Thread(() ->
            {
                try
                {
                    serve(node, crEvd, psp, params.mode(), params.timeoutMicros(), params.timeoutMicros(),
                        DtestPeer.Fault.none);
                }
                catch (final RuntimeException e)
                {
                    serverFailure.set(e);
                }
            }, "jdat-dtest-server");
            server.setDaemon(true);
            server.start();
            DtestPeer.Timings t = null;
            RuntimeException clientFailure = null;
            try
            {
                t = client(new HostPort(node.address, psp.connQual()), params, fault);
            }
            catch (final CheckFailed | DatException e)
            {
                clientFailure = e;
            }
            join(server, params.timeoutMicros());
            final RuntimeException s = serverFailure.get();
            if (clientFailure != null)
            {
                // a flushed completion on the client is what a failed server check looks like from here
                throw s != null && Jdat.describe(clientFailure).contains("ERR_FLUSHED")
                    ? new CheckFailed("server: " + Jdat.describe(s), s) : clientFailure;
            }
            if (s != null)
            {
                throw new CheckFailed("server: " + Jdat.describe(s), s);
            }
            print(out, "client", t);
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

    /** The client: its own IA, connect with the parameters as private data, run, disconnect. */
    private DtestPeer.Timings client(final HostPort server, final DtestPeer.Params params, final DtestPeer.Fault f)
    {
        try (Node node = Node.open(provider.name()))
        {
            final DtestPeer peer = new DtestPeer(node, true, params, f);
            final long start = System.nanoTime();
            peer.link.connect(server.address(), server.port(), params.privateData());
            final long connected = System.nanoTime() - start;
            final DtestPeer.Timings t = peer.run();
            peer.link.disconnect();
            peer.free();
            spec.commandLine().getOut().printf("client: connected to %s in %.1f us%n", server, connected / 1e3);
            return t;
        }
    }

    /**
     * The server: waits for one connection request on the PSP, checks that it names the PSP and
     * its qualifier (as dtest does), takes the client's parameters from its private data, accepts,
     * runs, and waits for the client's disconnect.
     */
    private static DtestPeer.Timings serve(final Node node, final EventDispatcher crEvd, final PublicServicePoint psp,
        final Completion mode, final long firstWaitMicros, final long timeoutMicros, final DtestPeer.Fault f)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = crEvd.wait(firstWaitMicros, 1, ev, new DatCount());
        if (s != DatStatus.SUCCESS || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
        {
            throw new CheckFailed("server: no connection request on the PSP (" + (s == DatStatus.SUCCESS ? ev : s) + ")");
        }
        if (ev.crArrival.spHandle != psp || ev.crArrival.connQual != psp.connQual())
        {
            throw new CheckFailed("server: the connection request names another service point or qualifier: " + ev);
        }
        final ConnectionRequest cr = ev.crArrival.crHandle;
        final CrParam param = new CrParam();
        cr.query(CrParam.FIELD_PRIVATE_DATA | CrParam.FIELD_PRIVATE_DATA_SIZE, param);
        final String pd = new String(param.privateData == null ? new byte[0]
            : Arrays.copyOf(param.privateData, param.privateDataSize), StandardCharsets.US_ASCII);
        final DtestPeer.Params params;
        try
        {
            params = DtestPeer.Params.parse(pd, mode, timeoutMicros);
        }
        catch (final CheckFailed e)
        {
            cr.reject();
            throw e;
        }
        final DtestPeer peer = new DtestPeer(node, false, params, f);
        peer.link.accept(cr, null);
        final DtestPeer.Timings t = peer.run();
        peer.link.awaitDisconnected();
        peer.free();
        return t;
    }

    private static void print(final PrintWriter out, final String side, final DtestPeer.Timings t)
    {
        final int size = t.params().size();
        final int burst = t.params().burst();
        out.printf("%s: RDMA Write burst: %d x %d bytes + Send in %.1f us (%.1f us per write), every byte checked%n",
            side, burst, size, t.write() / 1e3, t.write() / 1e3 / burst);
        out.printf("%s: RDMA Read: %d bytes in %.1f us (%.1f MB/s), every byte checked%n", side, (long) burst * size,
            t.read() / 1e3, (double) burst * size / (t.read() / 1e3));
        final Histogram h = t.pingPong();
        if (h.getTotalCount() > 0)
        {
            out.printf("%s: ping-pong: %d round trips of %d bytes: mean %.1f us, p50 %.1f us, max %.1f us%n", side,
                h.getTotalCount(), size, h.getMean() / 1e3, h.getValueAtPercentile(50) / 1e3, h.getMaxValue() / 1e3);
        }
        else
        {
            out.printf("%s: ping-pong: answered %d messages of %d bytes%n", side, burst, size);
        }
        out.flush();
    }
}

package io.jdat.tools.perf;

import io.jdat.Dat;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.Jdat;
import io.jdat.tools.ProviderOption;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.HostPort;
import io.jdat.tools.kit.Node;
import io.jdat.tools.perf.baseline.Baseline;
import io.jdat.tools.perf.baseline.Baselines;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jdat perf}: perftest's send, write and read tests over DAT (latency percentiles from
 * HdrHistogram, bandwidth in MB/s and messages/s), client and server in one process or across
 * two, optionally beside a plain-Java baseline measured by the same harness between the same
 * two threads, with a table, JSON and a plot.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Measures the latency and bandwidth of Send/Recv, RDMA Write and RDMA Read, as perftest does.",
        "Latency comes as HdrHistogram percentiles (p50, p99, p99.9, max), bandwidth as MB/s and messages/s, over "
            + "a sweep of sizes. Client and server run in this process (default) or in two (--listen / --connect).",
        "With --baseline a plain-Java reference is measured right beside each figure (loopback: a JCTools queue "
            + "and a copy; tcp: Java TCP; shm: mapped-file rings), and jdat/baseline ratios are printed "
            + "(latency: lower is better; bandwidth: higher is better).",
        "The defaults finish in well under a minute; for longer runs raise --iters and --max-bytes, for example "
            + "--iters 100000 --max-bytes 4G."},
    footer = {"", "Latency of send and write is half a round trip (as perftest); read is post to completion. "
        + "Bandwidth tests always poll on the client, and on the server where it streams or receives Sends; "
        + "--inline-poll makes the latency tests poll too, and the server of one-way RDMA Write and Read "
        + "bandwidth rows spin instead of waiting (both sides spin)."})
public final class PerfCommand implements Callable<Integer>
{
    /** perftest's default port. */
    static final long DEFAULT_PORT = 18515;
    private static final int WARM_UP_ITERATIONS = 20_000;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private ProviderOption provider;

    @Option(names = "--op", defaultValue = "all", paramLabel = "OP",
        description = "send, write, read or all; a comma list picks several (default: ${DEFAULT-VALUE})")
    private String op;

    @Option(names = "--sizes", paramLabel = "LIST",
        description = "message sizes, for example 8,64,1K,1M (default: powers of two from 2 B to 8 MiB)")
    private String sizes;

    @Option(names = "--iters", defaultValue = "20000", paramLabel = "N",
        description = "measured iterations per size (default: ${DEFAULT-VALUE}), at most --max-bytes per size")
    private int iters;

    @Option(names = "--max-bytes", defaultValue = "512M", paramLabel = "SIZE",
        description = "cap on bytes moved per measurement; fewer iterations for big sizes (default: ${DEFAULT-VALUE})")
    private String maxBytes;

    @Option(names = "--warmup", paramLabel = "N",
        description = "iterations before measuring (default: a tenth of the iterations)")
    private Integer warmup;

    @Option(names = "--lat", description = "latency tests (default: latency and bandwidth)")
    private boolean lat;

    @Option(names = "--bw", description = "bandwidth tests (default: latency and bandwidth)")
    private boolean bw;

    @Option(names = "--bidirectional", description = "bandwidth: both sides stream at once; the figures add up")
    private boolean bidirectional;

    @Option(names = "--inline-poll",
        description = "latency: poll completions on the posting thread (dat_evd_dequeue) instead of dat_evd_wait; "
            + "bandwidth: the target of one-way RDMA polls too instead of waiting")
    private boolean inlinePoll;

    @Option(names = "--shared-memory",
        description = "shm: both sides' data memory is the provider's shared memory (DAT_MEM_TYPE_SHARED_VIRTUAL), "
            + "so large RDMA Writes and Reads travel as references instead of through the rings")
    private boolean sharedMemory;

    @Option(names = "--nonthreadsafe",
        description = "open each side's IA from its nonthreadsafe registry entry (dat_ia_openv with thread safety "
            + "false: the engine's single-writer path); each side's IA is used by one thread")
    private boolean nonthreadsafe;

    @Option(names = "--depth", defaultValue = "64", paramLabel = "N",
        description = "bandwidth: outstanding requests and receive credits per stream (default: ${DEFAULT-VALUE})")
    private int depth;

    @Option(names = "--baseline", arity = "0..1", fallbackValue = "auto", paramLabel = "NAME",
        description = "measure a baseline beside jdat: the provider's own (no NAME), or queue, tcp or shm")
    private String baseline;

    @Option(names = "--pin", paramLabel = "CLIENT,SERVER",
        description = "Linux: pin the client's measuring thread to CPU CLIENT and the server's to CPU SERVER "
            + "(sched_setaffinity), for jdat's rows and the baseline's alike, as perftest under taskset; "
            + "with --listen the server takes SERVER, with --connect the client takes CLIENT")
    private String pin;

    @Option(names = "--alloc",
        description = "after each row, the heap bytes per operation that the client's and the server's measuring "
            + "threads allocated while jdat ran it (warm-up rounds included; 0 when post and poll allocate nothing)")
    private boolean alloc;

    @Option(names = "--json", paramLabel = "FILE", description = "write the rows as a JSON array")
    private Path json;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "draw latency and bandwidth against size (PNG)")
    private Path plot;

    @Option(names = "--listen", arity = "0..1", fallbackValue = "" + DEFAULT_PORT, paramLabel = "PORT",
        description = "be the server for one client on PORT (default ${FALLBACK-VALUE}), then exit")
    private Long listen;

    @Option(names = "--connect", paramLabel = "ADDRESS[:PORT]",
        description = "be the client of a 'jdat perf --listen' server")
    private String connect;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS",
        description = "longest wait for any one event (default: ${DEFAULT-VALUE})")
    private double timeout;

    @Option(names = "--inject-corruption", hidden = true,
        description = "test only: damage one received byte before each check")
    private boolean corrupt;

    @Override
    public Integer call() throws IOException
    {
        final Plan plan = plan();
        final PrintWriter out = spec.commandLine().getOut();
        final PerfSide.Settings settings = new PerfSide.Settings(plan.maxSize, depth, inlinePoll,
            (long) (timeout * 1_000_000), sharedMemory);
        try
        {
            if (listen != null)
            {
                serve(out, plan.pin);
                return 0;
            }
            final List<Row> rows;
            // the client's thread is this one, pinned before anything starts: a refused pin starts nothing
            try (ThreadAffinity.Pin pinned = plan.pin == null ? null : ThreadAffinity.pin(plan.pin[0]))
            {
                rows = connect != null
                    ? runClient(out, HostPort.parse(connect, "localhost", DEFAULT_PORT), plan, settings, null,
                        pinned == null ? null : pinned.describe("client"))
                    : runInProcess(out, plan, settings, pinned == null ? null : pinned.describe("client"));
            }
            if (json != null)
            {
                Json.write(json, rows);
                out.println("JSON: " + json);
            }
            if (plot != null)
            {
                Plot.write(plot, rows, "jdat perf " + provider.name());
                out.println("plot: " + plot);
            }
            return 0;
        }
        catch (final CheckFailed | ThreadAffinity.AffinityException e)
        {
            spec.commandLine().getErr().println("jdat perf: FAILED: " + e.getMessage());
            return Jdat.EXIT_FAILED;
        }
    }

    /** What to measure, from the options; a bad value is a usage error. */
    private record Plan(Set<Op> ops, List<Long> sizes, long maxSize, long maxBytes, boolean lat, boolean bw,
        Baseline baseline, int[] pin)
    {
        int measurements()
        {
            return ops.size() * sizes.size() * ((lat ? 1 : 0) + (bw ? 1 : 0)) * (baseline == null ? 1 : 2);
        }
    }

    private Plan plan()
    {
        final Set<Op> ops = EnumSet.noneOf(Op.class);
        for (final String o : op.split(","))
        {
            if (o.strip().equals("all"))
            {
                ops.addAll(EnumSet.allOf(Op.class));
            }
            else
            {
                try
                {
                    ops.add(Op.valueOf(o.strip()));
                }
                catch (final IllegalArgumentException e)
                {
                    throw usage("--op: '" + o + "' is not send, write, read or all");
                }
            }
        }
        final List<Long> list;
        final long cap;
        try
        {
            list = sizes == null ? Sizes.defaults() : Sizes.parseList(sizes);
            cap = Sizes.parse(maxBytes);
        }
        catch (final IllegalArgumentException e)
        {
            throw usage(e.getMessage());
        }
        for (final long s : list)
        {
            if (s < 1 || s > 1L << 30)
            {
                throw usage("--sizes: " + s + " is out of range (1 byte to 1 GiB)");
            }
        }
        if (iters < 1 || depth < 1 || timeout <= 0 || warmup != null && warmup < 0)
        {
            throw usage("--iters, --depth and --timeout must be positive, --warmup not negative");
        }
        if (listen != null && connect != null)
        {
            throw usage("--listen and --connect exclude each other");
        }
        if ((listen != null || connect != null) && provider.inJvmOnly())
        {
            throw usage("provider " + provider.name()
                + " connects only inside one JVM: run without --listen/--connect");
        }
        if (plot != null && !plot.toString().toLowerCase(java.util.Locale.ROOT).endsWith(".png"))
        {
            throw usage("--plot: the file must end in .png");
        }
        Baseline b = null;
        if (baseline != null)
        {
            try
            {
                b = "auto".equals(baseline) ? Baselines.forProvider(provider.name()) : Baselines.byName(baseline);
            }
            catch (final IllegalArgumentException e)
            {
                throw usage(e.getMessage());
            }
        }
        final boolean both = !lat && !bw;
        return new Plan(ops, list, list.stream().mapToLong(Long::longValue).max().orElse(1), cap, lat || both,
            bw || both, b, pinPlan());
    }

    /** The CPUs of {@code --pin}, client's then server's, checked against this process's; null without it. */
    private int[] pinPlan()
    {
        if (pin == null)
        {
            return null;
        }
        try
        {
            final int[] cpus = ThreadAffinity.parsePair(pin);
            ThreadAffinity.requireSupported();
            // only the side that runs here is pinned here
            if (listen == null)
            {
                ThreadAffinity.requireAllowed(cpus[0]);
            }
            if (connect == null)
            {
                ThreadAffinity.requireAllowed(cpus[1]);
            }
            return cpus;
        }
        catch (final IllegalArgumentException | ThreadAffinity.AffinityException e)
        {
            throw usage(e.getMessage());
        }
    }

    private CommandLine.ParameterException usage(final String message)
    {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    private int itersFor(final Plan plan, final long size)
    {
        final long capped = Math.max(8, plan.maxBytes / size);
        return (int) Math.min(iters, capped);
    }

    private int warmupFor(final int n)
    {
        return warmup != null ? warmup : Math.max(1, n / 10);
    }

    private void serve(final PrintWriter out, final int[] cpus)
    {
        try (ThreadAffinity.Pin pinned = cpus == null ? null : ThreadAffinity.pin(cpus[1]);
            Node node = Node.open(provider.name(), !nonthreadsafe))
        {
            if (pinned != null)
            {
                out.println("pinned: " + pinned.describe("server"));
            }
            final EventDispatcher crEvd = node.evd(8, null, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreate(listen, crEvd, PspFlags.CONSUMER_FLAG);
            out.println("jdat perf: server on " + node.address + ":" + psp.connQual() + " (provider " + provider.name()
                + "), waiting for one client");
            out.flush();
            final PerfSide side = PerfSide.accept(node, crEvd, Dat.TIMEOUT_INFINITE - 1);
            out.println("jdat perf: client connected");
            out.flush();
            new PerfServer(side).serve();
            out.println("jdat perf: client done");
        }
    }

    private List<Row> runInProcess(final PrintWriter out, final Plan plan, final PerfSide.Settings settings,
        final String clientPinned)
    {
        final AtomicReference<RuntimeException> serverFailure = new AtomicReference<>();
        try (Node serverNode = Node.open(provider.name(), !nonthreadsafe))
        {
            final EventDispatcher crEvd = serverNode.evd(8, null, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = serverNode.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            // the server thread's pin, said before it serves: a pin refused fails the run, never waits it out
            final CompletableFuture<String> serverPinned = new CompletableFuture<>();
            final Thread server = new Thread(() ->
            {
                try (ThreadAffinity.Pin pinned = plan.pin == null ? null : ThreadAffinity.pin(plan.pin[1]))
                {
                    serverPinned.complete(pinned == null ? null : pinned.describe("server"));
                    new PerfServer(PerfSide.accept(serverNode, crEvd, settings.timeoutMicros())).serve();
                }
                catch (final RuntimeException e)
                {
                    serverPinned.completeExceptionally(e);
                    serverFailure.set(e);
                }
            }, "jdat-perf-server");
            server.setDaemon(true);
            server.start();
            try
            {
                return runClient(out, new HostPort(serverNode.address, psp.connQual()), plan, settings,
                    "client and server in this process", pinned(clientPinned, serverPinned));
            }
            finally
            {
                try
                {
                    server.join(5000);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * The client's pin and what the in-process server thread said of its own (null without
     * {@code --pin}); the server's failure to pin, thrown.
     */
    private String pinned(final String clientPinned, final CompletableFuture<String> serverPinned)
    {
        try
        {
            final String server = serverPinned.get((long) Math.max(5, timeout), TimeUnit.SECONDS);
            return clientPinned == null ? null : clientPinned + "; " + server;
        }
        catch (final ExecutionException e)
        {
            throw e.getCause() instanceof RuntimeException r ? r : new CheckFailed(e.getCause().toString());
        }
        catch (final TimeoutException e)
        {
            throw new CheckFailed("--pin: the server thread did not say whether it was pinned");
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new CheckFailed("interrupted while the server thread was pinned");
        }
    }

    private List<Row> runClient(final PrintWriter out, final HostPort server, final Plan plan,
        final PerfSide.Settings settings, final String where, final String pinned)
    {
        final List<Row> rows = new ArrayList<>();
        try (Node node = Node.open(provider.name(), !nonthreadsafe))
        {
            final PerfSide side = PerfSide.connect(node, server, settings);
            final PerfClient client = new PerfClient(side, corrupt);
            out.println("jdat perf: provider " + provider.name() + (nonthreadsafe ? " (nonthreadsafe entry)" : "")
                + ", " + (where != null ? where : "server " + server)
                + "; depth " + depth + ", up to " + iters + " iterations and " + Sizes.format(plan.maxBytes)
                + " per size");
            if (plan.baseline != null)
            {
                out.println("baseline " + plan.baseline.name() + ": " + plan.baseline.description()
                    + "; ratio = jdat / baseline; a bandwidth row of " + Sizes.format(2 * Slices.SLICE_BYTES)
                    + " or more runs in up to " + Slices.MAX_SLICES + " slices and a latency row of "
                    + 2 * Slices.SLICE_ROUNDS + " rounds or more in up to " + Slices.MAX_COUNT_SLICES
                    + ", jdat's and the baseline's in turn");
            }
            if (pinned != null)
            {
                out.println("pinned: " + pinned
                    + (plan.baseline != null ? "; the baseline runs between the same two threads" : ""));
            }
            final boolean serverHere = where != null;
            final WarmUp.Result warm = WarmUp.run(() -> warmUp(client, plan), () ->
            {
                final long mine = WarmUp.thisJvmCompileMillis();
                final long theirs = serverHere ? 0 : client.serverCompileMillis();
                return mine < 0 || theirs < 0 ? -1 : mine + theirs;
            }, WarmUp.QUIET_MILLIS, WarmUp.QUIET_PASSES, WarmUp.MAX_PASSES, WarmUp.MAX_NANOS, System::nanoTime);
            out.println(warm.describe());
            final Table table = new Table(out, plan.baseline != null);
            final Progress progress = new Progress(plan.measurements());
            long seed = 1;
            // rows run in slices so far: whose slice opens a row alternates from row to row
            int sliced = 0;
            for (final Op o : plan.ops)
            {
                for (final long size : plan.sizes)
                {
                    final int n = itersFor(plan, size);
                    final int w = warmupFor(n);
                    Figures.Latency l = null;
                    Figures.Latency bl = null;
                    Figures.Bandwidth b = null;
                    Figures.Bandwidth bb = null;
                    PerfClient.Allocated latAlloc = null;
                    PerfClient.Allocated bwAlloc = null;
                    if (plan.lat && plan.baseline != null)
                    {
                        // in alternating slices, so that a change of the machine's state between
                        // jdat's part and the baseline's does not decide the ratio (see Slices)
                        final SlicedLatency sl = slicedLatency(client, plan.baseline, o, size, n, w, seed++,
                            sliced++ % 2 == 0);
                        l = sl.jdat;
                        bl = sl.baseline;
                        latAlloc = sl.allocated;
                        progress.step();
                        progress.step();
                    }
                    else if (plan.lat)
                    {
                        final RowSpec r = new RowSpec(o, RowSpec.Kind.lat, size, n, w, false, seed++);
                        l = client.jdatLatency(r);
                        latAlloc = client.allocated();
                        progress.step();
                    }
                    if (plan.bw && plan.baseline != null)
                    {
                        // a long one in alternating slices, as latency rows
                        final int[] parts = Slices.of(size, n);
                        final Figures.Bandwidth[] mine = new Figures.Bandwidth[parts.length];
                        final Figures.Bandwidth[] theirs = new Figures.Bandwidth[parts.length];
                        final PerfClient.Allocated[] allocs = new PerfClient.Allocated[parts.length];
                        final long rowSeed = seed++;
                        Slices.alternate(parts.length, sliced++ % 2 == 0, i ->
                        {
                            mine[i] = client.jdatBandwidth(bwSlice(o, size, w, parts[i], rowSeed));
                            allocs[i] = client.allocated();
                        }, i -> theirs[i] = client.baselineBandwidth(plan.baseline,
                            bwSlice(o, size, w, parts[i], rowSeed)));
                        b = Slices.combine(mine, parts);
                        bb = Slices.combine(theirs, parts);
                        bwAlloc = sum(allocs);
                        progress.step();
                        progress.step();
                    }
                    else if (plan.bw)
                    {
                        final RowSpec r = new RowSpec(o, RowSpec.Kind.bw, size, n, w, bidirectional, seed++);
                        b = client.jdatBandwidth(r);
                        bwAlloc = client.allocated();
                        progress.step();
                    }
                    final Row row = new Row(provider.name(), o, size, n, l, b,
                        plan.baseline == null ? null : plan.baseline.name(), bl, bb);
                    rows.add(row);
                    progress.clear();
                    table.print(row);
                    if (alloc)
                    {
                        out.println(allocation(latAlloc, bwAlloc));
                        out.flush();
                    }
                    progress.redraw();
                }
            }
            progress.close();
            client.bye();
            if (sharedMemory)
            {
                final io.jdat.IaAttr a = node.attributes();
                out.println("shared memory: " + a.transportAttr("jdat.shm.direct_bytes_sent") + " bytes sent and "
                    + a.transportAttr("jdat.shm.direct_bytes_received") + " received as references to it");
            }
        }
        return rows;
    }

    /**
     * A latency row's figures, jdat's and the baseline's, and what jdat's part allocated.
     *
     * @param jdat      jdat's latency over all slices
     * @param baseline  the baseline's
     * @param allocated the allocations of all of jdat's slices
     */
    private record SlicedLatency(Figures.Latency jdat, Figures.Latency baseline, PerfClient.Allocated allocated)
    {
    }

    /**
     * A latency row of {@code n} rounds beside {@code baseline} in alternating slices (see
     * {@link Slices}), jdat's slice first in the first pair when {@code jdatOpens}; the warm-up
     * passes run it too, so that the code of the slicing is compiled before the first row.
     */
    private static SlicedLatency slicedLatency(final PerfClient client, final Baseline baseline, final Op o,
        final long size, final int n, final int w, final long seed, final boolean jdatOpens)
    {
        final int[] parts = Slices.ofRounds(n);
        final Histogram[] mine = new Histogram[parts.length];
        final Histogram[] theirs = new Histogram[parts.length];
        final PerfClient.Allocated[] allocs = new PerfClient.Allocated[parts.length];
        Slices.alternate(parts.length, jdatOpens, i ->
        {
            mine[i] = client.jdatRounds(latSlice(o, size, n, w, parts[i], seed)).copy();
            allocs[i] = client.allocated();
        }, i -> theirs[i] = client.baselineRounds(baseline, latSlice(o, size, n, w, parts[i], seed)).copy());
        final double divisor = PerfClient.divisor(latSlice(o, size, n, w, n, seed));
        // every slice's allocations count, not the last one's alone
        return new SlicedLatency(Slices.combine(mine, divisor), Slices.combine(theirs, divisor), sum(allocs));
    }

    /** A slice of {@code part} rounds of a latency row of {@code n} rounds and {@code w} warm-up rounds. */
    private static RowSpec latSlice(final Op o, final long size, final int n, final int w, final int part,
        final long seed)
    {
        return new RowSpec(o, RowSpec.Kind.lat, size, part, Slices.warmup(w, n, part), false, seed);
    }

    /** A slice of {@code part} messages of a bandwidth row: it warms up as the whole row does. */
    private RowSpec bwSlice(final Op o, final long size, final int w, final int part, final long seed)
    {
        return new RowSpec(o, RowSpec.Kind.bw, size, part, w, bidirectional, seed);
    }

    /** The allocations of every slice of a row together. */
    private static PerfClient.Allocated sum(final PerfClient.Allocated[] slices)
    {
        PerfClient.Allocated all = slices[0];
        for (int i = 1; i < slices.length; i++)
        {
            all = all.plus(slices[i]);
        }
        return all;
    }

    /** The {@code --alloc} line under a row: bytes per operation of each side's measuring thread. */
    static String allocation(final PerfClient.Allocated lat, final PerfClient.Allocated bw)
    {
        final StringBuilder b = new StringBuilder("          allocated B/op:");
        for (final PerfClient.Allocated a : new PerfClient.Allocated[] {lat, bw})
        {
            if (a != null)
            {
                b.append(String.format(Locale.ROOT, " %s client %s server %s (%d ops);",
                    a == lat ? "latency" : "bandwidth", bytes(a.clientPerOp()), bytes(a.serverPerOp()), a.ops()));
            }
        }
        b.setLength(b.length() - 1);
        return b.toString();
    }

    private static String bytes(final double perOp)
    {
        return Double.isNaN(perOp) ? "not counted" : String.format(Locale.ROOT, "%.2f", perOp);
    }

    /**
     * Runs every test of the plan once at a small size, unmeasured: one pass of the warm-up,
     * which {@link WarmUp} repeats until the JIT compiler is quiet, so that the rows of the
     * table, jdat's and the baseline's alike, are not the compiler's. A latency pass has a warm-up
     * of its own, a tenth of its rounds as a row has: a loop that has only ever recorded every
     * round is compiled without the branch that skips a row's first rounds, and throws that code
     * away at a row's first round, so that the compiler recompiles the measuring loop during the
     * measured rounds.
     */
    private void warmUp(final PerfClient client, final Plan plan)
    {
        final long size = plan.sizes.getFirst();
        final int n = Math.min(iters, WARM_UP_ITERATIONS);
        long seed = -1000;
        for (final Op o : plan.ops)
        {
            if (plan.lat && plan.baseline != null)
            {
                slicedLatency(client, plan.baseline, o, size, n, warmupFor(n), seed--, true);
            }
            else if (plan.lat)
            {
                client.jdatLatency(new RowSpec(o, RowSpec.Kind.lat, size, n, warmupFor(n), false, seed--));
            }
            if (plan.bw)
            {
                final RowSpec r = new RowSpec(o, RowSpec.Kind.bw, size, n, 0, bidirectional, seed--);
                client.jdatBandwidth(r);
                if (plan.baseline != null)
                {
                    client.baselineBandwidth(plan.baseline, r);
                }
            }
        }
    }

    /**
     * A progress bar on stderr, shown only when stderr is a terminal and the sweep has already
     * taken a few seconds.
     */
    private static final class Progress implements AutoCloseable
    {
        private static final long SHOW_AFTER_NANOS = 3_000_000_000L;
        private final int total;
        private final long started = System.nanoTime();
        private final boolean terminal = System.console() != null && System.console().isTerminal();
        private ProgressBar bar;
        private int done;

        Progress(final int total)
        {
            this.total = total;
        }

        void step()
        {
            done++;
            if (bar == null && terminal && System.nanoTime() - started > SHOW_AFTER_NANOS)
            {
                bar = new ProgressBarBuilder().setTaskName("jdat perf").setInitialMax(total)
                    .setStyle(ProgressBarStyle.ASCII).setConsumer(new ConsoleProgressBarConsumer(System.err))
                    .hideEta().build();
            }
            if (bar != null)
            {
                bar.stepTo(done);
            }
        }

        /** Clears the bar's line so that a table row can be printed. */
        void clear()
        {
            if (bar != null)
            {
                System.err.print("\r" + " ".repeat(100) + "\r");
                System.err.flush();
            }
        }

        /** Draws the bar again below what was printed. */
        void redraw()
        {
            if (bar != null)
            {
                bar.refresh();
            }
        }

        @Override
        public void close()
        {
            if (bar != null)
            {
                bar.close();
            }
        }
    }
}

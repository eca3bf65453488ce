package io.jdat.tools.dapltest;

import io.jdat.DatException;
import io.jdat.tools.Jdat;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.HostPort;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code jdat test client transaction}: dapltest {@code -T T} (digest §8.1). */
@Command(name = "transaction", sortOptions = false,
    description = {"Runs dapltest's transaction test (-T T), which checks that data arrives intact.",
        "THREADS threads per side, each with EPS endpoints, run the op list ITERATIONS times; every completion is "
            + "checked (status, endpoint, cookie, length) and with --validate every byte. The exit code is 0 only "
            + "when both sides' checks passed."},
    footer = {"", "OP: client|server SR|RR|RW [SEG_SIZE [NUM_SEGS]]: the initiator; Send/Recv, RDMA Read or RDMA "
        + "Write; default 4096 bytes in 1 segment. The list needs at least one client SR and one server SR. "
        + "Default list:",
        "  client SR 4096 server SR 4096 client RW 4096 server RR 4096",
        "Example:",
        "  jdat test client transaction -t 2 -w 4 -i 100 --validate \\",
        "      client SR 256 server SR 256 client RR 8192 4 server RW 100"})
public final class TransactionCommand implements Callable<Integer>
{
    private static final List<String> DEFAULT_OPS = List.of("client", "SR", "4096", "server", "SR", "4096", "client",
        "RW", "4096", "server", "RR", "4096");

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @ParentCommand
    private ClientCommand client;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    private boolean help;

    @Option(names = {"-i", "--iterations"}, defaultValue = "1000", paramLabel = "N",
        description = "iterations of the op list (default: ${DEFAULT-VALUE})")
    private int iterations;

    @Option(names = {"-t", "--threads"}, defaultValue = "1", paramLabel = "N",
        description = "threads per side (default: ${DEFAULT-VALUE})")
    private int threads;

    @Option(names = {"-w", "--eps"}, defaultValue = "1", paramLabel = "N",
        description = "endpoints per thread (default: ${DEFAULT-VALUE})")
    private int eps;

    @Option(names = {"-V", "--validate"}, description = "check every byte (adds three barrier Sends per iteration)")
    private boolean validate;

    @Option(names = {"-P", "--poll"}, description = "poll completions with dat_evd_dequeue instead of dat_evd_wait")
    private boolean poll;

    @Option(names = {"-Q", "--cno"}, description = "wait on a CNO (dat_cno_wait), then dequeue")
    private boolean cno;

    @Option(names = {"-r", "--rsp"}, description = "connect through one RSP per endpoint instead of a PSP")
    private boolean rsp;

    @Option(names = "--dapltest", description = "speak OFED dapltest's wire: --server may be a real 'dapltest -T S' "
        + "(port default 62000); without --server, a jdat test server in this process serves it; PSPs only, so far")
    private boolean dapltest;

    @Option(names = "--test-ports", paramLabel = "PORT",
        description = "with --dapltest: dial the test connections at PORT, PORT+1, ... instead of the ports the "
            + "server names (behind port forwarding)")
    private Long testPorts;

    @Option(names = "--settle", defaultValue = "0", paramLabel = "MILLIS",
        description = "with --dapltest: pause after each test connection comes up, before its first Send "
            + "(default: ${DEFAULT-VALUE}; no longer needed against siw, see docs/interop.md)")
    private long settle;

    @Parameters(paramLabel = "OP", arity = "0..*", description = "the op list (see below)")
    private List<String> words = new ArrayList<>();

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        client.validate(cl);
        final TransactionParams p = params(cl);
        final PrintWriter out = cl.getOut();
        final PrintWriter err = cl.getErr();
        if (dapltest)
        {
            return dapltest(cl, p, out, err);
        }
        out.println("jdat test transaction: " + p.describe());
        return client.withServer(out, err, "transaction", (node, ctrl, server) ->
        {
            final long start = System.nanoTime();
            final Outcome serverSide = new Outcome();
            final Outcome mine = Transaction.client(node, ctrl, server, p, client.timeoutMicros(), serverSide);
            final double seconds = (System.nanoTime() - start) / 1e9;
            final List<String> failures = new ArrayList<>(mine.failures());
            serverSide.failures().forEach(f ->
            {
                for (final String one : f.split(" \\| "))
                {
                    failures.add("server: " + one);
                }
            });
            out.printf("client: %d checks passed%s%n", mine.checks().get(), mine.passed() ? "" : ", failed");
            out.printf("server: %d checks passed%s%n", serverSide.checks().get(),
                serverSide.passed() ? "" : ", failed");
            final long moved = bytesPerIteration(p) * p.iters() * p.threads() * p.eps();
            out.printf("%d iterations x %d endpoint(s) in %.3f s: %.1f MB/s%n", p.iters(), p.threads() * p.eps(),
                seconds, moved / seconds / 1e6);
            if (failures.isEmpty())
            {
                out.println("all checks passed (" + (mine.checks().get() + serverSide.checks().get()) + " checks)");
            }
            return ClientCommand.report(out, err, "transaction", failures);
        });
    }

    /** The client of a real dapltest server ({@link DapltestClient}). */
    private int dapltest(final CommandLine cl, final TransactionParams jdatParams, final PrintWriter out,
        final PrintWriter err)
    {
        if (settle < 0 || settle > 60_000)
        {
            throw new CommandLine.ParameterException(cl, "--settle must be 0 to 60000 ms");
        }
        if (rsp || cno)
        {
            throw new CommandLine.ParameterException(cl, "--dapltest takes neither --rsp nor --cno yet");
        }
        final HostPort named;
        try
        {
            named = client.serverOption() == null ? null
                : HostPort.parse(client.serverOption(), "localhost", DapltestWire.SERVER_PORT);
        }
        catch (final IllegalArgumentException e)
        {
            throw new CommandLine.ParameterException(cl, "--server: " + Jdat.describe(e));
        }
        // without --server, a jdat test server in this process, on dapltest's wire as well
        try (LocalDapltestServer local = named != null ? null
            : new LocalDapltestServer(client.iaName(), out, client.timeoutMicros()))
        {
            final int code = dapltestAgainst(named != null ? named : local.address(), jdatParams, out, err);
            if (code == 0 && local != null && !local.finishedWith("dapltest transaction passed"))
            {
                err.println("jdat test transaction: FAILED: the server in this process did not pass the test");
                return Jdat.EXIT_FAILED;
            }
            return code;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return Jdat.EXIT_FAILED;
        }
    }

    private int dapltestAgainst(final HostPort server, final TransactionParams jdatParams, final PrintWriter out,
        final PrintWriter err)
    {
        final List<TestOp> userOps = jdatParams.ops().subList(0, jdatParams.ops().size() - (validate ? 3 : 0));
        final TransactionParams p = new TransactionParams(threads, eps, iterations, validate, jdatParams.mode(), false,
            DapltestClient.withBarriers(userOps, validate), false);
        out.println("jdat test transaction on dapltest's wire: server " + server + "; " + p.describe());
        out.flush();
        final long start = System.nanoTime();
        try (Node node = Node.open(client.iaName()))
        {
            final long checks = DapltestClient.run(node, server.address(), server.port(), testPorts, settle,
                server.address().toString(), p, client.timeoutMicros(), line ->
                {
                    out.println(line);
                    out.flush();
                });
            final double seconds = (System.nanoTime() - start) / 1e9;
            final long moved = bytesPerIteration(p) * p.iters() * p.threads() * p.eps();
            out.printf("%d iterations x %d endpoint(s) in %.3f s: %.1f MB/s%n", p.iters(), p.threads() * p.eps(),
                seconds, moved / seconds / 1e6);
            out.println("all checks passed (" + checks
                + " checks on this side; the server's verdict is in its output)");
            return 0;
        }
        catch (final CheckFailed | DatException e)
        {
            err.println("jdat test transaction: FAILED: " + Jdat.describe(e));
            return Jdat.EXIT_FAILED;
        }
    }

    private static long bytesPerIteration(final TransactionParams p)
    {
        return p.ops().stream().mapToLong(TestOp::length).sum();
    }

    private TransactionParams params(final CommandLine cl)
    {
        if (iterations < 1 || threads < 1 || eps < 1)
        {
            throw new CommandLine.ParameterException(cl, "--iterations, --threads and --eps must be at least 1");
        }
        if (threads * (long) eps > 1024)
        {
            throw new CommandLine.ParameterException(cl, "at most 1024 endpoints per side (threads x eps)");
        }
        if (poll && cno)
        {
            throw new CommandLine.ParameterException(cl, "--poll and --cno exclude each other");
        }
        final List<TestOp> ops;
        try
        {
            ops = TestOp.parse(words.isEmpty() ? DEFAULT_OPS : words);
        }
        catch (final IllegalArgumentException e)
        {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        // as dapltest, counting the barriers that validation adds
        final List<TestOp> all = TransactionParams.withBarriers(ops, validate);
        final boolean clientSends = all.stream().anyMatch(o -> o.type() == TestOp.Type.SR && o.byClient());
        final boolean serverSends = all.stream().anyMatch(o -> o.type() == TestOp.Type.SR && !o.byClient());
        if (!clientSends || !serverSends)
        {
            // receives are posted one iteration ahead; a Send each way keeps the sides in step
            throw new CommandLine.ParameterException(cl, "the op list needs at least one client SR and one server SR");
        }
        final Completion mode = poll ? Completion.POLL : cno ? Completion.CNO : Completion.WAIT;
        return new TransactionParams(threads, eps, iterations, validate, mode, rsp,
            TransactionParams.withBarriers(ops, validate), client.corrupt());
    }
}

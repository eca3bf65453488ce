package io.jdat.tools.dapltest;

import io.jdat.tools.kit.Completion;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code jdat test client transaction}: dapltest {@code -T T} (digest §8.1). */
@Command(name = "transaction", sortOptions = false,
    description = {"Runs dapltest's transaction test (-T T), which checks that data arrives intact.",
        "THREADS threads per side, each with EPS endpoints, run the op list ITERATIONS times; every completion is "
            + "checked (status, endpoint, cookie, length) and with --validate every byte. It speaks OFED dapltest's "
            + "wire, so --server may be a real 'dapltest -T S' (port default 62000); the exit code is 0 when this "
            + "side's checks passed (and, without --server, the server's in this process). With --jdat-protocol "
            + "the server reports its checks back, and the exit code is 0 only when both sides' passed."},
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

    @Option(names = {"-r", "--rsp"},
        description = "connect through one RSP per endpoint instead of a PSP (the server reserves them)")
    private boolean rsp;

    @Mixin
    private WireOptions wire;

    @Option(names = "--settle", defaultValue = "0", paramLabel = "MILLIS",
        description = "on dapltest's wire: pause after each test connection comes up, before its first Send "
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
        wire.validate(cl);
        if (!wire.jdatProtocol())
        {
            return dapltest(cl, p, out);
        }
        if (settle != 0)
        {
            throw new CommandLine.ParameterException(cl, "--settle is an option of dapltest's wire, not of "
                + "--jdat-protocol");
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

    /** On dapltest's wire: the client of a real dapltest server, or of a jdat test server. */
    private int dapltest(final CommandLine cl, final TransactionParams jdatParams, final PrintWriter out)
    {
        if (settle < 0 || settle > 60_000)
        {
            throw new CommandLine.ParameterException(cl, "--settle must be 0 to 60000 ms");
        }
        // dapltest's barriers instead of jdat's
        final List<TestOp> userOps = jdatParams.ops().subList(0, jdatParams.ops().size() - (validate ? 3 : 0));
        if (userOps.stream().anyMatch(op -> op.segSize() < 1))
        {
            throw new CommandLine.ParameterException(cl, "on dapltest's wire every op moves 1 byte or more a segment "
                + "(the served test takes no 0); --jdat-protocol takes 0");
        }
        final TransactionParams p = new TransactionParams(threads, eps, iterations, validate, jdatParams.mode(),
            jdatParams.rsp(), DapltestClient.withBarriers(userOps, validate), jdatParams.corrupt());
        return WireOptions.onDapltestWire(client, cl, "transaction", "dapltest transaction passed", (node, server) ->
        {
            out.println("jdat test transaction on dapltest's wire: server " + server + "; " + p.describe());
            out.flush();
            final long start = System.nanoTime();
            final long checks = DapltestClient.run(node, server.address(), server.port(), wire.testPorts(), settle,
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
        });
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

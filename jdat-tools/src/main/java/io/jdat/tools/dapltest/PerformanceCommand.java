package io.jdat.tools.dapltest;

import io.jdat.tools.kit.Completion;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code jdat test client performance}: dapltest {@code -T P} (digest §8.1). */
@Command(name = "performance", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs dapltest's performance test (-T P), the rate and latency of RDMA Reads or Writes.",
        "It times RDMA Reads or Writes of one size against the server's buffer, PIPELINE outstanding, and prints "
            + "operations/s, MB/s and latency percentiles. It speaks OFED dapltest's wire, so --server may be a real "
            + "'dapltest -T S'; like dapltest's, it checks no data. With --jdat-protocol (a jdat test server only) "
            + "the data is checked at the end (RR: the client's sink; RW: the server's target)."},
    footer = {"", "OP: RR|RW [SEG_SIZE [NUM_SEGS]] (default RW 4096 1)."})
public final class PerformanceCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @ParentCommand
    private ClientCommand client;

    @Option(names = {"-m", "--mode"}, defaultValue = "b", paramLabel = "b|p",
        description = "b: block in dat_evd_wait, p: poll with dat_evd_dequeue (default: ${DEFAULT-VALUE})")
    private String mode;

    @Option(names = {"-i", "--iterations"}, defaultValue = "1000", paramLabel = "N",
        description = "operations (default: ${DEFAULT-VALUE})")
    private int iterations;

    @Option(names = {"-p", "--pipeline"}, defaultValue = "16", paramLabel = "N",
        description = "operations outstanding (default: ${DEFAULT-VALUE})")
    private int pipeline;

    @Mixin
    private WireOptions wire;

    @Parameters(paramLabel = "OP", arity = "0..3", description = "RR or RW, then segment size and count")
    private List<String> words = new ArrayList<>();

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        client.validate(cl);
        final Performance.Params p = params(cl);
        final PrintWriter out = cl.getOut();
        final PrintWriter err = cl.getErr();
        wire.validate(cl);
        if (!wire.jdatProtocol())
        {
            return dapltest(cl, p, out);
        }
        out.println("jdat test performance: " + p.describe());
        return client.withServer(out, err, "performance", (node, ctrl, server) ->
        {
            final Performance.Result r = Performance.client(node, ctrl, server, p, client.timeoutMicros());
            final double seconds = r.nanos() / 1e9;
            final Histogram h = r.latency();
            out.printf("%d operations in %.3f s: %.0f ops/s, %.1f MB/s%n", p.iters(), seconds, p.iters() / seconds,
                p.length() * (double) p.iters() / seconds / 1e6);
            out.printf("latency (post to completion, %d outstanding): p50 %.2f us, p99 %.2f us, max %.2f us%n",
                p.pipeline(), h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getMaxValue() / 1e3);
            out.println("all checks passed (" + r.checks() + " checks)");
            return 0;
        });
    }

    /** dapltest's -T P: the rate of phase 1, the latency of phase 2; the data is not checked. */
    private int dapltest(final CommandLine cl, final Performance.Params p, final PrintWriter out)
    {
        if (client.corrupt())
        {
            throw new CommandLine.ParameterException(cl, "dapltest's performance test checks no data: "
                + "--inject-corruption needs --jdat-protocol");
        }
        final DapltestWire.PerformanceCmd cmd = new DapltestWire.PerformanceCmd(p.write() ? TestOp.Type.RW
            : TestOp.Type.RR, p.segSize(), p.segs(), p.iters(), p.pipeline(), p.mode() == Completion.POLL);
        return WireOptions.onDapltestWire(client, cl, "performance", "dapltest performance done", (node, server) ->
        {
            out.println("jdat test performance on dapltest's wire: server " + server + "; " + p.describe());
            out.flush();
            final DapltestPerformanceClient.Result r = DapltestPerformanceClient.run(node, server.address(),
                server.port(), wire.testPorts(), cmd, p.mode(), client.timeoutMicros());
            final double seconds = r.pipelinedNanos() / 1e9;
            final Histogram h = r.latency();
            out.printf("%d operations in %.3f s: %.0f ops/s, %.1f MB/s%n", p.iters(), seconds, p.iters() / seconds,
                p.length() * (double) p.iters() / seconds / 1e6);
            out.printf("latency (post to completion, one at a time): p50 %.2f us, p99 %.2f us, max %.2f us%n",
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getMaxValue() / 1e3);
            out.println("done (dapltest's performance test checks no data; the server's verdict is in its output)");
            return 0;
        });
    }

    private Performance.Params params(final CommandLine cl)
    {
        final Completion completion = switch (mode.toLowerCase(Locale.ROOT))
        {
            case "b", "blocking" -> Completion.WAIT;
            case "p", "polling" -> Completion.POLL;
            default -> throw new CommandLine.ParameterException(cl, "--mode: '" + mode + "' is not b or p");
        };
        if (iterations < 1 || pipeline < 1 || pipeline > 1024)
        {
            throw new CommandLine.ParameterException(cl, "--iterations must be at least 1, --pipeline 1 to 1024");
        }
        final String op = words.isEmpty() ? "RW" : words.getFirst().toUpperCase(Locale.ROOT);
        if (!op.equals("RR") && !op.equals("RW"))
        {
            throw new CommandLine.ParameterException(cl, "OP: '" + words.getFirst() + "' is not RR or RW");
        }
        final long size;
        final int segs;
        try
        {
            size = words.size() > 1 ? Long.parseLong(words.get(1)) : 4096;
            segs = words.size() > 2 ? Integer.parseInt(words.get(2)) : 1;
        }
        catch (final NumberFormatException e)
        {
            throw new CommandLine.ParameterException(cl, "OP: segment size and count must be numbers");
        }
        if (size < 1 || size > 1L << 30 || segs < 1 || segs > 64 || size * segs > 1L << 30)
        {
            throw new CommandLine.ParameterException(cl,
                "OP: 1 to 64 segments of 1 byte to 1 GiB, at most 1 GiB in all");
        }
        return new Performance.Params(op.equals("RW"), size, segs, iterations, pipeline, completion, client.corrupt());
    }
}

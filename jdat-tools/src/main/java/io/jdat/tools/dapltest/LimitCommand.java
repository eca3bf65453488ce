package io.jdat.tools.dapltest;

import io.jdat.tools.perf.Sizes;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code jdat test client limit}: dapltest {@code -T L} (digest §8.1); runs on the client's IA alone. */
@Command(name = "limit", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs dapltest's limit test (-T L), resource exhaustion on the client's IA alone.",
        "For each kind of object it creates as many as the provider allows (at most MAX); creation must then fail "
            + "with a DAT return code and nothing else. Then it frees everything and closes the IA gracefully."},
    footer = {"", "TEST: limit_ia, limit_pz, limit_cno, limit_evd, limit_ep, limit_rsp, limit_psp, limit_lmr, "
        + "limit_rpost, limit_size_lmr (default: all)."})
public final class LimitCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @ParentCommand
    private ClientCommand client;

    @Option(names = {"-m", "--max"}, defaultValue = "1000", paramLabel = "N",
        description = "most objects per test (default: ${DEFAULT-VALUE})")
    private int max;

    @Option(names = "--max-lmr-size", defaultValue = "64M", paramLabel = "SIZE",
        description = "limit_size_lmr: largest region to try, from 1M doubling (default: ${DEFAULT-VALUE})")
    private String maxLmrSize;

    @Parameters(paramLabel = "TEST", arity = "0..*", description = "the sub-tests to run (default: all)")
    private List<String> names = new ArrayList<>();

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        client.validate(cl);
        if (max < 1 || max > 1_000_000)
        {
            throw new CommandLine.ParameterException(cl, "--max must be 1 to 1000000");
        }
        final long largest;
        try
        {
            largest = Sizes.parse(maxLmrSize);
        }
        catch (final IllegalArgumentException e)
        {
            throw new CommandLine.ParameterException(cl, "--max-lmr-size: " + e.getMessage());
        }
        if (largest < 1L << 20)
        {
            throw new CommandLine.ParameterException(cl, "--max-lmr-size must be at least 1M");
        }
        for (final String n : names)
        {
            if (!Limits.NAMES.contains(n))
            {
                throw new CommandLine.ParameterException(cl, "'" + n + "' is not a limit test ("
                    + String.join(", ", Limits.NAMES) + ")");
            }
        }
        final PrintWriter out = cl.getOut();
        out.println("jdat test limit: provider " + client.iaName() + ", at most " + max + " objects per test");
        final List<String> failures = new ArrayList<>();
        for (final String n : names.isEmpty() ? Limits.NAMES : names)
        {
            final Limits.Result r = Limits.run(n, client.iaName(), max, largest);
            final String unit = n.equals("limit_size_lmr") ? " bytes (largest)" : "";
            out.printf("  %-15s %-6s created %d%s%s%n", n, r.passed() ? "ok" : "FAILED", r.created(), unit,
                r.stop() == null ? ", the maximum asked" : "; then " + r.stop());
            out.flush();
            if (!r.passed())
            {
                failures.add(n + ": " + r.failure());
            }
        }
        if (failures.isEmpty())
        {
            out.println("all limit tests passed");
        }
        return ClientCommand.report(out, cl.getErr(), "limit", failures);
    }
}

package io.jdat.tools.dapltest;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code jdat test client fft}: dapltest {@code -T F} (digest §8.1); runs on the client's IA alone. */
@Command(name = "fft", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs dapltest's FFT cases (-T F), which check return codes on the client's IA alone.",
        "One DAT call at a time, each on a fresh IA, must return the code DAT requires."},
    footer = {"", "FEATURE: hwconn, endpoint, pz, mem, connmgt, queryinfo, dataxfer (default: all)."})
public final class FftCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @ParentCommand
    private ClientCommand client;

    @Option(names = {"-f", "--feature"}, paramLabel = "FEATURE", description = "run only this feature's cases")
    private String feature;

    @Parameters(paramLabel = "CASE", arity = "0..*", description = "case numbers of the feature (default: all)")
    private List<Integer> numbers = new ArrayList<>();

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        client.validate(cl);
        if (feature != null && !Fft.features().contains(feature))
        {
            throw new CommandLine.ParameterException(cl, "--feature: '" + feature + "' is not one of "
                + String.join(", ", Fft.features()));
        }
        if (!numbers.isEmpty() && feature == null)
        {
            throw new CommandLine.ParameterException(cl, "case numbers need --feature");
        }
        final List<Fft.Case> cases = Fft.cases().stream()
            .filter(c -> feature == null || c.feature().equals(feature))
            .filter(c -> numbers.isEmpty() || numbers.contains(c.number())).toList();
        for (final int n : numbers)
        {
            if (cases.stream().noneMatch(c -> c.number() == n))
            {
                throw new CommandLine.ParameterException(cl, "feature " + feature + " has no case " + n);
            }
        }
        final PrintWriter out = cl.getOut();
        out.println("jdat test fft: provider " + client.iaName() + ", " + cases.size() + " case(s)");
        final List<String> failures = new ArrayList<>();
        for (final Fft.Case c : cases)
        {
            final Fft.Result r = Fft.run(c, client.iaName());
            out.printf("  %-9s %2d %-6s %s: %s%n", c.feature(), c.number(), r.passed() ? "ok" : "FAILED",
                c.description(), r.passed() ? r.seen() : r.failure());
            out.flush();
            if (!r.passed())
            {
                failures.add(c.feature() + " case " + c.number() + " (" + c.description() + "): " + r.failure());
            }
        }
        if (failures.isEmpty())
        {
            out.println("all " + cases.size() + " cases passed");
        }
        return ClientCommand.report(out, cl.getErr(), "fft", failures);
    }
}

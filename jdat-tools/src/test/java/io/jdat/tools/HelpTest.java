package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command of {@code jdat}, found by walking picocli's command tree, answers {@code --help}
 * and, where {@code -h} is not another option's name, {@code -h}; its help is whole sentences that
 * picocli wraps, not lines broken by hand.
 */
class HelpTest
{
    /** picocli's default usage width. */
    private static final int WIDTH = 80;

    /** Every command below {@code jdat}, as the words that name it ({@code test client fft}). */
    static Stream<List<String>> commands()
    {
        final List<List<String>> all = new ArrayList<>();
        walk(Jdat.commandLine(), new ArrayList<>(), all, new IdentityHashMap<>());
        return all.stream();
    }

    private static void walk(final CommandLine cl, final List<String> path, final List<List<String>> all,
        final Map<CommandLine, Boolean> seen)
    {
        if (seen.put(cl, Boolean.TRUE) != null)
        {
            return;
        }
        all.add(List.copyOf(path));
        for (final Map.Entry<String, CommandLine> sub : cl.getSubcommands().entrySet())
        {
            if (sub.getKey().equals(sub.getValue().getCommandName()))
            {
                path.add(sub.getKey());
                walk(sub.getValue(), path, all, seen);
                path.removeLast();
            }
        }
    }

    private static CommandSpec spec(final List<String> path)
    {
        CommandLine cl = Jdat.commandLine();
        for (final String word : path)
        {
            cl = cl.getSubcommands().get(word);
        }
        return cl.getCommandSpec();
    }

    private static String[] args(final List<String> path, final String option)
    {
        final List<String> args = new ArrayList<>(path);
        args.add(option);
        return args.toArray(String[]::new);
    }

    @Test
    void theTreeHoldsEveryCommand()
    {
        final List<String> names = commands().map(p -> String.join(" ", p)).toList();
        assertTrue(names.containsAll(List.of("", "providers", "demo", "perf", "rping", "help", "test",
            "test server", "test client", "dtest")), names.toString());
        assertTrue(names.size() > 10, names.toString());
    }

    @ParameterizedTest(name = "jdat {0} --help")
    @MethodSource("commands")
    void longHelpPrintsUsageAndExitsZero(final List<String> path)
    {
        final Run r = Run.jdat(args(path, "--help"));
        assertEquals(0, r.code(), r.all());
        assertTrue(r.err().isEmpty(), r.all());
        final String summary = summary(spec(path));
        assertTrue(r.out().contains("Usage: " + spec(path).qualifiedName()), r.all());
        assertTrue(flat(r.out()).contains(summary), "the summary '" + summary + "' is missing:\n" + r.all());
    }

    @ParameterizedTest(name = "jdat {0} -h")
    @MethodSource("commands")
    void shortHelpWhereMinusHIsFree(final List<String> path)
    {
        final OptionSpec h = spec(path).findOption("-h");
        if (h != null && !h.usageHelp())
        {
            // -h is this command's own option (dtest: the host, as OFED's dtest)
            assertTrue(spec(path).findOption("--help").usageHelp(), "--help must stay help");
            return;
        }
        assertTrue(h != null, "-h is free but does not ask for help");
        final Run r = Run.jdat(args(path, "-h"));
        assertEquals(0, r.code(), r.all());
        assertEquals(Run.jdat(args(path, "--help")).out(), r.out());
    }

    @ParameterizedTest(name = "jdat {0}: a whole-sentence summary")
    @MethodSource("commands")
    void summaryIsOneWholeSentence(final List<String> path)
    {
        final String summary = summary(spec(path));
        assertTrue(Character.isUpperCase(summary.charAt(0)), "starts with a capital: " + summary);
        assertTrue(summary.endsWith("."), "ends with a full stop: " + summary);
        assertFalse(summary.substring(0, summary.length() - 1).matches(".*[a-z)]\\. [A-Z].*"),
            "one sentence: " + summary);
    }

    @ParameterizedTest(name = "jdat {0}: paragraphs, not hard-broken lines")
    @MethodSource("commands")
    void textIsParagraphsThatPicocliWraps(final List<String> path)
    {
        final CommandSpec spec = spec(path);
        final List<String> elements = new ArrayList<>();
        elements.addAll(List.of(spec.usageMessage().header()));
        elements.addAll(List.of(spec.usageMessage().description()));
        elements.addAll(List.of(spec.usageMessage().footer()));
        for (final String element : elements)
        {
            final String e = element.replaceAll("(%n)+$", "");
            if (e.isEmpty())
            {
                continue;
            }
            if (e.startsWith("  "))
            {
                // a preformatted line (an example): it must fit, or picocli breaks it
                assertTrue(e.length() <= WIDTH, "a preformatted line wider than " + WIDTH + ": " + e);
                continue;
            }
            assertFalse(Character.isLowerCase(e.charAt(0)), "a paragraph that continues the line before it "
                + "(a hard break mid-sentence): '" + e + "'");
            assertTrue(e.matches("(?s).*[.:?!]"), "a paragraph that stops mid-sentence (a hard break): '" + e + "'");
        }
        for (final OptionSpec o : spec.options())
        {
            assertTrue(o.description().length <= 1, o.longestName() + ": one paragraph, no hard breaks");
        }
    }

    @Test
    void theCommandListShowsEverySummaryWhole()
    {
        final Run r = Run.jdat("--help");
        assertEquals(0, r.code(), r.all());
        for (final CommandLine sub : Jdat.commandLine().getSubcommands().values())
        {
            final String summary = summary(sub.getCommandSpec());
            assertTrue(flat(r.out()).contains(summary), "cut: '" + summary + "'\n" + r.out());
        }
    }

    /** The line the command list shows: the header's first line, else the description's. */
    private static String summary(final CommandSpec spec)
    {
        final String[] header = spec.usageMessage().header();
        final String[] description = spec.usageMessage().description();
        final String first = header.length > 0 ? header[0] : description.length > 0 ? description[0] : "";
        assertFalse(first.isBlank(), spec.qualifiedName() + " has no description");
        return first.strip();
    }

    /** Text with its line breaks and indentation folded into single spaces. */
    private static String flat(final String text)
    {
        return text.replaceAll("\\s+", " ");
    }
}

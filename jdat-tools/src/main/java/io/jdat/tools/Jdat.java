package io.jdat.tools;

import io.jdat.tools.dapltest.TestCommand;
import io.jdat.tools.demo.DemoCommand;
import io.jdat.tools.dtest.DtestCommand;
import io.jdat.tools.perf.PerfCommand;
import io.jdat.tools.providers.ProvidersCommand;
import io.jdat.tools.rping.RpingCommand;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code jdat} command: what dapltest, dtest and perftest are to DAPL, plus a registry
 * listing and a demo. Every subcommand prints one line and exits 2 on a usage error, exits 1
 * when a check failed or a DAT call failed, and 0 when everything it checked passed.
 */
@Command(name = "jdat", mixinStandardHelpOptions = true, versionProvider = Jdat.Version.class,
    description = "Tools of the Direct Access Transport (DAT, uDAPL 1.2) for Java.",
    subcommands = {ProvidersCommand.class, DemoCommand.class, TestCommand.class, PerfCommand.class,
        DtestCommand.class, RpingCommand.class, CommandLine.HelpCommand.class})
public final class Jdat implements Runnable
{
    /** Exit code of a failed check or DAT call. */
    public static final int EXIT_FAILED = 1;
    /** Exit code of a usage error (unknown option, bad value, unknown provider). */
    public static final int EXIT_USAGE = 2;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "a subcommand is required: providers, demo, test, perf, dtest or rping");
    }

    /** Runs the command line and exits with its code. */
    public static void main(final String[] args)
    {
        System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command line with the given output streams; returns the exit code. */
    public static int execute(final PrintWriter out, final PrintWriter err, final String... args)
    {
        final CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        try
        {
            return cl.execute(args);
        }
        finally
        {
            out.flush();
            err.flush();
        }
    }

    /** The command line with jdat's error handling: one line per error, never a stack trace. */
    public static CommandLine commandLine()
    {
        final CommandLine cl = new CommandLine(new Jdat());
        cl.setParameterExceptionHandler(Jdat::usageError);
        cl.setExecutionExceptionHandler(Jdat::executionError);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    private static int usageError(final CommandLine.ParameterException e, final String[] args)
    {
        final CommandLine cl = e.getCommandLine();
        final String name = cl.getCommandSpec().qualifiedName();
        cl.getErr().println(name + ": " + oneLine(e.getMessage()) + " (see '" + name + " --help')");
        cl.getErr().flush();
        return EXIT_USAGE;
    }

    private static int executionError(final Exception e, final CommandLine cl, final CommandLine.ParseResult parsed)
    {
        final String name = cl.getCommandSpec().qualifiedName();
        cl.getErr().println(name + ": " + describe(e));
        if (System.getenv("JDAT_DEBUG") != null)
        {
            e.printStackTrace(cl.getErr());
        }
        cl.getErr().flush();
        return e instanceof CommandLine.ParameterException ? EXIT_USAGE : EXIT_FAILED;
    }

    /** One line that says what went wrong: the exception's message, or its type when it has none. */
    public static String describe(final Throwable e)
    {
        final String m = e.getMessage();
        if (m == null || m.isBlank())
        {
            return e.getClass().getSimpleName();
        }
        return oneLine(m);
    }

    private static String oneLine(final String s)
    {
        return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", "; ");
    }

    /** The version line of {@code jdat --version}. */
    public static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            final String v = Jdat.class.getPackage().getImplementationVersion();
            return new String[] {"jdat " + (v == null ? "0.1.0-SNAPSHOT" : v) + " (uDAPL 1.2), Java "
                + Runtime.version()};
        }
    }
}

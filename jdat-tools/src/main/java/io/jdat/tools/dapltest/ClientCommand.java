package io.jdat.tools.dapltest;

import io.jdat.tools.Jdat;
import io.jdat.tools.ProviderOption;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.ControlChannel;
import io.jdat.tools.kit.HostPort;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jdat test client}: dapltest's client side. Transaction and performance tests run
 * against a server ({@code --server}, or one started in this process when it is left out);
 * limit and FFT tests run on the client's own IA; quit stops a server.
 */
@Command(name = "client", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs one dapltest test: transaction, performance, limit, fft or quit.",
        "Options before the test name apply to every test. Without --server, transaction, performance and quit "
            + "start a server in this process (the only way with loopback)."},
    subcommands = {TransactionCommand.class, PerformanceCommand.class, LimitCommand.class, FftCommand.class,
        QuitCommand.class})
public final class ClientCommand implements Runnable
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private ProviderOption provider;

    @Option(names = {"-s", "--server"}, paramLabel = "ADDRESS:PORT",
        description = "the server to use: a 'jdat test server' or OFED's 'dapltest -T S' (port default "
            + Protocol.DEFAULT_PORT + "); default: a jdat test server in this process")
    private String server;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS",
        description = "longest wait for any one event (default: ${DEFAULT-VALUE})")
    private double timeout;

    @Option(names = "--inject-corruption", hidden = true,
        description = "test only: damage one byte before the first data check of each side")
    private boolean corrupt;

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "say which test: transaction, performance, limit, fft or quit");
    }

    /** The IA name the client opens. */
    String iaName()
    {
        return provider.name();
    }

    /** What --server says, or null. */
    String serverOption()
    {
        return server;
    }

    /** The wait limit of any one event, in microseconds. */
    long timeoutMicros()
    {
        return (long) (timeout * 1_000_000);
    }

    /** Whether the hidden fault injection was asked for. */
    boolean corrupt()
    {
        return corrupt;
    }

    /** Checks the options every test shares; a bad one is a usage error of {@code sub}. */
    void validate(final CommandLine sub)
    {
        if (!(timeout > 0) || timeout > 86_400)
        {
            throw new CommandLine.ParameterException(sub, "--timeout must be between 0 and 86400 seconds");
        }
        if (server != null)
        {
            try
            {
                HostPort.parse(server, "localhost", Protocol.DEFAULT_PORT);
            }
            catch (final IllegalArgumentException e)
            {
                throw new CommandLine.ParameterException(sub, "--server: " + Jdat.describe(e));
            }
        }
    }

    /** What a test does over its control connection to the server. */
    interface Session
    {
        /** Runs the test; returns the exit code. */
        int run(Node node, ControlChannel ctrl, HostPort server);
    }

    /**
     * Opens the client's IA, connects a control connection to the server (started in this
     * process when no {@code --server} was given) and runs {@code session} over it. A failed
     * check is reported on {@code err} in one line and gives {@link Jdat#EXIT_FAILED}.
     */
    int withServer(final PrintWriter out, final PrintWriter err, final String test, final Session session)
    {
        TestServer local = null;
        Thread serving = null;
        try
        {
            final HostPort target;
            if (server == null)
            {
                local = new TestServer(iaName(), -1, out, timeoutMicros());
                serving = new Thread(local::serve, "jdat-test-server");
                target = new HostPort(local.address(), local.port());
                out.println("jdat test: server in this process on " + target + " (provider " + iaName() + ")");
                serving.setDaemon(true);
                serving.start();
            }
            else
            {
                target = HostPort.parse(server, "localhost", Protocol.DEFAULT_PORT);
            }
            out.flush();
            try (Node node = Node.open(iaName()))
            {
                final ControlChannel ctrl = new ControlChannel(node,
                    node.link("client control", null, Completion.WAIT, timeoutMicros() * 4));
                ctrl.link.connect(target.address(), target.port(),
                    Protocol.CONTROL.getBytes(StandardCharsets.US_ASCII));
                final int code = session.run(node, ctrl, target);
                ctrl.link.disconnect();
                return code;
            }
        }
        catch (final CheckFailed | io.jdat.DatException e)
        {
            err.println("jdat test " + test + ": FAILED: " + Jdat.describe(e));
            return Jdat.EXIT_FAILED;
        }
        finally
        {
            if (local != null)
            {
                local.stop();
                join(serving);
                local.close();
            }
            out.flush();
            err.flush();
        }
    }

    private void join(final Thread t)
    {
        try
        {
            t.join(timeoutMicros() / 1000 + 1000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Prints the failures of a test, every one on {@code out} and the first cause on {@code err}:
     * a flushed completion is what a failure elsewhere does to the endpoints, so those come last.
     */
    static int report(final PrintWriter out, final PrintWriter err, final String test, final List<String> all)
    {
        if (all.isEmpty())
        {
            return 0;
        }
        final List<String> failures = new java.util.ArrayList<>(all);
        failures.sort(java.util.Comparator.comparing(f -> f.contains("ERR_FLUSHED")));
        out.println("FAILED (" + failures.size() + (failures.size() == 1 ? " failure):" : " failures):"));
        failures.forEach(f -> out.println("  - " + f));
        out.flush();
        err.println("jdat test " + test + ": FAILED: " + failures.getFirst());
        err.flush();
        return Jdat.EXIT_FAILED;
    }
}

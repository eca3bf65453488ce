package io.jdat.tools.dapltest;

import io.jdat.DatException;
import io.jdat.tools.Jdat;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.HostPort;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of the client's tests that run against a server ({@code transaction},
 * {@code performance}, {@code quit}): which wire they speak, and where dapltest's test connections
 * are dialled. OFED dapltest's wire ({@link DapltestWire}) is the default, so that the server may
 * be a real {@code dapltest -T S}; {@code --jdat-protocol} speaks jdat's own ({@link Protocol}),
 * whose server reports its checks back.
 */
final class WireOptions
{
    @Option(names = "--jdat-protocol", description = "speak jdat's own protocol instead of dapltest's: the server "
        + "must be a 'jdat test server', and it reports its own checks back to the client")
    private boolean jdatProtocol;

    @Option(names = {"--test-ports", "--test-port"}, paramLabel = "PORT",
        description = "on dapltest's wire: dial the test connections at PORT, PORT+1, ... instead of the ports the "
            + "server names (behind port forwarding)")
    private Long testPorts;

    /** What a test does on dapltest's wire against {@code server}. */
    interface Run
    {
        /** Runs the test; returns the exit code, or throws {@link CheckFailed} or a DAT error. */
        int run(Node node, HostPort server);
    }

    /** Whether {@code --jdat-protocol} was given. */
    boolean jdatProtocol()
    {
        return jdatProtocol;
    }

    /** Where to dial the test connections instead of the ports the server names, or null. */
    Long testPorts()
    {
        return testPorts;
    }

    /**
     * Checks these options against the client's; a bad combination is a usage error of
     * {@code cl}.
     */
    void validate(final CommandLine cl)
    {
        if (jdatProtocol && testPorts != null)
        {
            throw new CommandLine.ParameterException(cl, "--test-ports is an option of dapltest's wire, "
                + "not of --jdat-protocol");
        }
        if (testPorts != null && (testPorts < 1 || testPorts > 0xFFFF_FFFFL))
        {
            throw new CommandLine.ParameterException(cl, "--test-ports must be 1 to 4294967295");
        }
    }

    /**
     * Runs {@code test} on dapltest's wire: against the server {@code --server} names (port
     * default 62000) or, without it, against a jdat test server started in this process, whose
     * log must then show {@code verdict}. A failure is one line on the error stream and
     * {@link Jdat#EXIT_FAILED}.
     */
    static int onDapltestWire(final ClientCommand client, final CommandLine cl, final String test,
        final String verdict, final Run body)
    {
        final PrintWriter out = cl.getOut();
        final PrintWriter err = cl.getErr();
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
        try (LocalDapltestServer local = named != null ? null
            : new LocalDapltestServer(client.iaName(), out, client.timeoutMicros());
            Node node = Node.open(client.iaName()))
        {
            final int code = body.run(node, named != null ? named : local.address());
            if (code == 0 && local != null && !local.finishedWith(verdict))
            {
                err.println("jdat test " + test + ": FAILED: the server in this process did not say '" + verdict + "'");
                return Jdat.EXIT_FAILED;
            }
            return code;
        }
        catch (final CheckFailed | DatException e)
        {
            err.println("jdat test " + test + ": FAILED: " + Jdat.describe(e));
            return Jdat.EXIT_FAILED;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            err.println("jdat test " + test + ": FAILED: interrupted");
            return Jdat.EXIT_FAILED;
        }
        finally
        {
            out.flush();
            err.flush();
        }
    }
}

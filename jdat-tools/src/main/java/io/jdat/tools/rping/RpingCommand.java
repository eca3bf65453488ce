package io.jdat.tools.rping;

import io.jdat.IaAddress;
import io.jdat.tools.Jdat;
import io.jdat.tools.ProviderOption;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jdat rping}: rdma-core's rping over DAT, on any provider. The client advertises a buffer
 * with its ping text, the server RDMA-Reads it and Sends; the client advertises a second buffer,
 * the server RDMA-Writes the text back into it and Sends; the client checks every byte. A
 * connection that ends early or data that differs ends the run with exit 1 and one line saying
 * what was seen.
 */
@Command(name = "rping", versionProvider = Jdat.Version.class,
    description = {"Runs rdma-core's rping over DAT and checks every byte.",
        "The client advertises a buffer and the server RDMA-Reads it; the client advertises a second buffer and "
            + "the server RDMA-Writes the data back. The exit code is 0 when every ping was verified."})
public final class RpingCommand implements Callable<Integer>
{
    /** rping's default port. */
    static final int DEFAULT_PORT = 7174;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private ProviderOption provider;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Role role;

    static final class Role
    {
        @Option(names = "-s", required = true, description = "server")
        boolean server;

        @Option(names = "-c", required = true, description = "client")
        boolean client;
    }

    @Option(names = "-a", paramLabel = "ADDR",
        description = "client: the server's IA address (for a host-local IA such as shm, default: this host); "
            + "server: the IA's own address (checked)")
    private String address;

    @Option(names = "-p", paramLabel = "PORT", defaultValue = "" + DEFAULT_PORT,
        description = "connection qualifier (TCP port for tcp; default ${DEFAULT-VALUE}); server: 0 picks a free one")
    private long port;

    @Option(names = "-C", paramLabel = "COUNT", defaultValue = "0",
        description = "pings to run (default 0: the client runs until stopped, the server until the client leaves)")
    private long count;

    @Option(names = "-S", paramLabel = "SIZE", defaultValue = "64",
        description = "bytes per ping buffer, " + RpingData.MIN_SIZE + " to 16777216 (default ${DEFAULT-VALUE})")
    private int size;

    // rping's -V (validate) takes picocli's short version flag: --version only
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    private boolean help;

    @Option(names = "--version", versionHelp = true, description = "Print version information and exit.")
    private boolean version;

    @Option(names = "-v", description = "print each ping's data, as rping -v does")
    private boolean verbose;

    @Option(names = "-V", description = "validate the data (always done; accepted as rping's flag)")
    private boolean validate;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
        description = "longest wait for any one event, the client's arrival included (default ${DEFAULT-VALUE})")
    private long timeoutSeconds;

    @Option(names = "--corrupt-ping", hidden = true, defaultValue = "-1",
        description = "test only (server): change one byte of this ping's echo, "
            + "to show that the client's check catches it")
    private long corruptPing;

    @Override
    public Integer call()
    {
        if (size < RpingData.MIN_SIZE || size > 1 << 24)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "-S " + size + " is outside " + RpingData.MIN_SIZE + ".." + (1 << 24));
        }
        if (count < 0 || port < 0 || timeoutSeconds <= 0)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "-C, -p and --timeout must not be negative");
        }
        final PrintWriter out = spec.commandLine().getOut();
        final long timeoutMicros = timeoutSeconds * 1_000_000L;
        try (Node node = Node.open(provider.name()))
        {
            if (role.server)
            {
                if (address != null && !IaAddress.parse(address).equals(node.address))
                {
                    throw new CommandLine.ParameterException(spec.commandLine(), "IA " + provider.name()
                        + " has address " + node.address + ", not " + address
                        + " (register an IA name with that address in dat.conf)");
                }
                final RpingServer server = new RpingServer(node, out, verbose, timeoutMicros, size);
                final int served = server.run(port, count, timeoutMicros, corruptPing);
                out.println("rping server: " + served + " pings of up to " + size + " bytes served");
            }
            else
            {
                // a host-local IA (shm) reaches servers of this host: -a defaults to its own address
                if (address == null && node.address.isInet())
                {
                    throw new CommandLine.ParameterException(spec.commandLine(), "the client needs -a ADDR");
                }
                final IaAddress server = address == null ? node.address : IaAddress.parse(address);
                final RpingClient client = new RpingClient(node, out, verbose, timeoutMicros, size);
                final long verified = client.run(server, port, count);
                out.println("rping client: " + verified + " pings of " + size + " bytes, every byte verified");
            }
        }
        catch (final CheckFailed | RpingEnd.Ended e)
        {
            spec.commandLine().getErr().println("jdat rping: " + Jdat.describe(e));
            return Jdat.EXIT_FAILED;
        }
        return 0;
    }
}

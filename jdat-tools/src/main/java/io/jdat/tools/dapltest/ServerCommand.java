package io.jdat.tools.dapltest;

import io.jdat.ProviderInfo;
import io.jdat.registry.Registry;
import io.jdat.spi.DatProviderLibrary;
import io.jdat.spi.StaticRegistryEntry;
import io.jdat.tools.ProviderOption;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code jdat test server}: dapltest {@code -T S}. */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = {"Runs dapltest's server (-T S), which serves tests until a client says quit.",
        "It runs the server's part of transaction and performance tests, for 'jdat test client' and for OFED "
            + "DAPL's own 'dapltest -T T|P|Q' (a control connection without private data speaks dapltest's wire; "
            + "its test connections take the ports after --port). With loopback only clients in this process can "
            + "reach it; use 'jdat test client' without --server."})
public final class ServerCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Mixin
    private ProviderOption provider;

    @Option(names = "--address", paramLabel = "A",
        description = "serve on IA address A: registers the provider's library again with instance data address=A")
    private String address;

    @Option(names = {"-n", "--port"}, paramLabel = "N", defaultValue = "" + Protocol.DEFAULT_PORT,
        description = "base port (connection qualifier), dapltest's (default: ${DEFAULT-VALUE})")
    private long port;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS",
        description = "longest wait for any one event (default: ${DEFAULT-VALUE})")
    private double timeout;

    @Override
    public Integer call()
    {
        if (port < 0 || port > 0xFFFF_FFFFL || !(timeout > 0) || timeout > 86_400)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--port must be 0 to 4294967295 and --timeout between 0 and 86400 seconds");
        }
        final PrintWriter out = spec.commandLine().getOut();
        final String iaName = address == null ? provider.name() : withAddress(provider.name(), address);
        try (TestServer server = new TestServer(iaName, port, out, (long) (timeout * 1e6)))
        {
            out.println("jdat test server: provider " + provider.name() + ", listening on " + server.address() + ":"
                + server.port() + (provider.inJvmOnly() ? " (in-JVM provider: reachable from this process only)" : ""));
            out.flush();
            server.serve();
            out.println("jdat test server: quit");
        }
        return 0;
    }

    /**
     * Registers {@code iaName@address}: the library of {@code iaName}'s registry entry,
     * initialised with that entry's instance data plus {@code address=ADDRESS}.
     */
    static String withAddress(final String iaName, final String address)
    {
        final String name = iaName + "@" + address;
        for (final StaticRegistryEntry e : Registry.get().staticEntries())
        {
            if (e.info().iaName().equals(iaName) && e.info().isThreadSafe())
            {
                final DatProviderLibrary lib = Registry.get().libraries().get(e.library());
                if (lib == null)
                {
                    throw new IllegalStateException("the library " + e.library() + " of " + iaName + " is not loaded");
                }
                final ProviderInfo info = ProviderInfo.of(name, true);
                if (!Registry.get().dynamicEntries().contains(info))
                {
                    lib.providerInit(info, (e.instanceData() + " address=" + address).strip());
                }
                return name;
            }
        }
        throw new IllegalStateException("--address needs a thread-safe static registry entry for " + iaName);
    }
}

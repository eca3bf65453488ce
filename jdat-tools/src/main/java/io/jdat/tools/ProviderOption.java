package io.jdat.tools;

import io.jdat.ProviderInfo;
import io.jdat.registry.Registry;
import io.jdat.spi.StaticRegistryEntry;
import java.util.LinkedHashSet;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The {@code --provider} option every command that opens an IA shares. An IA name the registry
 * does not know is a usage error (exit 2), reported before anything runs.
 */
public final class ProviderOption
{
    /** The default IA name: the embedded provider. */
    public static final String DEFAULT = "loopback";

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    private CommandLine.Model.CommandSpec spec;

    private String name = DEFAULT;

    /** Sets the IA name; rejects a name no registry entry has. */
    @Option(names = {"-P", "--provider"}, paramLabel = "NAME", defaultValue = DEFAULT,
        description = "IA name from the registry (default: ${DEFAULT-VALUE}); see 'jdat providers'")
    public void setName(final String value)
    {
        final Set<String> known = knownNames();
        if (!known.contains(value))
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "unknown provider '" + value + "' (the registry has: " + String.join(", ", known) + ")");
        }
        this.name = value;
    }

    /** The IA name to open. */
    public String name()
    {
        return name;
    }

    /**
     * Whether the provider connects only inside this JVM (its library is {@code loopback}), so
     * a server and its clients must run in one process.
     */
    public boolean inJvmOnly()
    {
        return inJvmOnly(name);
    }

    /** Whether the IA name is served by the in-JVM {@code loopback} library. */
    public static boolean inJvmOnly(final String iaName)
    {
        for (final StaticRegistryEntry e : Registry.get().staticEntries())
        {
            if (e.info().iaName().equals(iaName))
            {
                return "loopback".equals(e.library());
            }
        }
        return false;
    }

    /** The IA names of the static and the dynamic registry, in registry order. */
    public static Set<String> knownNames()
    {
        final Set<String> names = new LinkedHashSet<>();
        for (final StaticRegistryEntry e : Registry.get().staticEntries())
        {
            names.add(e.info().iaName());
        }
        for (final ProviderInfo p : Registry.get().dynamicEntries())
        {
            names.add(p.iaName());
        }
        return names;
    }
}

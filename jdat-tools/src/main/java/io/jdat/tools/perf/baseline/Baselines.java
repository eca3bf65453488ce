package io.jdat.tools.perf.baseline;

import io.jdat.registry.Registry;
import io.jdat.spi.StaticRegistryEntry;
import java.util.List;

/** The baselines by name, and the one that goes with a provider. */
public final class Baselines
{
    private static final List<Baseline> ALL = List.of(new QueueBaseline(), new TcpBaseline(), new ShmBaseline());

    private Baselines()
    {
    }

    /** The names {@code --baseline} accepts. */
    public static List<String> names()
    {
        return ALL.stream().map(Baseline::name).toList();
    }

    /** The baseline called {@code name}; throws IllegalArgumentException for another name. */
    public static Baseline byName(final String name)
    {
        for (final Baseline b : ALL)
        {
            if (b.name().equals(name))
            {
                return b;
            }
        }
        throw new IllegalArgumentException("unknown baseline '" + name + "' (known: " + String.join(", ", names())
            + ")");
    }

    /**
     * The baseline of a provider, chosen by its library: {@code loopback} → queue, a library
     * named like {@code tcp} → tcp, like {@code shm} → shm.
     */
    public static Baseline forProvider(final String iaName)
    {
        String library = iaName;
        for (final StaticRegistryEntry e : Registry.get().staticEntries())
        {
            if (e.info().iaName().equals(iaName))
            {
                library = e.library();
                break;
            }
        }
        if (library.contains("loopback"))
        {
            return byName("queue");
        }
        if (library.contains("tcp"))
        {
            return byName("tcp");
        }
        if (library.contains("shm"))
        {
            return byName("shm");
        }
        throw new IllegalArgumentException("no baseline is known for provider '" + iaName + "' (library " + library
            + "); name one with --baseline=" + String.join("|", names()));
    }
}

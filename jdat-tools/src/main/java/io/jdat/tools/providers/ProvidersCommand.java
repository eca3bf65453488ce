package io.jdat.tools.providers;

import io.jdat.ProviderInfo;
import io.jdat.registry.Registry;
import io.jdat.spi.DatProviderLibrary;
import io.jdat.spi.StaticRegistryEntry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code jdat providers}: the static registry (what {@code dat_registry_list_providers} lists),
 * the provider libraries found on the class path, the registry file and the lines of it that
 * were skipped.
 */
@Command(name = "providers", mixinStandardHelpOptions = true,
    description = {"Lists the static registry: IA names, API version, thread safety, library and instance data.",
        "It then lists the provider libraries found (under a hardware library, the devices it found), the "
            + "dat.conf file read (-Djdat.conf=FILE or DAT_OVERRIDE) and any lines of it that were skipped."})
public final class ProvidersCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final Registry registry = Registry.get();
        final List<StaticRegistryEntry> entries = registry.staticEntries();
        out.println("Static registry (" + entries.size() + " entries, in lookup order):");
        final String format = "  %-20s %-5s %-14s %-10s %-12s %s%n";
        out.printf(format, "IA name", "API", "thread safety", "library", "version", "instance data");
        for (final StaticRegistryEntry e : entries)
        {
            final ProviderInfo i = e.info();
            out.printf(format, i.iaName(), "u" + i.daplVersionMajor() + "." + i.daplVersionMinor(),
                i.isThreadSafe() ? "threadsafe" : "nonthreadsafe", e.library(), e.providerVersion(),
                e.instanceData().isEmpty() ? "\"\"" : "\"" + e.instanceData() + "\"");
        }
        final List<ProviderInfo> dynamic = registry.dynamicEntries();
        if (!dynamic.isEmpty())
        {
            out.println("Dynamic registry (providers initialised in this process):");
            for (final ProviderInfo i : dynamic)
            {
                out.printf("  %-20s u%d.%d %s%n", i.iaName(), i.daplVersionMajor(), i.daplVersionMinor(),
                    i.isThreadSafe() ? "threadsafe" : "nonthreadsafe");
            }
        }
        out.println("Provider libraries found:");
        if (registry.libraries().isEmpty())
        {
            out.println("  none (no io.jdat.spi.DatProviderLibrary on the class path)");
        }
        for (final DatProviderLibrary lib : registry.libraries().values())
        {
            out.printf("  %-20s %s%n", lib.libraryName(), lib.getClass().getName());
            for (final String line : lib.report())
            {
                out.println("    " + line);
            }
        }
        final Path file = registry.path();
        out.println("Registry file: " + file + (file != null && Files.isRegularFile(file) ? "" : " (not present)"));
        if (registry.problems().isEmpty())
        {
            out.println("Skipped lines: none");
        }
        else
        {
            out.println("Skipped lines:");
            registry.problems().forEach(p -> out.println("  " + p));
        }
        return 0;
    }
}

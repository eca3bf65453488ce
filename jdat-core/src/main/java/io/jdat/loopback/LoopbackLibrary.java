package io.jdat.loopback;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.SoftwareLibrary;
import io.jdat.engine.channel.Transport;
import io.jdat.spi.StaticRegistryEntry;
import java.util.List;

/**
 * The {@code loopback} provider library: connections inside one JVM, with zero configuration.
 * It registers the IA name {@code loopback} in both thread-safety flavours; more names (for
 * example with small limits for tests) can be added in {@code dat.conf} with library
 * {@code loopback} and the limits as instance data.
 */
public final class LoopbackLibrary extends SoftwareLibrary
{
    /** The library name {@code dat.conf} uses. */
    public static final String NAME = "loopback";

    @Override
    public String libraryName()
    {
        return NAME;
    }

    @Override
    public List<StaticRegistryEntry> defaultEntries()
    {
        return List.of(
            StaticRegistryEntry.of(NAME, true, NAME, "jdat.0.1", ""),
            StaticRegistryEntry.of(NAME, false, NAME, "jdat.0.1", ""));
    }

    @Override
    protected Transport createTransport(final String iaName, final EngineConfig config)
    {
        return new LoopbackTransport(iaName, config);
    }
}

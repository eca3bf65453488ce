package io.jdat.loopback;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.SoftwareLibrary;
import io.jdat.engine.channel.Transport;

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

    public LoopbackLibrary()
    {
        super(NAME);
    }

    @Override
    protected Transport createTransport(final String iaName, final EngineConfig config)
    {
        return new LoopbackTransport(iaName, config);
    }
}

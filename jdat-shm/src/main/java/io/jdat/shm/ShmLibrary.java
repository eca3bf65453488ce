package io.jdat.shm;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.SoftwareLibrary;
import io.jdat.engine.channel.Transport;

/**
 * The {@code shm} provider library: connections between processes of one host through shared
 * memory. It registers the IA name {@code shm} in both thread-safety flavours; more names (other
 * addresses, directories or ring sizes) can be added in {@code dat.conf} with library {@code shm}
 * and the options as instance data (see the transport's options in the package overview).
 */
public final class ShmLibrary extends SoftwareLibrary
{
    /** The library name {@code dat.conf} uses. */
    public static final String NAME = "shm";

    public ShmLibrary()
    {
        super(NAME);
    }

    @Override
    protected Transport createTransport(final String iaName, final EngineConfig config)
    {
        return new ShmTransport(iaName, config);
    }

    /**
     * {@code dat_evd_wait}'s spin yields every microsecond: the two threads of an shm ping-pong
     * end up on one core about one round trip in a hundred even on an idle two-core machine, and
     * a spin that never yields then costs the whole spin per message (docs/perf.md, "Fifth step:
     * shm"). {@code jdat.evd.spinYieldNanos} or the entry's {@code evd_spin_yield_ns} change it.
     */
    @Override
    protected String defaultInstanceData()
    {
        return "evd_spin_yield_ns=" + Long.getLong("jdat.evd.spinYieldNanos", 1000L);
    }

    /** EVD polls and the spin phase of EVD waits move the rings on the consumer's thread. */
    @Override
    protected boolean pollsInline()
    {
        return true;
    }
}

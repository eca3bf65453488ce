package io.jdat.loopback;

import io.jdat.IaAddress;
import io.jdat.engine.EngineConfig;
import io.jdat.engine.channel.Transport;
import io.jdat.engine.channel.TransportContext;
import io.jdat.engine.channel.TransportPort;

/**
 * Connections between IA instances of one JVM. The IA address is a name (instance data
 * {@code address=NAME}, default the IA name); every instance of an address shares one space of
 * connection qualifiers, as the instances of a TCP address share its ports.
 * Options (instance data): {@code max_private_data} (default 256), {@code any_qual_range=LO-HI}
 * (qualifiers {@code dat_psp_create_any} picks from, default 49152-65535).
 */
final class LoopbackTransport implements Transport
{
    final IaAddress address;
    final int maxPrivateData;
    final long anyLow;
    final long anyHigh;

    LoopbackTransport(final String iaName, final EngineConfig config)
    {
        final String a = config.get("address");
        this.address = IaAddress.named(a == null || a.isEmpty() ? iaName : a);
        final String pd = config.get("max_private_data");
        this.maxPrivateData = pd == null ? 256 : Integer.parseInt(pd);
        final long[] range = config.range("any_qual_range", 49152, 65535, 0, Long.MAX_VALUE - 1);
        anyLow = range[0];
        anyHigh = range[1];
    }

    @Override
    public String name()
    {
        return LoopbackLibrary.NAME;
    }

    @Override
    public TransportPort open(final TransportContext context)
    {
        return new LoopbackPort(this, LoopbackNetwork.INSTANCE);
    }
}

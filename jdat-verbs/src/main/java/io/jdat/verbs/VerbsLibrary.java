package io.jdat.verbs;

import io.jdat.Dat;
import io.jdat.ProviderInfo;
import io.jdat.spi.DatProviderLibrary;
import io.jdat.spi.StaticRegistryEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code verbs} provider library. Its default entry, IA name {@code verbs}, takes the first
 * RDMA device with an active port and an IPv4 address; a {@code dat.conf} line names another in
 * its instance data, as DAPL's {@code ofa-v2-iwarp ... "ens3 0"}: an interface name, an IPv4
 * address or a device name, then optionally a port number (ignored: rdma_cm picks the port the
 * address routes through).
 */
public final class VerbsLibrary implements DatProviderLibrary
{
    /** The {@code dat.conf} library name. */
    public static final String NAME = "verbs";

    private final Map<ProviderInfo, VerbsProvider> providers = new HashMap<>();

    /** The library as {@code ServiceLoader} creates it. */
    public VerbsLibrary()
    {
    }

    @Override
    public String libraryName()
    {
        return NAME;
    }

    @Override
    public List<StaticRegistryEntry> defaultEntries()
    {
        return List.of(StaticRegistryEntry.of("verbs", true, NAME, "jdat.0.1", ""));
    }

    @Override
    public synchronized void providerInit(final ProviderInfo info, final String instanceData)
    {
        final VerbsProvider provider = new VerbsProvider(info, instanceData);
        Dat.registryAddProvider(provider, info);
        providers.put(info, provider);
    }

    @Override
    public synchronized void providerFini(final ProviderInfo info)
    {
        final VerbsProvider provider = providers.remove(info);
        if (provider != null)
        {
            Dat.registryRemoveProvider(provider, info);
        }
    }

    @Override
    public List<String> report()
    {
        return Devices.describe(Devices.scan());
    }
}

package io.jdat.engine;

import io.jdat.Dat;
import io.jdat.ProviderInfo;
import io.jdat.engine.channel.Transport;
import io.jdat.spi.DatProviderLibrary;
import io.jdat.spi.StaticRegistryEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The provider-library side of a software transport: {@code dat_provider_init} builds a
 * {@link SoftwareProvider} over a new transport configured by the entry's instance data and
 * registers it; {@code dat_provider_fini} removes it.
 */
public abstract class SoftwareLibrary implements DatProviderLibrary
{
    private final String name;
    private final Map<ProviderInfo, SoftwareProvider> providers = new HashMap<>();

    /** A library that {@code dat.conf} names {@code name}, which is also its default IA name. */
    protected SoftwareLibrary(final String name)
    {
        this.name = name;
    }

    @Override
    public String libraryName()
    {
        return name;
    }

    /** The IA named as the library, in both thread-safety flavours, with no instance data. */
    @Override
    public List<StaticRegistryEntry> defaultEntries()
    {
        return List.of(
            StaticRegistryEntry.of(name, true, name, "jdat.0.1", ""),
            StaticRegistryEntry.of(name, false, name, "jdat.0.1", ""));
    }

    /** A transport for one IA name, configured by its instance data. */
    protected abstract Transport createTransport(String iaName, EngineConfig config);

    /** Instance data every IA of this library starts from; an entry's own instance data overrides it. */
    protected String defaultInstanceData()
    {
        return "";
    }

    /** Whether EVD polls and waits should drive this transport inline. */
    protected boolean pollsInline()
    {
        return false;
    }

    @Override
    public synchronized void providerInit(final ProviderInfo info, final String instanceData)
    {
        final EngineConfig config = EngineConfig.parse(
            defaultInstanceData() + " " + (instanceData == null ? "" : instanceData));
        final SoftwareProvider provider = new SoftwareProvider(info, config, createTransport(info.iaName(), config),
            pollsInline());
        Dat.registryAddProvider(provider, info);
        providers.put(info, provider);
    }

    @Override
    public synchronized void providerFini(final ProviderInfo info)
    {
        final SoftwareProvider provider = providers.remove(info);
        if (provider != null)
        {
            Dat.registryRemoveProvider(provider, info);
        }
    }

    /** The provider serving a registry key, if this library initialised it. */
    public synchronized SoftwareProvider provider(final ProviderInfo info)
    {
        return providers.get(info);
    }
}

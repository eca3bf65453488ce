package io.jdat.spi;

import io.jdat.ProviderInfo;
import java.util.List;

/**
 * A provider library, the Java counterpart of the shared object that {@code dat_ia_open} loads for
 * an IA name: found with {@link java.util.ServiceLoader}, named in the library field of
 * {@code dat.conf} lines, and initialised by the registry before the first open of a name it
 * serves.
 */
public interface DatProviderLibrary
{
    /** The name {@code dat.conf}'s library field uses for this library, for example {@code tcp}. */
    String libraryName();

    /**
     * The static registry entries this library contributes by being on the class or module
     * path (for example {@code loopback}, in both thread-safety flavours).
     */
    List<StaticRegistryEntry> defaultEntries();

    /**
     * {@code dat_provider_init}: must register exactly {@code info.iaName()} with
     * {@link io.jdat.Dat#registryAddProvider}, and leave no registration behind if it fails.
     *
     * @param instanceData the entry's instance data field (for example the address to bind)
     */
    void providerInit(ProviderInfo info, String instanceData);

    /** {@code dat_provider_fini}: should call {@link io.jdat.Dat#registryRemoveProvider}. */
    void providerFini(ProviderInfo info);

    /**
     * What this library found on this machine, one line each, for {@code jdat providers}: a
     * hardware library lists its devices, or says plainly why there are none. Software libraries
     * have nothing to say (the default).
     */
    default List<String> report()
    {
        return List.of();
    }
}

package io.jdat;

/**
 * {@code DAT_PROVIDER_INFO}: the registry key of an IA name, as {@code dat_registry_list_providers}
 * lists it and {@code dat_registry_add_provider} takes it.
 *
 * @param iaName           the name given to {@code dat_ia_open}; fewer than {@link Dat#NAME_MAX_LENGTH} characters
 * @param daplVersionMajor the DAT API major version (1)
 * @param daplVersionMinor the DAT API minor version (2)
 * @param isThreadSafe     whether the entry serves thread-safe consumers
 */
public record ProviderInfo(String iaName, int daplVersionMajor, int daplVersionMinor, boolean isThreadSafe)
{
    /** A uDAPL 1.2 key for an IA name. */
    public static ProviderInfo of(final String iaName, final boolean isThreadSafe)
    {
        return new ProviderInfo(iaName, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, isThreadSafe);
    }
}

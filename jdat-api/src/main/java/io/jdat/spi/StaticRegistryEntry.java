package io.jdat.spi;

import io.jdat.ProviderInfo;

/**
 * One line of the static registry, in {@code dat.conf} order:
 * {@code <ia name> <api version> <thread safety> <default section> <library> <provider version>
 * <instance data> <platform information>}.
 *
 * @param info            IA name, API major/minor and thread safety: the registry key
 * @param isDefault       whether the line is in the {@code default} section (only those are used)
 * @param library         the {@link DatProviderLibrary#libraryName()} that serves it
 * @param providerVersion {@code <id>.<major>.<minor>} of the provider implementation
 * @param instanceData    passed to {@link DatProviderLibrary#providerInit}
 * @param platformInfo    opaque; not used
 */
public record StaticRegistryEntry(ProviderInfo info, boolean isDefault, String library, String providerVersion,
    String instanceData, String platformInfo)
{
    /** A {@code default}-section uDAPL 1.2 entry. */
    public static StaticRegistryEntry of(final String iaName, final boolean threadSafe, final String library,
        final String providerVersion, final String instanceData)
    {
        return new StaticRegistryEntry(ProviderInfo.of(iaName, threadSafe), true, library, providerVersion,
            instanceData, "");
    }

    /** The line as {@code dat.conf} would hold it. */
    public String toConfLine()
    {
        return info.iaName() + " u" + info.daplVersionMajor() + "." + info.daplVersionMinor() + " "
            + (info.isThreadSafe() ? "threadsafe" : "nonthreadsafe") + " "
            + (isDefault ? "default" : "nondefault") + " " + library + " " + providerVersion + " "
            + quote(instanceData) + " " + quote(platformInfo);
    }

    private static String quote(final String s)
    {
        return "\"" + (s == null ? "" : s.replace("\\", "\\\\").replace("\"", "\\\"")) + "\"";
    }
}

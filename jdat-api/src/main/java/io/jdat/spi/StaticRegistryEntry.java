package io.jdat.spi;

import io.jdat.ProviderInfo;

/**
 * One line of the static registry, where {@code dat_ia_open} looks IA names up, in {@code dat.conf}
 * order: {@code <ia name> <api version> <thread safety> <default section> <library>
 * <provider version> <instance data> <platform information>}.
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

    /** The line as {@code dat.conf} would hold it; {@code DatConf.parse} reads it back as this entry. */
    public String toConfLine()
    {
        return field(info.iaName()) + " u" + info.daplVersionMajor() + "." + info.daplVersionMinor() + " "
            + (info.isThreadSafe() ? "threadsafe" : "nonthreadsafe") + " "
            + (isDefault ? "default" : "nondefault") + " " + field(library) + " " + field(providerVersion) + " "
            + quote(instanceData) + " " + quote(platformInfo);
    }

    /**
     * A field as it is when it can stand unquoted, else quoted (when empty, or holding blanks, quotes, '#' or a
     * backslash).
     */
    private static String field(final String s)
    {
        if (s == null || s.isEmpty())
        {
            return quote(s);
        }
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (Character.isWhitespace(c) || c == '"' || c == '#' || c == '\\')
            {
                return quote(s);
            }
        }
        return s;
    }

    private static String quote(final String s)
    {
        return "\"" + (s == null ? "" : s.replace("\\", "\\\\").replace("\"", "\\\"")) + "\"";
    }
}

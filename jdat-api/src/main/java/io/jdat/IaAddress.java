package io.jdat;

import java.net.InetAddress;
import java.util.Objects;

/**
 * {@code DAT_IA_ADDRESS_PTR}: the address of an interface adapter, what {@code dat_ep_connect}
 * connects to and {@code dat_ia_query} reports. The {@code tcp} provider uses IP addresses;
 * {@code loopback} and {@code shm} use host-local names.
 */
public final class IaAddress
{
    private final InetAddress inet;
    private final String name;

    private IaAddress(final InetAddress inet, final String name)
    {
        this.inet = inet;
        this.name = name;
    }

    /** An IP address (IPv4 or IPv6). */
    public static IaAddress of(final InetAddress inet)
    {
        return new IaAddress(Objects.requireNonNull(inet, "inet"), null);
    }

    /** A host-local name, as the {@code loopback} and {@code shm} providers use. */
    public static IaAddress named(final String name)
    {
        if (name == null || name.isEmpty())
        {
            throw new IllegalArgumentException("empty IA address name");
        }
        return new IaAddress(null, name);
    }

    /**
     * An IP literal becomes an IP address (no name lookup happens); anything else a name.
     */
    public static IaAddress parse(final String text)
    {
        if (text == null || text.isEmpty())
        {
            throw new IllegalArgumentException("empty IA address");
        }
        final InetAddress literal = ipLiteral(text);
        return literal != null ? of(literal) : named(text);
    }

    /** The IP address, or {@code null} if this is a name. */
    public InetAddress inet()
    {
        return inet;
    }

    /** The name, or {@code null} if this is an IP address. */
    public String name()
    {
        return name;
    }

    public boolean isInet()
    {
        return inet != null;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof IaAddress a && Objects.equals(inet, a.inet) && Objects.equals(name, a.name);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(inet, name);
    }

    @Override
    public String toString()
    {
        return inet != null ? inet.getHostAddress() : name;
    }

    private static InetAddress ipLiteral(final String text)
    {
        final String t = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        final boolean v4 = t.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        final boolean v6 = t.indexOf(':') >= 0 && t.matches("[0-9A-Fa-f:.%a-zA-Z]+");
        if (!v4 && !v6)
        {
            return null;
        }
        try
        {
            // a literal is parsed without any name lookup
            return InetAddress.getByName(t);
        }
        catch (final java.net.UnknownHostException e)
        {
            return null;
        }
    }
}

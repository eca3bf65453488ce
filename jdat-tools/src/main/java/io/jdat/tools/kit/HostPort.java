package io.jdat.tools.kit;

import io.jdat.IaAddress;

/**
 * A server as {@code ADDRESS:PORT}: the IA address and the connection qualifier
 * ({@code 10.0.0.5:45278}, {@code [::1]:45278}, {@code loopback:45278}). The port may be left
 * out where a default exists.
 *
 * @param address the IA address
 * @param port    the connection qualifier
 */
public record HostPort(IaAddress address, long port)
{
    /** Parses {@code A:N}, {@code A} (with {@code defaultPort}) or {@code :N} (with {@code defaultAddress}). */
    public static HostPort parse(final String text, final String defaultAddress, final long defaultPort)
    {
        final String t = text.strip();
        final int colon = t.lastIndexOf(':');
        final boolean bareIpv6 = t.indexOf(':') != colon && !t.startsWith("[");
        if (colon < 0 || bareIpv6)
        {
            return new HostPort(IaAddress.parse(t), defaultPort);
        }
        final String host = t.substring(0, colon);
        final String port = t.substring(colon + 1);
        final long p;
        try
        {
            p = Long.parseLong(port);
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("'" + port + "' is not a port (connection qualifier) in '" + text + "'");
        }
        if (p < 0)
        {
            throw new IllegalArgumentException("negative port in '" + text + "'");
        }
        return new HostPort(IaAddress.parse(host.isEmpty() ? defaultAddress : host), p);
    }

    @Override
    public String toString()
    {
        final String a = address.toString();
        return (a.indexOf(':') >= 0 ? "[" + a + "]" : a) + ":" + port;
    }
}

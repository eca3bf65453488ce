package io.jdat.tools.dtest;

import io.jdat.tools.kit.CheckFailed;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;

/**
 * dtest's out-of-band message: the 128 bytes a dtest server writes, in one write, to the first
 * client of its TCP port 15828 before it creates its PSP. The text is
 * {@code "%04hx:%08x:%08x:%08x:%s"}: IB LID, QPN and scope id (all zero except on DAPL's ucm
 * provider), the server's IPv4 address as C prints {@code s_addr} on a little-endian host (so
 * 10.0.2.15 is {@code 0f02000a}), and the server's IA name; NUL, then padding to 128 bytes.
 *
 * @param lid      IB LID (0 on iWARP and TCP)
 * @param qpn      IB QP number (0 on iWARP and TCP)
 * @param scopeId  IPv6 scope id (0 on iWARP and TCP)
 * @param address  the IPv4 address the client is to connect to, or null (none given: all zero)
 * @param provider the server's IA name
 */
record OobMessage(int lid, int qpn, int scopeId, Inet4Address address, String provider)
{
    /** dtest's {@code CONN_MSG_SIZE}. */
    static final int SIZE = 128;

    private static final java.util.regex.Pattern FORMAT =
        java.util.regex.Pattern.compile("([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,8}):"
            + "([\\x21-\\x7e]{1,63})");

    /** The message a server on {@code address} (null: none) with IA {@code provider} writes. */
    static OobMessage of(final Inet4Address address, final String provider)
    {
        return new OobMessage(0, 0, 0, address, provider);
    }

    /** The 128 bytes on the wire: the text, a NUL, zeros. */
    byte[] encode()
    {
        final String text = String.format("%04x:%08x:%08x:%08x:%s", lid & 0xffff, qpn, scopeId, sinAddr(), provider);
        final byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        if (t.length >= SIZE)
        {
            throw new IllegalArgumentException("provider name too long for dtest's 128-byte message: " + provider);
        }
        return Arrays.copyOf(t, SIZE);
    }

    /** {@code s_addr} printed as a u32 on a little-endian host: the address's bytes reversed. */
    private int sinAddr()
    {
        if (address == null)
        {
            return 0;
        }
        final byte[] b = address.getAddress();
        return (b[0] & 0xff) | (b[1] & 0xff) << 8 | (b[2] & 0xff) << 16 | (b[3] & 0xff) << 24;
    }

    /**
     * Parses what a server sent: {@code length} bytes of {@code bytes}. A message shorter than
     * 128 bytes or text not in dtest's format fails with a {@link CheckFailed} naming what was
     * wrong. An address of 0 (a server on a host-local IA) gives a null address.
     */
    static OobMessage parse(final byte[] bytes, final int length)
    {
        if (length != SIZE)
        {
            throw new CheckFailed("the server's out-of-band message is " + length + " bytes, dtest's is " + SIZE);
        }
        int end = 0;
        while (end < SIZE && bytes[end] != 0)
        {
            end++;
        }
        final String text = new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
        final Matcher m = FORMAT.matcher(text);
        if (!m.matches())
        {
            throw new CheckFailed("the server's out-of-band message is not dtest's "
                + "\"lid:qpn:scope:address:provider\": '" + printable(text) + "'");
        }
        final int lid = Integer.parseInt(m.group(1), 16);
        final int qpn = Integer.parseUnsignedInt(m.group(2), 16);
        final int scope = Integer.parseUnsignedInt(m.group(3), 16);
        final int sin = Integer.parseUnsignedInt(m.group(4), 16);
        Inet4Address address = null;
        if (sin != 0)
        {
            try
            {
                address = (Inet4Address) InetAddress.getByAddress(new byte[] {(byte) sin, (byte) (sin >>> 8),
                    (byte) (sin >>> 16), (byte) (sin >>> 24)});
            }
            catch (final UnknownHostException e)
            {
                throw new IllegalStateException(e); // four bytes are always an address
            }
        }
        return new OobMessage(lid, qpn, scope, address, m.group(5));
    }

    private static String printable(final String s)
    {
        final StringBuilder b = new StringBuilder();
        for (final char c : s.toCharArray())
        {
            b.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\x%02x", (int) c));
        }
        return b.length() > 80 ? b.substring(0, 80) + "..." : b.toString();
    }
}

package io.jdat.tcp.channel;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How many bytes the kernel still holds for each of some TCP connections of this process: sent
 * or queued, not yet acknowledged by the peer ({@code tx_queue}, that is {@code write_seq - snd_una},
 * in Linux's {@code /proc/self/net/tcp} and {@code tcp6}). The JDK gives no access to a socket's
 * descriptor, hence no {@code TCP_USER_TIMEOUT} and no {@code TCP_INFO}; this table is how a
 * connection whose data the peer stopped acknowledging is told from one whose peer merely has
 * nothing to say. Elsewhere than Linux the table is empty and nothing is known.
 */
final class KernelQueues
{
    private static final Path[] TABLES = {Path.of("/proc/self/net/tcp"), Path.of("/proc/self/net/tcp6")};

    private KernelQueues()
    {
    }

    /**
     * The keys under which the connection from {@code local} to {@code remote} can appear in the
     * tables: its addresses as the kernel prints them (an IPv4 connection of a dual-stack socket
     * appears in {@code tcp6} with IPv4-mapped addresses). Empty if unknown.
     */
    static String[] keys(final InetSocketAddress local, final InetSocketAddress remote)
    {
        if (local == null || remote == null || local.getAddress() == null || remote.getAddress() == null)
        {
            return new String[0];
        }
        final String native4 = hex(v4(local.getAddress()), local.getPort()) + " " + hex(v4(remote.getAddress()),
            remote.getPort());
        final String mapped = hex(v6(local.getAddress()), local.getPort()) + " " + hex(v6(remote.getAddress()),
            remote.getPort());
        return local.getAddress() instanceof Inet4Address && remote.getAddress() instanceof Inet4Address
            ? new String[] {native4, mapped} : new String[] {mapped};
    }

    /**
     * The unacknowledged bytes of every connection whose key is in {@code wanted}; connections not found are absent.
     */
    static Map<String, Long> read(final Set<String> wanted)
    {
        final Map<String, Long> queued = new HashMap<>();
        for (final Path table : TABLES)
        {
            try (BufferedReader in = Files.newBufferedReader(table, StandardCharsets.US_ASCII))
            {
                in.readLine();
                for (String line = in.readLine(); line != null; line = in.readLine())
                {
                    // "sl local_address rem_address st tx_queue:rx_queue ..."
                    final String[] f = line.trim().split("\\s+", 6);
                    if (f.length < 5)
                    {
                        continue;
                    }
                    final String key = f[1] + " " + f[2];
                    if (wanted.contains(key))
                    {
                        final int colon = f[4].indexOf(':');
                        queued.put(key, Long.parseLong(colon < 0 ? f[4] : f[4].substring(0, colon), 16));
                    }
                }
            }
            catch (final IOException | RuntimeException e)
            {
                // no such table here: nothing is known
            }
        }
        return queued;
    }

    private static byte[] v4(final InetAddress a)
    {
        final byte[] b = a.getAddress();
        return b.length == 4 ? b : java.util.Arrays.copyOfRange(b, 12, 16);
    }

    private static byte[] v6(final InetAddress a)
    {
        final byte[] b = a.getAddress();
        if (b.length == 16)
        {
            return b;
        }
        final byte[] m = new byte[16];
        m[10] = (byte) 0xFF;
        m[11] = (byte) 0xFF;
        System.arraycopy(b, 0, m, 12, 4);
        return m;
    }

    /** Address words in the kernel's byte order, each as 8 hex digits, then ":" and the port as 4. */
    private static String hex(final byte[] address, final int port)
    {
        final ByteBuffer b = ByteBuffer.wrap(address).order(ByteOrder.nativeOrder());
        final StringBuilder s = new StringBuilder(address.length * 2 + 5);
        while (b.hasRemaining())
        {
            s.append(String.format(Locale.ROOT, "%08X", b.getInt()));
        }
        return s.append(String.format(Locale.ROOT, ":%04X", port)).toString();
    }
}

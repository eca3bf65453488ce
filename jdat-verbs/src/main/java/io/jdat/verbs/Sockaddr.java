package io.jdat.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * {@code struct sockaddr_in} (16 bytes): 0 sin_family (AF_INET = 2, host order), 2 sin_port
 * (network order), 4 sin_addr (network order), 8 zero. rdma_cm takes and returns addresses in it.
 */
final class Sockaddr
{
    private static final short AF_INET = 2;
    private static final ValueLayout.OfShort PORT =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private Sockaddr()
    {
    }

    /** A new sockaddr_in for an IPv4 address and port. */
    static MemorySegment of(final Arena arena, final InetAddress address, final int port)
    {
        if (!(address instanceof Inet4Address))
        {
            throw new IllegalArgumentException("not an IPv4 address: " + address);
        }
        final MemorySegment s = arena.allocate(RdmaCm.SOCKADDR_IN_SIZE, 8);
        s.set(ValueLayout.JAVA_SHORT, 0, AF_INET);
        s.set(PORT, 2, (short) port);
        MemorySegment.copy(address.getAddress(), 0, s, ValueLayout.JAVA_BYTE, 4, 4);
        return s;
    }

    /** The port of a sockaddr_in. */
    static int port(final MemorySegment s)
    {
        return Short.toUnsignedInt(s.get(PORT, 2));
    }

    /** The IPv4 address of a sockaddr_in, or null when it is another family. */
    static InetAddress address(final MemorySegment s)
    {
        if (s.get(ValueLayout.JAVA_SHORT, 0) != AF_INET)
        {
            return null;
        }
        final byte[] b = new byte[4];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 4, b, 0, 4);
        try
        {
            return InetAddress.getByAddress(b);
        }
        catch (final UnknownHostException e)
        {
            return null;
        }
    }
}

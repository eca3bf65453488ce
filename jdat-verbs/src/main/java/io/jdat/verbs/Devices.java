package io.jdat.verbs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What RDMA hardware this machine has: the devices libibverbs lists, their ports' state (from
 * sysfs), and which local IPv4 addresses rdma_cm maps to which device (an address belongs to a
 * device when {@code rdma_bind_addr} to it attaches the device, as DAPL's cma provider finds its
 * device from an interface name).
 */
final class Devices
{
    /** One local IPv4 address that rdma_cm binds to a device. */
    record Binding(String netdev, InetAddress address)
    {
    }

    /** One RDMA device. */
    record Device(String name, String nodeType, List<String> ports, List<Binding> bindings)
    {
        /** Whether a port of the device is ACTIVE. */
        boolean active()
        {
            return ports.stream().anyMatch(p -> p.contains("ACTIVE"));
        }
    }

    /** The devices found, or the reason there are none (libraries missing, none listed). */
    record Inventory(List<Device> devices, String problem)
    {
    }

    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    private Devices()
    {
    }

    /** Why the libraries cannot be used, or null when both loaded. */
    static String librariesMissing()
    {
        if (Ibv.LIB == null)
        {
            return Ibv.WHY + " (install rdma-core's libibverbs1)";
        }
        if (RdmaCm.LIB == null)
        {
            return RdmaCm.WHY + " (install rdma-core's librdmacm1)";
        }
        return null;
    }

    /** Lists the devices now. */
    static Inventory scan()
    {
        final String missing = librariesMissing();
        if (missing != null)
        {
            return new Inventory(List.of(), missing);
        }
        final List<String> names = new ArrayList<>();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment num = arena.allocate(Native.INT);
            final MemorySegment list = Ibv.getDeviceList(num);
            if (list.equals(MemorySegment.NULL))
            {
                final int errno = Native.errno();
                return new Inventory(List.of(), "no RDMA device found (ibv_get_device_list: " + Native.describe(errno)
                    + (errno == 38 ? ", the kernel has no RDMA (uverbs) support loaded" : "") + ")");
            }
            final int n = num.get(Native.INT, 0);
            final MemorySegment devices = list.reinterpret(8L * (n + 1));
            for (int i = 0; i < n; i++)
            {
                names.add(Ibv.deviceName(devices.getAtIndex(Native.PTR, i)));
            }
            Ibv.freeDeviceList(list);
        }
        if (names.isEmpty())
        {
            return new Inventory(List.of(), "no RDMA device found (ibv_get_device_list lists none; "
                + "InfiniBand, RoCE or iWARP hardware, or a software device such as siw or rxe, is needed)");
        }
        final List<Binding> all = bindings();
        final List<Device> devices = new ArrayList<>();
        for (final String name : names)
        {
            final List<Binding> mine = new ArrayList<>();
            for (final Binding b : all)
            {
                if (name.equals(deviceOf(b.address())))
                {
                    mine.add(b);
                }
            }
            devices.add(new Device(name, sysfs(SYSFS.resolve(name).resolve("node_type")), ports(name),
                List.copyOf(mine)));
        }
        return new Inventory(List.copyOf(devices), null);
    }

    private static List<String> ports(final String device)
    {
        final List<String> ports = new ArrayList<>();
        final Path dir = SYSFS.resolve(device).resolve("ports");
        try (var s = Files.list(dir))
        {
            s.sorted().forEach(p -> ports.add("port " + p.getFileName() + " " + sysfs(p.resolve("state")) + " "
                + sysfs(p.resolve("link_layer"))));
        }
        catch (final IOException e)
        {
            ports.add("ports unknown (" + dir + ": " + e.getMessage() + ")");
        }
        return ports;
    }

    private static String sysfs(final Path p)
    {
        try
        {
            final String s = Files.readString(p).trim();
            // "4: ACTIVE", "4: RNIC": the name after the number
            final int colon = s.indexOf(": ");
            return colon >= 0 ? s.substring(colon + 2) : s;
        }
        catch (final IOException | RuntimeException e)
        {
            return "?";
        }
    }

    /** Every up, non-loopback interface's IPv4 addresses. */
    private static List<Binding> bindings()
    {
        final List<Binding> out = new ArrayList<>();
        try
        {
            for (final NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces()))
            {
                if (!nif.isUp() || nif.isLoopback())
                {
                    continue;
                }
                for (final InetAddress a : Collections.list(nif.getInetAddresses()))
                {
                    if (a instanceof Inet4Address)
                    {
                        out.add(new Binding(nif.getName(), a));
                    }
                }
            }
        }
        catch (final SocketException e)
        {
            // no interfaces to map: devices are listed without addresses
        }
        return out;
    }

    /** The device rdma_cm attaches when an id binds to {@code address}, or null. */
    static String deviceOf(final InetAddress address)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment idOut = arena.allocate(Native.PTR);
            if (RdmaCm.createId(MemorySegment.NULL, idOut, 0) != 0)
            {
                return null;
            }
            final MemorySegment id = idOut.get(Native.PTR, 0).reinterpret(RdmaCm.ID_SIZE);
            try
            {
                if (RdmaCm.bindAddr(id, Sockaddr.of(arena, address, 0)) != 0)
                {
                    return null;
                }
                final MemorySegment context = id.get(Native.PTR, RdmaCm.ID_VERBS);
                if (context.equals(MemorySegment.NULL))
                {
                    return null;
                }
                return Ibv.deviceName(context.reinterpret(16).get(Native.PTR, 0));
            }
            finally
            {
                RdmaCm.destroyId(id);
            }
        }
    }

    /** One line per device for {@code jdat providers}, or the one line that says there is none. */
    static List<String> describe(final Inventory inv)
    {
        if (inv.problem() != null)
        {
            return List.of(inv.problem());
        }
        final List<String> lines = new ArrayList<>();
        for (final Device d : inv.devices())
        {
            final StringBuilder sb = new StringBuilder(d.name()).append(": ").append(d.nodeType());
            for (final String p : d.ports())
            {
                sb.append(", ").append(p);
            }
            if (d.bindings().isEmpty())
            {
                sb.append(", no IPv4 address maps to it");
            }
            for (final Binding b : d.bindings())
            {
                sb.append(", ").append(b.netdev()).append(' ').append(b.address().getHostAddress());
            }
            lines.add(sb.toString());
        }
        return lines;
    }
}

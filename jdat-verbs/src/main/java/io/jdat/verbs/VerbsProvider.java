package io.jdat.verbs;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.InterfaceAdapter;
import io.jdat.ProviderInfo;
import io.jdat.spi.DatProvider;
import io.jdat.spi.IaOpenRequest;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/**
 * The provider of one registered IA name. Its instance data says which device: empty for the
 * first device with an active port and an IPv4 address, else an interface name, an IPv4 address
 * or a device name, optionally followed by a port number (DAPL's {@code "ens3 0"}).
 */
final class VerbsProvider implements DatProvider
{
    private final ProviderInfo info;
    private final String instanceData;

    VerbsProvider(final ProviderInfo info, final String instanceData)
    {
        this.info = info;
        this.instanceData = instanceData == null ? "" : instanceData.trim();
    }

    @Override
    public String deviceName()
    {
        return "jdat-verbs:" + info.iaName() + (instanceData.isEmpty() ? "" : " (" + instanceData + ")");
    }

    @Override
    public InterfaceAdapter iaOpen(final IaOpenRequest request)
    {
        final String missing = Devices.librariesMissing();
        if (missing != null)
        {
            throw unavailable(missing);
        }
        return new VerbsIa(request, address());
    }

    /** The IPv4 address the IA binds to, as the instance data names it. */
    InetAddress address()
    {
        final String first = instanceData.isEmpty() ? "" : instanceData.split("\\s+")[0];
        final Devices.Inventory inv = Devices.scan();
        if (inv.problem() != null)
        {
            throw unavailable(inv.problem());
        }
        if (first.isEmpty())
        {
            for (final Devices.Device d : inv.devices())
            {
                if (d.active() && !d.bindings().isEmpty())
                {
                    return d.bindings().getFirst().address();
                }
            }
            throw unavailable("no RDMA device has an active port and an IPv4 address: "
                + String.join("; ", Devices.describe(inv)));
        }
        for (final Devices.Device d : inv.devices())
        {
            if (d.name().equals(first))
            {
                if (d.bindings().isEmpty())
                {
                    throw unavailable("device " + first + " has no IPv4 address");
                }
                return d.bindings().getFirst().address();
            }
        }
        try
        {
            final NetworkInterface nif = NetworkInterface.getByName(first);
            if (nif != null)
            {
                for (final InetAddress a : Collections.list(nif.getInetAddresses()))
                {
                    if (a instanceof Inet4Address)
                    {
                        return a;
                    }
                }
                throw unavailable("interface " + first + " has no IPv4 address");
            }
        }
        catch (final SocketException e)
        {
            throw unavailable("interface " + first + ": " + e.getMessage());
        }
        if (first.matches("[0-9.]+"))
        {
            try
            {
                return InetAddress.getByName(first);
            }
            catch (final java.net.UnknownHostException e)
            {
                throw unavailable("not an IPv4 address: " + first);
            }
        }
        throw unavailable("instance data \"" + instanceData + "\" names no RDMA device, interface or IPv4 address");
    }

    private DatException unavailable(final String why)
    {
        return new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
            "dat_ia_open(\"" + info.iaName() + "\"): " + why);
    }
}

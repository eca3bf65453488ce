package io.jdat.engine;

import io.jdat.DatReturnSubtype;
import io.jdat.InterfaceAdapter;
import io.jdat.NamedAttr;
import io.jdat.ProviderInfo;
import io.jdat.engine.channel.Transport;
import io.jdat.engine.channel.TransportPort;
import io.jdat.spi.DatProvider;
import io.jdat.spi.IaOpenRequest;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The engine as a DAT provider for one registered IA name, over one transport. Every software
 * transport ({@code loopback}, {@code shm}, {@code tcp}) is served by this class; only the
 * transport differs.
 */
public final class SoftwareProvider implements DatProvider
{
    final ProviderInfo info;
    final EngineConfig config;
    final Transport transport;
    final boolean threadSafe;
    final boolean pollsInline;
    private final Set<IaImpl> open = new LinkedHashSet<>();

    /**
     * @param info        the registry key this provider serves
     * @param config      limits and options, from the entry's instance data
     * @param transport   what carries connections
     * @param pollsInline whether EVD dequeues and waits drive the transport on the caller's thread
     */
    public SoftwareProvider(final ProviderInfo info, final EngineConfig config, final Transport transport,
        final boolean pollsInline)
    {
        this.info = info;
        this.config = config;
        this.transport = transport;
        this.threadSafe = info.isThreadSafe();
        this.pollsInline = pollsInline;
    }

    @Override
    public String deviceName()
    {
        return "jdat-" + transport.name() + ":" + info.iaName();
    }

    @Override
    public InterfaceAdapter iaOpen(final IaOpenRequest request)
    {
        synchronized (open)
        {
            if (open.size() >= config.maxIas)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_DEVICE,
                    open.size() + " instances of " + info.iaName() + " are open (max_ias)");
            }
        }
        final IaImpl ia = new IaImpl(this, request.iaName(), request.asyncEvdMinQlen(), request.asyncEvd(),
            request.onClose());
        synchronized (open)
        {
            open.add(ia);
        }
        return ia;
    }

    void closed(final IaImpl ia)
    {
        synchronized (open)
        {
            open.remove(ia);
        }
    }

    /** The instances of this IA name that are open. */
    public int openInstances()
    {
        synchronized (open)
        {
            return open.size();
        }
    }

    /** Threads started for IA instances of this provider that are still alive (for leak checks). */
    public List<Thread> liveThreads()
    {
        final List<Thread> all = new ArrayList<>();
        synchronized (open)
        {
            for (final IaImpl ia : open)
            {
                all.addAll(ia.liveThreads());
            }
        }
        return all;
    }

    List<NamedAttr> transportAttributes(final TransportPort port)
    {
        return port.attributes();
    }

    List<NamedAttr> providerAttributes()
    {
        final List<NamedAttr> attrs = new ArrayList<>();
        attrs.add(new NamedAttr("jdat.transport", transport.name()));
        config.values().forEach((k, v) -> attrs.add(new NamedAttr("jdat.config." + k, v)));
        return attrs;
    }

    void checkSharedMemory(final MemorySegment memory, final byte[] cookie)
    {
        transport.checkSharedMemory(memory, cookie);
    }
}

package io.jdat.loopback;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.IaAddress;
import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;
import io.jdat.engine.channel.PendingConnect;
import io.jdat.engine.channel.TransportPort;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** One IA instance on a loopback address. It starts no thread: work happens on the callers' threads. */
final class LoopbackPort implements TransportPort
{
    private final LoopbackTransport transport;
    private final LoopbackNetwork network;
    private final Set<LoopbackListener> listeners = new LinkedHashSet<>();
    private final Set<LoopbackLink> links = new LinkedHashSet<>();
    private final Set<LoopbackAttempt> attempts = new LinkedHashSet<>();
    private boolean closed;

    LoopbackPort(final LoopbackTransport transport, final LoopbackNetwork network)
    {
        this.transport = transport;
        this.network = network;
        network.portOpened(transport.address.name());
    }

    @Override
    public IaAddress address()
    {
        return transport.address;
    }

    @Override
    public int maxPrivateDataSize()
    {
        return transport.maxPrivateData;
    }

    @Override
    public void checkAddress(final IaAddress remote)
    {
        if (remote.isInet())
        {
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                "the loopback provider connects to IA names, not to IP addresses (" + remote + ")");
        }
    }

    @Override
    public Listener listen(final long connQual, final ListenHandler handler)
    {
        final LoopbackListener l = new LoopbackListener(this, handler);
        synchronized (this)
        {
            checkOpen();
            if (!network.bind(transport.address.name(), connQual, l))
            {
                throw new DatException(DatReturnType.CONN_QUAL_IN_USE,
                    "connection qualifier " + connQual + " is in use on " + transport.address);
            }
            l.bound(connQual);
            listeners.add(l);
        }
        return l;
    }

    @Override
    public Listener listenAny(final ListenHandler handler)
    {
        final LoopbackListener l = new LoopbackListener(this, handler);
        synchronized (this)
        {
            checkOpen();
            final long q = network.bindAny(transport.address.name(), transport.anyLow, transport.anyHigh, l);
            if (q < 0)
            {
                throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE, "every qualifier of "
                    + transport.anyLow + ".." + transport.anyHigh + " is in use on " + transport.address);
            }
            l.bound(q);
            listeners.add(l);
        }
        return l;
    }

    synchronized void removeListener(final LoopbackListener l)
    {
        listeners.remove(l);
        network.unbind(transport.address.name(), l.connQual(), l);
    }

    @Override
    public PendingConnect connect(final ConnectRequest request, final ConnectHandler handler)
    {
        final LoopbackAttempt attempt;
        synchronized (this)
        {
            checkOpen();
            attempt = new LoopbackAttempt(this, request, handler, network.nextLocalPort());
            attempts.add(attempt);
        }
        final String remote = request.remoteAddress().name();
        if (!network.reachable(remote))
        {
            attempt.fail(false);
            return attempt;
        }
        final LoopbackListener l = network.lookup(remote, request.remoteConnQual());
        if (l == null)
        {
            attempt.fail(true);
            return attempt;
        }
        attempt.target(request.remoteConnQual(), l.port);
        if (!l.handler.onRequest(attempt))
        {
            attempt.reject(false);
        }
        return attempt;
    }

    @Override
    public boolean handoff(final IncomingRequest request, final long connQual)
    {
        final LoopbackListener l = network.lookup(transport.address.name(), connQual);
        if (l == null || !(request instanceof LoopbackAttempt attempt))
        {
            return false;
        }
        attempt.target(connQual, l.port);
        if (!l.handler.onRequest(attempt))
        {
            attempt.reject(false);
        }
        return true;
    }

    void attemptDone(final LoopbackAttempt a)
    {
        synchronized (this)
        {
            attempts.remove(a);
        }
    }

    /** Registers an established link of this port; false if the port closed meanwhile. */
    synchronized boolean addLink(final LoopbackLink link)
    {
        if (closed)
        {
            return false;
        }
        links.add(link);
        return true;
    }

    synchronized void removeLink(final LoopbackLink link)
    {
        links.remove(link);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new DatException(DatReturnType.INVALID_STATE, "the IA instance is closing");
        }
    }

    @Override
    public void close()
    {
        final List<LoopbackListener> ls;
        final List<LoopbackLink> lk;
        final List<LoopbackAttempt> at;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            ls = new ArrayList<>(listeners);
            lk = new ArrayList<>(links);
            at = new ArrayList<>(attempts);
        }
        for (final LoopbackListener l : ls)
        {
            l.close();
        }
        for (final LoopbackAttempt a : at)
        {
            a.cancel();
        }
        for (final LoopbackLink l : lk)
        {
            l.abortFrom(this);
        }
        network.portClosed(transport.address.name());
    }

    @Override
    public String toString()
    {
        return "loopback:" + transport.address;
    }
}

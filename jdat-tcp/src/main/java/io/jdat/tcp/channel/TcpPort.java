package io.jdat.tcp.channel;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.IaAddress;
import io.jdat.NamedAttr;
import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;
import io.jdat.engine.channel.PendingConnect;
import io.jdat.engine.channel.TransportContext;
import io.jdat.engine.channel.ThreadedPort;
import io.jdat.spi.DatArg;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.FpduWrite;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * One IA instance on a {@code tcp} address: its listening sockets, connection attempts, requests
 * and channels, driven by one NIO selector on one thread, {@code jdat-tcp-IA-N-io}. Other threads
 * hand work to that thread as tasks ({@link #execute}) or, for a channel with new messages, by
 * queueing the channel ({@link #schedule}); either wakes the selector.
 *
 * <p>All progress — reading, decoding, placing, encoding, writing, every engine callback — runs
 * under the port's {@link #progress} lock, so callbacks of one connection are never concurrent.
 * The I/O thread takes it only while it works, never while it blocks in {@code select}. A thread
 * that finds the lock free may make progress itself instead of waking the I/O thread: a poster
 * writes its message at once ({@link TcpChannel#flush}), and a consumer polling an EVD
 * ({@link #poll}, see {@link InlineProgress}) reads the connections that have bytes waiting, found through a second
 * selector that only pollers use. Nobody waits for the lock but the I/O thread.
 */
final class TcpPort extends ThreadedPort
{
    /** How often deadlines and liveness are checked. */
    static final long TICK_MILLIS = 100;
    /** Buffers kept for connections that need one of their own again. */
    private static final int MAX_SPARE_BUFFERS = 16;
    private static final System.Logger LOG = System.getLogger("io.jdat.tcp");

    final TcpTransport transport;
    /** The IA's IP address: listeners bind it, active sockets bind it before connecting. */
    final InetAddress bind;
    final ProtocolFamily family;
    private final Selector selector;
    /** The consumers that read the connections on their own threads. */
    final InlineProgress consumers;
    /** Held by whoever makes progress: the I/O thread while it works, or a posting or polling thread. */
    final ReentrantLock progress = new ReentrantLock();
    /**
     * Polling consumers read the connections: the I/O thread's selector does not watch channels
     * for reading (it would only wake to find the bytes gone) and checks back every millisecond.
     * Changed under {@link #progress}.
     */
    volatile boolean quiet;
    private final Thread io;
    /**
     * The receive and send buffers of whoever makes progress (under {@link #progress}): reads land
     * here and are decoded at once, messages are encoded here and written at once, and only what a
     * connection cannot finish now (an FPDU cut short, bytes the kernel did not take) moves to a
     * buffer of its own, returned when empty. Memory grows with busy connections, not with all.
     */
    final ByteBuffer rxShared;
    FpduWrite txShared;
    private final ArrayDeque<ByteBuffer> spareRx = new ArrayDeque<>();
    private final ArrayDeque<FpduWrite> spareTx = new ArrayDeque<>();
    private final int rxSize;
    private final int txSize;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final MpscUnboundedAtomicArrayQueue<TcpChannel> ready = new MpscUnboundedAtomicArrayQueue<>(64);
    private final Set<Io> live = ConcurrentHashMap.newKeySet();
    /** {@code this::selectedLocked}, made once: a method reference bound per selection is an allocation. */
    private final java.util.function.Consumer<SelectionKey> selectedLockedAction;
    /** Accepted connections whose MPA Request is not complete yet. */
    private final HalfOpen halfOpen;
    private final Map<Long, TcpListener> listeners = new ConcurrentHashMap<>();
    /** Selections the I/O thread has finished on {@link #selector}; only it writes this. */
    private volatile long selections;
    /** Channels that asked this tick about the kernel's queue of their bytes, and when it was last read. I/O thread. */
    private final List<TcpChannel> toLook = new ArrayList<>();
    private long lookedAt;
    private final long lookIntervalNanos;

    TcpPort(final TcpTransport transport, final TransportContext context)
    {
        this.transport = transport;
        this.bind = transport.address.inet();
        this.family = bind instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        // both hold at least one whole FPDU of the largest length
        this.rxSize = Math.max(transport.rxBuffer, Fpdu.MAX_FPDU_LENGTH);
        this.txSize = Math.max(transport.txBuffer, Fpdu.MAX_FPDU_LENGTH);
        this.rxShared = ByteBuffer.allocateDirect(rxSize);
        this.txShared = new FpduWrite(txSize, txSize);
        this.lookIntervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(TICK_MILLIS, transport.livenessMillis / 4));
        this.lookedAt = System.nanoTime() - lookIntervalNanos;
        try
        {
            if (!bind.isAnyLocalAddress() && NetworkInterface.getByInetAddress(bind) == null)
            {
                throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "tcp: " + bind.getHostAddress() + " is not an address of this host");
            }
            this.selector = Selector.open();
        }
        catch (final IOException e)
        {
            throw noSelector(e);
        }
        final Selector pollSelector;
        try
        {
            pollSelector = Selector.open();
        }
        catch (final IOException e)
        {
            closeQuietly(selector);
            throw noSelector(e);
        }
        final Selector waitSelector;
        try
        {
            waitSelector = Selector.open();
        }
        catch (final IOException e)
        {
            // out of descriptors: what was opened is given back
            closeQuietly(selector);
            closeQuietly(pollSelector);
            throw noSelector(e);
        }
        this.consumers = new InlineProgress(this, pollSelector, waitSelector);
        this.selectedLockedAction = this::selectedLocked;
        this.halfOpen = new HalfOpen(transport.maxHalfOpen);
        this.io = context.threads().newThread(this::run);
        io.setName("jdat-tcp-" + context.iaName() + "-" + context.instanceId() + "-io");
        io.start();
    }

    private static DatException noSelector(final IOException e)
    {
        return new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
            "tcp: cannot open a selector: " + e);
    }

    private static void closeQuietly(final Selector s)
    {
        try
        {
            s.close();
        }
        catch (final IOException e)
        {
            // nothing more to give back
        }
    }

    // ---------------------------------------------------------------- the I/O thread

    private void run()
    {
        long nextTick = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
        while (!closed)
        {
            try
            {
                final boolean pollers = consumers.active();
                if (pollers != quiet)
                {
                    setQuiet(pollers);
                }
                if (!hasWork())
                {
                    selector.select(selectedLockedAction, pollers ? InlineProgress.QUIET_MILLIS : TICK_MILLIS);
                }
                else
                {
                    selector.selectNow(selectedLockedAction);
                }
                selections = selections + 1;
                progress.lock();
                try
                {
                    runWork();
                    final long now = System.nanoTime();
                    if (now - nextTick >= 0)
                    {
                        nextTick = now + TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
                        for (final Io x : live)
                        {
                            tick(x, now);
                        }
                        lookAtKernelQueues(now);
                    }
                }
                finally
                {
                    progress.unlock();
                }
            }
            catch (final ClosedSelectorException e)
            {
                return;
            }
            catch (final IOException | RuntimeException e)
            {
                if (!closed)
                {
                    LOG.log(System.Logger.Level.ERROR, "tcp: the I/O loop of " + this + " failed", e);
                }
            }
        }
    }

    private void setQuiet(final boolean on)
    {
        progress.lock();
        try
        {
            quiet = on;
            for (final Io x : live)
            {
                if (x instanceof TcpChannel c)
                {
                    c.requiet();
                }
            }
        }
        finally
        {
            progress.unlock();
        }
    }

    private void selectedLocked(final SelectionKey k)
    {
        progress.lock();
        try
        {
            selected(k);
        }
        finally
        {
            progress.unlock();
        }
    }

    /** A key selected by any of the port's selectors: its socket is ready. Under {@link #progress}. */
    void selected(final SelectionKey k)
    {
        final Io x = (Io) k.attachment();
        try
        {
            if (k.isValid())
            {
                x.selected(k.readyOps());
            }
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.ERROR, "tcp: " + x + " failed", e);
            x.failed();
        }
    }

    /** A channel's tick asks what the kernel holds of its bytes unacknowledged ({@link TcpChannel#kernelQueue}). */
    void lookAtKernelQueue(final TcpChannel c)
    {
        toLook.add(c);
    }

    /**
     * Answers the channels that asked this tick, with one read of the kernel's tables, at most
     * every quarter of the liveness bound. Under the progress lock.
     */
    private void lookAtKernelQueues(final long now)
    {
        if (toLook.isEmpty())
        {
            return;
        }
        try
        {
            if (now - lookedAt >= lookIntervalNanos)
            {
                lookedAt = now;
                final Set<String> keys = new HashSet<>();
                for (final TcpChannel c : toLook)
                {
                    keys.addAll(List.of(c.kernelKeys()));
                }
                final Map<String, Long> queued = KernelQueues.read(keys);
                for (final TcpChannel c : toLook)
                {
                    long q = -1;
                    for (final String k : c.kernelKeys())
                    {
                        q = Math.max(q, queued.getOrDefault(k, -1L));
                    }
                    c.kernelQueue(q, now);
                }
            }
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.ERROR, "tcp: looking at the kernel's TCP queues failed", e);
        }
        finally
        {
            toLook.clear();
        }
    }

    private static void tick(final Io x, final long now)
    {
        try
        {
            x.tick(now);
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.ERROR, "tcp: " + x + " failed", e);
            x.failed();
        }
    }

    /** Whether tasks or scheduled channels wait for progress. */
    boolean hasWork()
    {
        return !tasks.isEmpty() || !ready.isEmpty();
    }

    /** Runs the queued tasks and scheduled channels. Under {@link #progress}. */
    void runWork()
    {
        runTasks();
        drainReady();
    }

    private void runTasks()
    {
        Runnable r;
        while ((r = tasks.poll()) != null)
        {
            try
            {
                r.run();
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.ERROR, "tcp: a task of " + this + " failed", e);
            }
        }
    }

    private void drainReady()
    {
        TcpChannel c;
        while ((c = ready.poll()) != null)
        {
            try
            {
                c.scheduledRun();
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.ERROR, "tcp: " + c + " failed", e);
                c.failed();
            }
        }
    }

    /** Runs {@code task} on the I/O thread; false (and it never runs) once the port is closed. */
    boolean execute(final Runnable task)
    {
        if (closed)
        {
            return false;
        }
        tasks.offer(task);
        wake();
        return true;
    }

    /** A channel has messages to move. */
    void schedule(final TcpChannel channel)
    {
        ready.offer(channel);
        wake();
    }

    /** Wakes the I/O thread from {@code select} (unless this is it): it has new work or interests. */
    void wake()
    {
        if (Thread.currentThread() != io && !closed)
        {
            try
            {
                selector.wakeup();
            }
            catch (final ClosedSelectorException e)
            {
                // closed meanwhile: nothing runs any more
            }
        }
    }

    /** A connection's own receive buffer (as large as {@link #rxShared}), empty. Under {@link #progress}. */
    ByteBuffer borrowRx()
    {
        final ByteBuffer b = spareRx.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(rxSize);
    }

    /**
     * A connection keeps the shared write, which holds bytes the kernel did not take yet; the
     * port's next shared write is a spare one. Under {@link #progress}.
     */
    FpduWrite takeTxShared()
    {
        final FpduWrite taken = txShared;
        final FpduWrite next = spareTx.poll();
        txShared = next != null ? next : new FpduWrite(txSize, txSize);
        return taken;
    }

    /** A receive buffer from {@link #borrowRx()} that its connection no longer needs. Under {@link #progress}. */
    void returnRx(final ByteBuffer b)
    {
        if (spareRx.size() < MAX_SPARE_BUFFERS)
        {
            spareRx.push(b.clear());
        }
    }

    /** A write from {@link #takeTxShared()} that its connection no longer needs. Under {@link #progress}. */
    void returnTx(final FpduWrite b)
    {
        if (spareTx.size() < MAX_SPARE_BUFFERS)
        {
            b.clear();
            spareTx.push(b);
        }
    }

    /**
     * Blocks the calling consumer (an EVD waiter that would park) in a select over the IA's
     * connections instead, then makes the progress that woke it: the bytes that arrive wake
     * only this thread, not the I/O thread and then this one. One such waiter at a time; while
     * it waits, the I/O thread leaves reading to it.
     */
    @Override
    public boolean awaitProgress(final long nanos)
    {
        return consumers.awaitProgress(nanos);
    }

    @Override
    public void wakeWaiter()
    {
        consumers.wakeWaiter();
    }

    @Override
    public void pollingStopped()
    {
        consumers.pollingStopped();
    }

    /**
     * A consumer polls an EVD: if no one else is making progress, read the connections that have
     * bytes waiting and run what is queued, on this thread.
     */
    @Override
    public int poll()
    {
        return consumers.poll(null);
    }

    /** {@link #poll()} for a consumer of {@code evd}: its connections first (see {@link InlineProgress#poll}). */
    @Override
    public int poll(final Object evd)
    {
        return consumers.poll(evd);
    }

    /** Registers a socket with the selector. I/O thread. */
    void register(final Io x, final SelectableChannel channel, final int ops) throws ClosedChannelException
    {
        x.key = channel.register(selector, ops, x);
    }

    /** {@code next} takes over the socket and key of {@code previous} (an attempt or request that became a channel). */
    void replace(final Io previous, final Io next)
    {
        next.key = previous.key;
        next.key.attach(next);
        live.add(next);
        live.remove(previous);
    }

    void remove(final Io x)
    {
        live.remove(x);
        if (x instanceof TcpRequest r)
        {
            startupEnded(r);
        }
        if (x instanceof TcpListener l)
        {
            listeners.remove(l.qual, l);
        }
    }

    /**
     * Returns once the sockets of listeners closed before the call are released. A channel
     * registered with a selector keeps its socket until that selector has seen its key cancelled
     * ({@link java.nio.channels.Selector}): until the I/O thread's next selection, up to a tick
     * later, a new listener on the same port would find it in use. The selection under way may
     * have begun before the close; the one after it has not. Not on the I/O thread, nor under the
     * progress lock (a callback: the I/O thread's next selection releases the socket); at most
     * a second if the I/O thread is held up.
     */
    void awaitReleased()
    {
        if (Thread.currentThread() == io || progress.isHeldByCurrentThread())
        {
            return;
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        final long done = selections + 2;
        while (selections - done < 0 && !closed && io.isAlive())
        {
            if (System.nanoTime() - deadline >= 0)
            {
                LOG.log(System.Logger.Level.WARNING, "tcp: the I/O thread of " + this
                    + " did not release a closed listener within a second");
                return;
            }
            wake();
            LockSupport.parkNanos(20_000);
        }
    }

    /**
     * A listener accepted a TCP connection: it becomes a request once its MPA Request arrived. If
     * {@code max_half_open} connections wait for theirs already, the one that waited longest is
     * closed; its descriptor is freed only when the selector next runs (it is registered), so the
     * listener accepts no more before that. Returns whether one was closed. I/O thread.
     */
    boolean accepted(final SocketChannel s, final TcpListener l)
    {
        TcpRequest oldest = null;
        try
        {
            Sockets.configure(s, transport.livenessMillis);
            final TcpRequest r = new TcpRequest(this, s, l, System.nanoTime() + transport.mpaTimeoutNanos);
            oldest = halfOpen.add(r);
            if (oldest != null)
            {
                oldest.startupFailed();
            }
            live.add(r);
            register(r, s, SelectionKey.OP_READ);
        }
        catch (final IOException e)
        {
            Sockets.reset(s);
        }
        return oldest != null;
    }

    /** A request's MPA Request arrived, or it ended: it no longer counts as half open. */
    void startupEnded(final TcpRequest r)
    {
        halfOpen.ended(r);
    }

    /** A listener's accept failed. */
    void acceptFailed()
    {
        halfOpen.acceptFailed();
    }

    /** A request did not send its MPA Request within {@code mpa_timeout_ms}. */
    void startupTimedOut()
    {
        halfOpen.timedOut();
    }

    // ---------------------------------------------------------------- TransportPort

    @Override
    public IaAddress address()
    {
        return transport.address;
    }

    @Override
    public List<NamedAttr> attributes()
    {
        return List.of(new NamedAttr("jdat.tcp.liveness_ms", Long.toString(transport.livenessMillis)),
            new NamedAttr("jdat.tcp.crc", Boolean.toString(transport.crc)),
            new NamedAttr("jdat.tcp.mpa_revision", Integer.toString(transport.mpaRevision)),
            new NamedAttr("jdat.tcp.p2p", Boolean.toString(transport.peerToPeer)),
            new NamedAttr("jdat.tcp.responder_wait_ms", Long.toString(transport.responderWaitNanos / 1_000_000)),
            new NamedAttr("jdat.tcp.mss", transport.mss == 0 ? "auto" : Integer.toString(transport.mss)),
            new NamedAttr("jdat.tcp.mpa_timeout_ms", Long.toString(transport.mpaTimeoutNanos / 1_000_000)),
            new NamedAttr("jdat.tcp.max_half_open", Integer.toString(transport.maxHalfOpen)),
            new NamedAttr("jdat.tcp.half_open", Integer.toString(halfOpen.size())),
            new NamedAttr("jdat.tcp.half_open_timed_out", Long.toString(halfOpen.timeouts())),
            new NamedAttr("jdat.tcp.half_open_displaced", Long.toString(halfOpen.evictions())),
            new NamedAttr("jdat.tcp.accept_failures", Long.toString(halfOpen.acceptFailures())));
    }

    @Override
    public int maxPrivateDataSize()
    {
        return transport.maxPrivateData;
    }

    @Override
    public void checkAddress(final IaAddress remote)
    {
        final InetAddress inet = remote.inet();
        if (inet == null)
        {
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                "the tcp provider connects to IP addresses, not to names (" + remote + ")");
        }
        if (inet.isMulticastAddress())
        {
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                inet.getHostAddress() + " is a multicast address");
        }
        final boolean v6ia = bind instanceof Inet6Address;
        if (!v6ia && inet instanceof Inet6Address || v6ia && !bind.isAnyLocalAddress() && inet instanceof Inet4Address)
        {
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNREACHABLE,
                "an IA on " + bind.getHostAddress() + " cannot reach " + inet.getHostAddress());
        }
    }

    @Override
    public Listener listen(final long connQual, final ListenHandler handler)
    {
        checkOpen();
        if (connQual < 1 || connQual > 65535)
        {
            throw new DatException(DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.invalidArg(DatArg.PSP_CREATE_CONN_QUAL),
                "a tcp connection qualifier is a TCP port, 1..65535, not " + connQual);
        }
        return started(TcpListener.bind(this, (int) connQual, handler));
    }

    @Override
    public Listener listenAny(final ListenHandler handler)
    {
        checkOpen();
        return started(TcpListener.bindAny(this, handler));
    }

    private TcpListener started(final TcpListener l)
    {
        synchronized (registry)
        {
            if (closed)
            {
                Sockets.close(l.server);
                throw closing();
            }
            listeners.put(l.qual, l);
            live.add(l);
        }
        execute(l::register);
        return l;
    }

    @Override
    public PendingConnect connect(final ConnectRequest request, final ConnectHandler handler)
    {
        checkOpen();
        final InetAddress remote = request.remoteAddress().inet();
        if (remote == null)
        {
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                "the tcp provider connects to IP addresses (" + request.remoteAddress() + ")");
        }
        final long qual = request.remoteConnQual();
        if (qual < 1 || qual > 65535)
        {
            // no TCP port can listen there: as if nobody listened
            handler.rejected(false);
            return Finished.INSTANCE;
        }
        final SocketChannel s;
        final long localPort;
        try
        {
            s = SocketChannel.open(family);
        }
        catch (final IOException e)
        {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                "cannot open a socket: " + e);
        }
        try
        {
            Sockets.configure(s, transport.livenessMillis);
            s.bind(new InetSocketAddress(bind, 0));
            localPort = ((InetSocketAddress) s.getLocalAddress()).getPort();
        }
        catch (final IOException e)
        {
            Sockets.close(s);
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                "no local TCP port on " + bind.getHostAddress() + ": " + e);
        }
        final boolean connectedNow;
        try
        {
            connectedNow = s.connect(new InetSocketAddress(remote, (int) qual));
        }
        catch (final UnresolvedAddressException | UnsupportedAddressTypeException e)
        {
            Sockets.close(s);
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                "cannot connect to " + remote + ": " + e);
        }
        catch (final IOException e)
        {
            Sockets.close(s);
            if (Sockets.unreachable(e))
            {
                handler.unreachable();
            }
            else
            {
                handler.rejected(false);
            }
            return new Finished(localPort);
        }
        final TcpAttempt a = new TcpAttempt(this, s, request, handler, localPort);
        synchronized (registry)
        {
            if (closed)
            {
                Sockets.close(s);
                throw closing();
            }
            live.add(a);
        }
        execute(() -> a.start(connectedNow));
        return a;
    }

    @Override
    public boolean handoff(final IncomingRequest request, final long connQual)
    {
        if (!(request instanceof TcpRequest r) || r.port != this || closed)
        {
            return false;
        }
        final TcpListener l = listeners.get(connQual);
        return l != null && !l.closed && r.handOff(l);
    }

    @Override
    protected Thread ioThread()
    {
        return io;
    }

    @Override
    protected void wakeIo()
    {
        try
        {
            selector.wakeup();
        }
        catch (final ClosedSelectorException e)
        {
            // already closed
        }
    }

    @Override
    protected void shutdown()
    {
        // a polling or posting thread may still be making progress: let it finish first
        progress.lock();
        for (final Io x : live)
        {
            try
            {
                x.shutdown();
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "tcp: closing " + x + " failed", e);
            }
        }
        live.clear();
        listeners.clear();
        tasks.clear();
        ready.clear();
        progress.unlock();
        try
        {
            selector.close();
            consumers.close();
        }
        catch (final IOException e)
        {
            // nothing is left to release
        }
    }

    @Override
    public String toString()
    {
        return "tcp:" + transport.address;
    }

    /** An attempt whose outcome was delivered before {@link #connect} returned. */
    private record Finished(long localPortQual) implements PendingConnect
    {
        static final Finished INSTANCE = new Finished(0);

        @Override
        public boolean cancel()
        {
            return false;
        }
    }
}

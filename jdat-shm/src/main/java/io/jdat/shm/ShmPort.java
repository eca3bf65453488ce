package io.jdat.shm;

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
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One IA instance on an {@code shm} address: its listeners, attempts and connections, and the
 * thread that moves them ({@code jdat-shm-IA-N-io}). Everything that touches the shared files
 * after setup runs in progress rounds under one lock: on the I/O thread, on a consumer thread
 * that polls an EVD ({@link #poll()}), or on a thread that posts ({@link #flush}). Whoever finds
 * the lock taken leaves the work to its holder and wakes the I/O thread.
 *
 * <p>While a consumer polls, its rounds move every connection of the port, so the I/O thread
 * steps aside: it parks until no poll happened for {@code poll_grace_ns} (doubling while polls go
 * on, up to {@code poll_aside_max_ns}) or the consumer stops polling to park
 * ({@link #pollingStopped()}), instead of spinning beside it. On a machine with
 * few cores a spinning I/O thread takes the core the peer process needs to answer.
 *
 * <p>A consumer whose {@code dat_evd_wait} spin ended without its event goes on moving the rings
 * itself ({@link #awaitProgress}), in a backoff of its own (spin, yield, then timed parks),
 * while the I/O thread stays aside. A process cannot unpark a thread of another, so a waiter that
 * parked was woken by its I/O thread once that saw the answer: two scheduler wake-ups per message,
 * each longer than the peer's spin on a small or loaded machine, and once one side parked both
 * parked for every message after (a ping-pong at 25 µs a half round trip instead of 0.5). A
 * waiter that yields stays runnable and places the answer itself.
 *
 * <p>Where a thread of the port would park (the I/O thread's backoff, the waiter's after its
 * yields) it sleeps instead on futex words ({@link #sleep}): the low halves of its connections'
 * ring positions, which the peer process wakes after it publishes or consumes a record when the
 * ring's "sleeps" word asks it to ({@link SpscRing}), and a bell of this port that its own threads
 * ring ({@link #wakeWaiter}, {@link #wake}). One thread sleeps so at a time; the sleep lasts no
 * longer than the park it replaces, so a wake-up lost to the race the class comment of
 * {@link SpscRing} describes costs at most that, as a park did.
 */
final class ShmPort extends ThreadedPort
{
    private static final System.Logger LOG = System.getLogger("io.jdat.shm");
    private static final Work[] NONE = new Work[0];
    private static final java.lang.invoke.VarHandle BELL = java.lang.foreign.ValueLayout.JAVA_INT.varHandle();
    /** How long a thread that could not arm its futex sleep just now parks before it tries again. */
    private static final long RETAKE_NANOS = 20_000;

    /** Connection ids: this process's id above, a sequence below (the file name c-PID-SEQ). */
    static final AtomicLong SEQUENCE = new AtomicLong(ThreadLocalRandom.current().nextInt(1 << 20));

    final ShmTransport transport;
    /** This port's address directory. */
    final Path dir;
    final ProgressLock progress = new ProgressLock();
    private volatile Work[] work = NONE;
    private final Thread io;
    /** The one consumer moving the rings in {@link #awaitProgress}, if any. */
    private final AtomicReference<Thread> waiter = new AtomicReference<>();
    /**
     * An event for the waiter came from another thread ({@link #wakeWaiter}); set even when the
     * waiter is not in yet (it returns at once then), cleared as it leaves.
     */
    private volatile boolean waiterWoken;
    /** The waiter's backoff, carried from one {@link #awaitProgress} to the next until work resets it. */
    private final Backoff.State waitIdle;
    private volatile boolean wake;
    /** The thread sleeping on futex words ({@link #sleep}), if any. */
    private final AtomicReference<Thread> sleeper = new AtomicReference<>();
    /** Its waiter entries, deadline and errno; null where futexes are not supported. */
    private final Futex.Sleep sleep;
    /** A futex word of this process that its threads bump and wake to end a {@link #sleep}. */
    private final java.lang.foreign.MemorySegment bell;
    /** Futex sleeps so far (a counter for tests and attributes; the sleeper adds to it). */
    private long sleeps;
    /**
     * The connection a polled EVD was last found to be fed by alone, and the work it was found
     * in: stale once the work changes ({@link #own}).
     */
    private volatile Own own;
    /** Whether consumers poll ({@link #poll()}); cleared when one stops to park. */
    private volatile boolean polling;
    /** The consumers' polls, counted for the I/O thread and for the full rounds. */
    private final PollCount polls = new PollCount();
    /*
     * Counters for the transport attributes, added to under the progress lock; read without it,
     * a reader may see them a little behind.
     */
    /** Bytes of RDMA Writes and Read Responses sent and received as direct records. */
    long directSent;
    long directReceived;
    /** Progress rounds run on the I/O thread and on consumer threads. */
    private long ioRounds;
    private long inlineRounds;

    ShmPort(final ShmTransport transport, final TransportContext context)
    {
        this.transport = transport;
        this.dir = ShmDirectory.addressDir(transport.root, transport.address.name());
        ShmDirectory.sweep(dir);
        if (Futex.SUPPORTED && transport.futex)
        {
            final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofAuto();
            this.sleep = new Futex.Sleep(arena, Futex.MAX_WAITERS);
            this.bell = arena.allocate(64, 64);
        }
        else
        {
            this.sleep = null;
            this.bell = null;
        }
        this.waitIdle = transport.waitBackoff.newState(nanos -> sleep(nanos, false));
        this.io = context.threads().newThread(this::run);
        io.setName("jdat-shm-" + context.iaName() + "-" + context.instanceId() + "-io");
        io.start();
    }

    // ---------------------------------------------------------------- progress

    private void run()
    {
        final Backoff.State idle = sleep == null ? transport.parkBackoff.newState(nanos -> sleep(nanos, true))
            : transport.backoff.newWokenState(nanos -> sleep(nanos, true));
        final long grace = transport.pollGraceNanos;
        final long asideMax = Math.max(grace, transport.pollAsideMaxNanos);
        long asidePark = grace;
        boolean aside = false;
        long seen = 0;
        long nextWatch = System.nanoTime();
        while (!closed)
        {
            final long t = System.nanoTime();
            if (t - nextWatch >= 0)
            {
                // the peers' processes, here rather than in a polling consumer's full rounds
                nextWatch = t + transport.livenessNanos;
                watchPeers();
                LateRemovals.tryRemove();
            }
            if (polling && grace > 0)
            {
                final long now = polls.seen();
                if (now != seen)
                {
                    // a consumer moves the rings: stay out of its way until it stops or goes quiet,
                    // looking less often the longer it polls (each look takes a core from a
                    // spinning thread on a small machine: the round trips' tail)
                    seen = now;
                    aside = true;
                    LockSupport.parkNanos(this, asidePark);
                    asidePark = Math.min(asidePark << 1, asideMax);
                    continue;
                }
                // no poll for a whole park (descheduled, or busy elsewhere): carry on where the
                // backoff was, until a poll comes again
                aside = false;
                asidePark = grace;
            }
            else if (aside)
            {
                // it stopped polling to park, and an answer may be close: start the backoff anew
                aside = false;
                idle.idle(1);
            }
            int n = 0;
            if (progress.tryLock())
            {
                try
                {
                    n = round(false);
                    ioRounds++;
                }
                finally
                {
                    progress.unlock();
                }
            }
            if (wake)
            {
                wake = false;
                n++;
            }
            idle.idle(n);
        }
    }

    /**
     * Sleeps up to {@code nanos} on the futex words of every connection's rings and on the port's
     * bell, so that the peer's next record (or its consuming ours, while we wait for that) or a
     * thread of this process ends it at once. True when it slept or found there was work; false
     * when it cannot (futexes unavailable, another thread sleeps, the lock is taken, more words
     * than one call takes): the caller parks instead, as before.
     */
    private boolean sleep(final long nanos, final boolean ioThread)
    {
        if (sleep == null || !Futex.available())
        {
            return false;
        }
        if (!takeSleep(ioThread))
        {
            // the I/O thread parks aside for a waiter; a waiter whose I/O thread has not let go
            // yet (descheduled) tries again soon, rather than park long while the I/O thread may
            // be parking aside too, out of the peer's reach
            return !ioThread && retrySoon(nanos);
        }
        try
        {
            final int rung = Shared.getIntVolatile(bell, 0);
            if (ioThread && waiter.get() != null)
            {
                // a consumer waits in awaitProgress: it sleeps on the rings, this thread parks aside
                return false;
            }
            if (closed || (ioThread ? wake : waiterWoken))
            {
                return true;
            }
            if (!progress.tryLock())
            {
                // another thread runs a round: look again soon, as above
                sleeper.set(null);
                return retrySoon(nanos);
            }
            final Work[] all = work;
            int n = 1;
            try
            {
                Futex.set(sleep.waiters, 0, bell.address(), rung);
                for (int i = 0; i < all.length && n > 0; i++)
                {
                    n = n + 2 > Futex.MAX_WAITERS ? -2 : all[i].arm(sleep, n);
                }
            }
            catch (final RuntimeException | InternalError e)
            {
                // a ring went bad under us: the next round deals with it
                n = -1;
            }
            finally
            {
                progress.unlock();
            }
            final boolean slept = n > 0 && Futex.waitAny(sleep, n, nanos);
            if (slept)
            {
                sleeps++;
            }
            for (final Work w : all)
            {
                disarm(w);
            }
            return slept || n == -1;
        }
        finally
        {
            sleeper.set(null);
        }
    }

    /** A short park instead of a sleep the port could not arm just now; true (the caller waited). */
    private boolean retrySoon(final long nanos)
    {
        LockSupport.parkNanos(this, Math.min(nanos, RETAKE_NANOS));
        return true;
    }

    /**
     * Takes the one futex sleep of the port. The I/O thread leaves it to a consumer waiting in
     * {@link #awaitProgress}; that consumer takes it from a sleeping I/O thread (it rings the bell
     * and waits a few yields for it to let go): else the I/O thread might leave its sleep for its
     * park aside while the consumer parked, and nobody the peer can wake would be asleep.
     */
    private boolean takeSleep(final boolean ioThread)
    {
        final Thread me = Thread.currentThread();
        if (ioThread)
        {
            return waiter.get() == null && sleeper.compareAndSet(null, me);
        }
        for (int i = 0; i < 100; i++)
        {
            if (sleeper.compareAndSet(null, me))
            {
                return true;
            }
            ringBell();
            Thread.yield();
        }
        return false;
    }

    private static void disarm(final Work w)
    {
        try
        {
            w.disarm();
        }
        catch (final RuntimeException | InternalError e)
        {
            // the connection finished and its mapping went meanwhile: nothing left to clear
        }
    }

    /** Ends a thread's futex sleep, if one sleeps; call after setting what it is to look at. */
    private void ringBell()
    {
        if (bell != null && sleeper.get() != null)
        {
            BELL.getAndAdd(bell, 0L, 1);
            Futex.wake(bell.address());
        }
    }

    /** Futex sleeps so far and wake calls made for peers (tests). */
    long sleeps()
    {
        return sleeps;
    }

    /** Records placed by consumers that read their own connection's ring ({@link #poll(Object)}). */
    long ownReads()
    {
        long n = 0;
        for (final Work w : work)
        {
            if (w instanceof ShmChannel c)
            {
                n += c.ownReads();
            }
        }
        return n;
    }

    /** Wake calls this port's connections made for their peers (tests). */
    long peerWakes()
    {
        long n = 0;
        for (final Work w : work)
        {
            if (w instanceof ShmChannel c)
            {
                n += c.wakes();
            }
        }
        return n;
    }

    /** Every connection's look at its peer's process ({@link Work#watchPeer()}); no lock. */
    private void watchPeers()
    {
        for (final Work w : work)
        {
            try
            {
                w.watchPeer();
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "shm: watching the peer of " + w + " failed", e);
            }
        }
    }

    /** Whether every piece of work says a round would find nothing ({@link Work#quiet()}); no lock. */
    private boolean quiet()
    {
        for (final Work w : work)
        {
            if (!quiet(w))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean quiet(final Work w)
    {
        try
        {
            return w.quiet();
        }
        catch (final RuntimeException | InternalError e)
        {
            // a mapping closed under the hint (the work just finished): a round sorts it out
            return false;
        }
    }

    /**
     * One pass over every piece of work, or, between a polling consumer's full rounds, over the
     * work that is not quiet ({@link Work#move()}: the data alone, without the clock, the peer's
     * liveness and the deadlines). Progress lock held.
     */
    private int round(final boolean skipQuiet)
    {
        final long now = skipQuiet ? 0 : System.nanoTime();
        int n = 0;
        for (final Work w : work)
        {
            if (skipQuiet && quiet(w))
            {
                continue;
            }
            try
            {
                n += skipQuiet ? w.move() : w.progress(now);
            }
            catch (final RuntimeException | InternalError e)
            {
                // InternalError: a fault in a mapping that another process shrank; it must not
                // reach a DAT call or end the I/O thread
                LOG.log(System.Logger.Level.ERROR, "shm: " + w + " failed", e);
                remove(w);
            }
        }
        return n;
    }

    @Override
    public int poll()
    {
        if (closed || progress.isHeldByCurrentThread())
        {
            return 0;
        }
        return poll(polls.poll());
    }

    /**
     * {@link #poll()} for a consumer of {@code evd}: when exactly one connection of the port
     * completes into it, the consumer reads that connection's inbound ring itself first
     * ({@link ShmChannel#receiveOwn()}: under the ring's claim, without the progress lock and the
     * round over every connection). The round still runs when that read found nothing, and once
     * in {@link PollCount#QUIET_POLLS} polls whatever it found (the other connections, the
     * writing, the reports, liveness and deadlines). An EVD fed by several connections keeps the
     * round alone.
     */
    @Override
    public int poll(final Object evd)
    {
        if (closed || progress.isHeldByCurrentThread())
        {
            return 0;
        }
        final ShmChannel c = evd == null ? null : own(evd);
        final int n = c == null ? 0 : c.receiveOwn();
        final boolean full = polls.poll();
        if (n > 0 && !full)
        {
            if (!polling)
            {
                polling = true;
            }
            return n;
        }
        return n + poll(full);
    }

    /** The one connection that completes into {@code evd}, or null (none, or several). */
    private ShmChannel own(final Object evd)
    {
        final Work[] all = work;
        final Own o = own;
        if (o != null && o.evd == evd && o.work == all)
        {
            return o.channel;
        }
        ShmChannel found = null;
        for (final Work w : all)
        {
            if (w instanceof ShmChannel c && c.feeds(evd))
            {
                if (found != null)
                {
                    found = null;
                    break;
                }
                found = c;
            }
        }
        own = new Own(all, evd, found);
        return found;
    }

    /** The port's polls: the quiet check, then a round, or a full one when {@code full}. */
    private int poll(final boolean full)
    {
        if (!polling)
        {
            polling = true;
        }
        if (!full && quiet())
        {
            return 0;
        }
        if (!progress.tryLock())
        {
            return 0;
        }
        try
        {
            if (full)
            {
                polls.fullRan();
            }
            inlineRounds++;
            return round(!full);
        }
        finally
        {
            progress.unlock();
        }
    }

    /** The consumer that polled is about to park: the I/O thread takes over at once. */
    @Override
    public void pollingStopped()
    {
        if (polling)
        {
            polling = false;
            LockSupport.unpark(io);
            ringBell();
        }
    }

    /**
     * A waiter whose spin ended moves the rings on its own thread instead of parking, for at most
     * {@code nanos}: it returns once a round did work (the answer may be placed), when an event
     * came from elsewhere ({@link #wakeWaiter}), or when the time is up. Between rounds it spins
     * ({@code wait_spin_ns}), yields, then parks for growing times up to {@code idle_park_max_ns}
     * (every round after a park is a full one: liveness and deadlines). Its polls keep the I/O
     * thread aside. False at once, having waited for nothing, when another thread waits here or
     * {@code wait_polls=false}.
     */
    @Override
    public boolean awaitProgress(final long nanos)
    {
        final Thread me = Thread.currentThread();
        if (!transport.waitPolls || closed || progress.isHeldByCurrentThread() || !waiter.compareAndSet(null, me))
        {
            return false;
        }
        try
        {
            final long start = System.nanoTime();
            while (!closed && !waiterWoken && !me.isInterrupted())
            {
                final int n = poll();
                if (n > 0)
                {
                    waitIdle.idle(n);
                    return true;
                }
                final long left = nanos - (System.nanoTime() - start);
                if (left <= 0)
                {
                    return true;
                }
                if (waitIdle.parks())
                {
                    // the round after a park is a full one
                    polls.fullNext();
                }
                waitIdle.idle(0, left);
            }
            // an event came, or the port closed: the next wait starts its backoff anew
            waitIdle.idle(1);
            return true;
        }
        finally
        {
            waiterWoken = false;
            waiter.set(null);
        }
    }

    @Override
    public void wakeWaiter()
    {
        waiterWoken = true;
        final Thread w = waiter.get();
        if (w != null)
        {
            LockSupport.unpark(w);
        }
        ringBell();
    }

    /** A channel has new messages: move them now if the lock is free, else leave them to its holder. */
    void flush(final ShmChannel channel)
    {
        if (progress.isHeldByCurrentThread())
        {
            // a callback posted: the round in progress goes on while there is work
            wake = true;
            return;
        }
        if (!closed && progress.tryLock())
        {
            try
            {
                channel.move();
            }
            finally
            {
                progress.unlock();
            }
            if (channel.hasQueued())
            {
                wake();
            }
            return;
        }
        wake();
    }

    void wake()
    {
        wake = true;
        LockSupport.unpark(io);
        ringBell();
    }

    void add(final Work w)
    {
        synchronized (registry)
        {
            final Work[] old = work;
            final Work[] grown = java.util.Arrays.copyOf(old, old.length + 1);
            grown[old.length] = w;
            work = grown;
        }
        wake();
    }

    void remove(final Work w)
    {
        synchronized (registry)
        {
            final Work[] old = work;
            for (int i = 0; i < old.length; i++)
            {
                if (old[i] == w)
                {
                    final Work[] shrunk = new Work[old.length - 1];
                    System.arraycopy(old, 0, shrunk, 0, i);
                    System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                    work = shrunk;
                    return;
                }
            }
        }
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
        return List.of(new NamedAttr("jdat.shm.dir", dir.toString()),
            new NamedAttr("jdat.shm.group", transport.group == null ? "" : transport.group),
            new NamedAttr("jdat.shm.ring_size", Integer.toString(transport.ringSize)),
            new NamedAttr("jdat.shm.max_chunk", Integer.toString(transport.maxChunk)),
            new NamedAttr("jdat.shm.direct_min", Long.toString(transport.directMin)),
            new NamedAttr("jdat.shm.stall_ms", Long.toString(transport.stallNanos / 1_000_000)),
            new NamedAttr("jdat.shm.direct_bytes_sent", Long.toString(directSent)),
            new NamedAttr("jdat.shm.direct_bytes_received", Long.toString(directReceived)),
            new NamedAttr("jdat.shm.rounds_io_thread", Long.toString(ioRounds)),
            new NamedAttr("jdat.shm.rounds_inline", Long.toString(inlineRounds)),
            new NamedAttr("jdat.shm.records_read_own", Long.toString(ownReads())),
            new NamedAttr("jdat.shm.futex", Boolean.toString(sleep != null && Futex.available())),
            new NamedAttr("jdat.shm.futex_sleeps", Long.toString(sleeps)),
            new NamedAttr("jdat.shm.futex_wakes", Long.toString(peerWakes())));
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
                "the shm provider connects to host-local names, not to IP addresses (" + remote + ")");
        }
        if (!ShmDirectory.validName(remote.name()))
        {
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                "'" + remote.name() + "' is not an shm address name");
        }
    }

    @Override
    public Listener listen(final long connQual, final ListenHandler handler)
    {
        checkOpen();
        final ListenerFile f = ShmDirectory.locked(dir, () -> ListenerFile.create(dir, connQual));
        if (f == null)
        {
            throw new DatException(DatReturnType.CONN_QUAL_IN_USE,
                "connection qualifier " + connQual + " is in use on " + transport.address);
        }
        return started(new ShmListener(this, f, connQual, handler));
    }

    /** A qualifier of {@code any_qual_range} that is free or stale ({@link ListenerFile#createAny}). */
    @Override
    public Listener listenAny(final ListenHandler handler)
    {
        checkOpen();
        final ListenerFile f = ListenerFile.createAny(dir, transport.anyLow, transport.anyHigh,
            transport.address.toString());
        return started(new ShmListener(this, f, f.qual(), handler));
    }

    private ShmListener started(final ShmListener l)
    {
        synchronized (registry)
        {
            if (closed)
            {
                l.shutdown();
                throw closing();
            }
            add(l);
        }
        return l;
    }

    /**
     * Starts a connection attempt ({@link ShmAttempt#start}); returns at once, whoever keeps the
     * listener's address directory's lock: the attempt then waits for it in the port's rounds.
     */
    @Override
    public PendingConnect connect(final ConnectRequest request, final ConnectHandler handler)
    {
        checkOpen();
        final ShmAttempt attempt = ShmAttempt.start(this, request, handler);
        if (attempt == null)
        {
            return Finished.INSTANCE;
        }
        synchronized (registry)
        {
            if (closed)
            {
                attempt.shutdown();
                throw closing();
            }
            add(attempt);
        }
        return attempt;
    }

    /** A connection id this process has not used: its pid above, a sequence below. */
    static long nextId()
    {
        while (true)
        {
            final long seq = SEQUENCE.incrementAndGet() & 0xFFFF_FFFFL;
            if (seq != 0)
            {
                return Liveness.SELF_PID << 32 | seq;
            }
        }
    }

    @Override
    public boolean handoff(final IncomingRequest request, final long connQual)
    {
        if (!(request instanceof ShmRequest r) || r.port != this || closed)
        {
            return false;
        }
        final ListenerFile lf = ListenerFile.open(ShmDirectory.listenerPath(dir, connQual));
        if (lf == null)
        {
            return false;
        }
        try
        {
            if (!lf.listening() || !Liveness.alive(lf.ownerPid(), lf.ownerStart()) || !r.handOff())
            {
                return false;
            }
            final int slot = lf.post(r.file.id);
            if (slot < 0 || !lf.listening() && lf.withdraw(slot, r.file.id))
            {
                r.takeBack();
                return false;
            }
            r.handedOff();
            return true;
        }
        finally
        {
            lf.unmap();
        }
    }

    @Override
    protected Thread ioThread()
    {
        return io;
    }

    @Override
    protected void wakeIo()
    {
        LockSupport.unpark(io);
        ringBell();
    }

    @Override
    protected void shutdown()
    {
        progress.lock();
        try
        {
            for (final Work w : work)
            {
                try
                {
                    w.shutdown();
                }
                catch (final RuntimeException e)
                {
                    LOG.log(System.Logger.Level.WARNING, "shm: closing " + w + " failed", e);
                }
            }
            synchronized (registry)
            {
                work = NONE;
            }
        }
        finally
        {
            progress.unlock();
        }
        // listening files that closed while another process kept the directory's lock: removed
        // now if it is free, never waited for (dat_ia_close does not block on another process).
        // Marked closed, they are stale to everybody meanwhile; this JVM's other ports try again,
        // its exit waits a moment for them, and any sweep of the address removes them
        LateRemovals.tryRemove();
    }

    @Override
    public String toString()
    {
        return "shm:" + transport.address + "@" + dir;
    }

    /** A polled EVD, the work it was looked up in, and the one connection of that work feeding it (or null). */
    private record Own(Work[] work, Object evd, ShmChannel channel)
    {
    }

    /** An attempt that ended before {@link #connect} returned. */
    private static final class Finished implements PendingConnect
    {
        static final Finished INSTANCE = new Finished();

        @Override
        public long localPortQual()
        {
            return 0;
        }

        @Override
        public boolean cancel()
        {
            return false;
        }
    }
}

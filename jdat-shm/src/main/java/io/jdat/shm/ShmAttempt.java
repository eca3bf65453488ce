package io.jdat.shm;

import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.PendingConnect;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The active side of a connection being set up: its {@link ConnectionFile} waits in the
 * listener's slot, then for the passive side's answer. Exactly one of the outcome (delivered by a
 * progress round) and {@link #cancel()} wins {@link #decided}; the winner alone changes the file's
 * state towards the peer and ends the attempt.
 *
 * <p>Making the file needs the listener's address directory's lock, which any process that may
 * enter the directory can keep. {@code dat_ep_connect} is asynchronous, so the consumer's thread
 * only tries it; while another thread or process keeps it, the attempt waits for it in the
 * port's rounds, trying again without waiting (after 100 µs, doubling up to 10 ms), before it
 * has a file. The consumer's connect timeout ends that wait as any other ({@link #cancel()}:
 * {@code DAT_CONNECTION_EVENT_TIMED_OUT}); a lock kept {@link ShmDirectory#LOCK_WAIT_NANOS} ends
 * it as a transport failure ({@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}), as long as a
 * consumer's thread waits for the lock anywhere else.
 */
final class ShmAttempt implements PendingConnect, Work
{
    private static final long RETRY_MIN_NANOS = 100_000;
    private static final long RETRY_MAX_NANOS = 10_000_000;
    /** What a try to make and post the request came to. */
    private static final int POSTED = 0;
    private static final int BUSY = 1;
    private static final int REFUSED = 2;

    private final ShmPort port;
    private final ConnectHandler handler;
    private final long listenerPid;
    private final long listenerStart;
    private final AtomicBoolean decided = new AtomicBoolean();
    /** Made and posted; null while the attempt waits for the directory's lock. */
    private volatile ConnectionFile file;
    private volatile boolean cancelled;
    private boolean released;
    private long nextCheck;
    /*
     * Until the file is made (the progress lock held, or the connecting thread before the attempt
     * is registered): what it is made from, the listener's file (unmapped once posted) and when
     * to try the lock again.
     */
    private final ConnectRequest request;
    private final Path remoteDir;
    private ListenerFile listener;
    /** The id the file is made with first: the local port qualifier. */
    private final long id;
    private final long since;
    private long nextTry;
    private long retry = RETRY_MIN_NANOS;

    private ShmAttempt(final ShmPort port, final ConnectRequest request, final ConnectHandler handler,
        final Path remoteDir, final ListenerFile listener)
    {
        this.port = port;
        this.request = request;
        this.handler = handler;
        this.remoteDir = remoteDir;
        this.listener = listener;
        this.listenerPid = listener.ownerPid();
        this.listenerStart = listener.ownerStart();
        this.id = ShmPort.nextId();
        this.since = System.nanoTime();
        this.nextTry = since;
    }

    /**
     * {@code dat_ep_connect} on {@code port}: the attempt, with its request posted or waiting for
     * the listener's directory's lock; null when it ended already (the handler was told:
     * unreachable, or rejected when nobody listens or the backlog is full). Never waits for the lock.
     *
     * @throws io.jdat.DatException DAT_PRIVILEGES_VIOLATION naming a path that is not safe to use,
     *     DAT_INSUFFICIENT_RESOURCES when no descriptor, space or name is left for the file
     */
    static ShmAttempt start(final ShmPort port, final ConnectRequest request, final ConnectHandler handler)
    {
        final Path root = port.transport.root;
        final String name = request.remoteAddress().name();
        // a directory or listening file that is not this user's alone is refused, naming it
        if (name == null || !ShmDirectory.validName(name) || !ShmDirectory.peerDir(root, name))
        {
            handler.unreachable();
            return null;
        }
        final Path remoteDir = root.resolve(name);
        final Path lp = ShmDirectory.listenerPath(remoteDir, request.remoteConnQual());
        ShmDirectory.check(lp, false);
        final ListenerFile lf = ListenerFile.open(lp);
        if (lf == null || !lf.listening() || !Liveness.alive(lf.ownerPid(), lf.ownerStart()))
        {
            if (lf != null)
            {
                lf.unmap();
                // the stale file goes now if nobody holds the lock, else later (a sweep, a listen)
                ShmDirectory.tryLocked(remoteDir, () ->
                {
                    if (ListenerFile.stale(lp))
                    {
                        ShmDirectory.delete(lp);
                    }
                });
            }
            // nobody listens: what a TCP reset is to tcp, a non-peer rejection, even while
            // another process keeps the directory's lock
            handler.rejected(false);
            return null;
        }
        final ShmAttempt a = new ShmAttempt(port, request, handler, remoteDir, lf);
        final int r;
        try
        {
            r = a.request();
        }
        catch (final RuntimeException e)
        {
            // no descriptor, space or name for the connection file: nothing is left behind
            lf.unmap();
            throw e;
        }
        if (r == REFUSED)
        {
            // the backlog is full, or the listener closed before it saw the request
            lf.unmap();
            handler.rejected(false);
            return null;
        }
        return a;
    }

    /**
     * Makes the connection file under the listener's directory's lock, if it is free now, and
     * posts the request into the listener's backlog. Progress lock held, or the attempt not
     * registered yet.
     */
    private int request()
    {
        if (!listener.listening())
        {
            return REFUSED;
        }
        final ConnectionFile[] made = new ConnectionFile[1];
        if (!ShmDirectory.tryLocked(remoteDir, () -> made[0] = create()))
        {
            return BUSY;
        }
        final ConnectionFile f = made[0];
        final byte[] pd = request.privateData() == null ? new byte[0] : request.privateData();
        f.writeRequest(request.remoteConnQual(), port.transport.address.name(), pd, request.ird(), request.ord());
        final int slot = listener.post(f.id);
        if (slot < 0 || !listener.listening() && listener.withdraw(slot, f.id))
        {
            f.unlink();
            f.unmap();
            return REFUSED;
        }
        listener.unmap();
        listener = null;
        file = f;
        return POSTED;
    }

    /** The connection file, with {@link #id} unless an earlier process of this pid left that name. */
    private ConnectionFile create()
    {
        for (int i = 0; i < ShmDirectory.NAME_TRIES; i++)
        {
            final ConnectionFile c = ConnectionFile.create(remoteDir, i == 0 ? id : ShmPort.nextId(),
                port.transport.ringSize);
            if (c != null)
            {
                return c;
            }
        }
        throw ShmDirectory.namesTaken(remoteDir);
    }

    @Override
    public long localPortQual()
    {
        final ConnectionFile f = file;
        return f != null ? f.id : id;
    }

    @Override
    public boolean cancel()
    {
        if (!decided.compareAndSet(false, true))
        {
            return false;
        }
        withdraw();
        cancelled = true;
        port.wake();
        return true;
    }

    /**
     * Tells the passive side that this side gave up (it sees its accept fail), unless it moved the
     * state on every try ({@link ConnectionFile#cancel()}).
     */
    private void withdraw()
    {
        final ConnectionFile f = file;
        if (f == null)
        {
            // not made yet: the round that would make it sees the cancel first, or withdraws it
            return;
        }
        try
        {
            f.cancel();
        }
        catch (final InternalError e)
        {
            // the peer shrank the file (Shared): it cannot be told
        }
    }

    @Override
    public int progress(final long now)
    {
        try
        {
            return step(now);
        }
        catch (final InternalError e)
        {
            // the peer shrank the file (Shared): nobody answers this attempt
            if (decided.compareAndSet(false, true))
            {
                release(true);
                handler.rejected(false);
            }
            else
            {
                release(true);
            }
            return 1;
        }
    }

    private int step(final long now)
    {
        if (cancelled)
        {
            release(true);
            return 1;
        }
        if (file == null)
        {
            return waiting(now);
        }
        final int s = file.state();
        switch (s)
        {
            case ConnectionFile.REQUESTED ->
            {
                if (now - nextCheck < 0)
                {
                    return 0;
                }
                nextCheck = now + port.transport.livenessNanos;
                // the process that took the request, or else the listener's, must still run
                final long taker = file.passivePid();
                final boolean alive = taker != 0 ? Liveness.alive(taker, file.passiveStart())
                    : Liveness.alive(listenerPid, listenerStart);
                if (alive || !decided.compareAndSet(false, true))
                {
                    return 0;
                }
                withdraw();
                release(true);
                handler.rejected(false);
                return 1;
            }
            case ConnectionFile.ACCEPTED ->
            {
                if (!decided.compareAndSet(false, true))
                {
                    return 0;
                }
                return established();
            }
            case ConnectionFile.REJECTED_PEER, ConnectionFile.REJECTED_NON_PEER ->
            {
                if (!decided.compareAndSet(false, true))
                {
                    return 0;
                }
                release(true);
                handler.rejected(s == ConnectionFile.REJECTED_PEER);
                return 1;
            }
            default ->
            {
                // no other state can follow REQUESTED from the passive side: a broken peer
                if (!decided.compareAndSet(false, true))
                {
                    return 0;
                }
                withdraw();
                release(true);
                handler.rejected(false);
                return 1;
            }
        }
    }

    /** No file yet: tries the lock again when it is time, and gives up after the lock's bound. */
    private int waiting(final long now)
    {
        if (now - nextTry < 0)
        {
            return 0;
        }
        int r;
        try
        {
            r = request();
        }
        catch (final RuntimeException e)
        {
            // no descriptor, space or name for the file, or a path refused: a transport failure
            r = REFUSED;
        }
        if (r == POSTED)
        {
            if (decided.get())
            {
                // cancelled while the file was made: the cancel found no file to withdraw
                withdraw();
            }
            return 1;
        }
        if (r == BUSY && now - since < ShmDirectory.LOCK_WAIT_NANOS)
        {
            nextTry = now + retry;
            retry = Math.min(retry << 1, RETRY_MAX_NANOS);
            return 0;
        }
        final boolean mine = decided.compareAndSet(false, true);
        release(true);
        if (mine)
        {
            handler.rejected(false);
        }
        return 1;
    }

    /** The passive side accepted: check its answer, confirm, start the channel. */
    private int established()
    {
        final byte[] pd = file.privateData(false);
        final int ird = file.passiveIrd();
        final int ord = file.passiveOrd();
        final long pid = file.passivePid();
        final long start = file.passiveStart();
        final ProcessHandle peer = pid == Liveness.SELF_PID ? null : Liveness.find(pid, start);
        if (pd == null || !ConnectionFile.validReads(ird, ord) || pid != Liveness.SELF_PID && peer == null
            || !file.transition(ConnectionFile.ACCEPTED, ConnectionFile.ESTABLISHED))
        {
            withdraw();
            release(true);
            handler.rejected(false);
            return 1;
        }
        release(false);
        final ShmChannel ch = new ShmChannel(port, file, true, handler, peer);
        handler.established(ch, pd, ird, ord);
        port.add(ch);
        return 1;
    }

    /** The attempt is over: the file's name goes; its mapping too unless the channel keeps it. */
    private void release(final boolean unmap)
    {
        if (released)
        {
            return;
        }
        released = true;
        if (listener != null)
        {
            listener.unmap();
            listener = null;
        }
        final ConnectionFile f = file;
        if (f != null)
        {
            f.unlink();
            if (unmap)
            {
                f.unmap();
            }
        }
        port.remove(this);
    }

    @Override
    public void shutdown()
    {
        if (decided.compareAndSet(false, true))
        {
            withdraw();
        }
        release(true);
    }

    @Override
    public String toString()
    {
        final ConnectionFile f = file;
        return "ShmAttempt[" + (f != null ? f : "waiting for the lock of " + remoteDir) + "]";
    }
}

package io.jdat.shm;

import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.PendingConnect;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The active side of a connection being set up: its {@link ConnectionFile} waits in the
 * listener's slot, then for the passive side's answer. Exactly one of the outcome (delivered by a
 * progress round) and {@link #cancel()} wins {@link #decided}; the winner alone changes the file's
 * state towards the peer and ends the attempt.
 */
final class ShmAttempt implements PendingConnect, Work
{
    private final ShmPort port;
    private final ConnectionFile file;
    private final ConnectHandler handler;
    private final long listenerPid;
    private final long listenerStart;
    private final AtomicBoolean decided = new AtomicBoolean();
    private volatile boolean cancelled;
    private boolean released;
    private long nextCheck;

    ShmAttempt(final ShmPort port, final ConnectionFile file, final ConnectHandler handler, final long listenerPid,
        final long listenerStart)
    {
        this.port = port;
        this.file = file;
        this.handler = handler;
        this.listenerPid = listenerPid;
        this.listenerStart = listenerStart;
    }

    @Override
    public long localPortQual()
    {
        return file.id;
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
        try
        {
            file.cancel();
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
        file.unlink();
        if (unmap)
        {
            file.unmap();
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
        return "ShmAttempt[" + file + "]";
    }
}

package io.jdat.shm;

import io.jdat.IaAddress;
import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;

/**
 * A listening connection qualifier: its {@link ListenerFile}, watched by the port's progress
 * rounds. Closing marks the file closed (so the qualifier can be listened on again), removes it
 * at once or, while another process keeps the directory's lock, once the lock is free, and
 * refuses what was left in the slots on the next round. Every peer that may ask can write the
 * file, so one may also shrink it: the first fault of its mapping wrecks the listener, which then
 * takes no more requests and says so once in the log; the IA and its other listeners go on.
 */
final class ShmListener implements Listener, Work
{
    private static final System.Logger LOG = System.getLogger("io.jdat.shm");
    /**
     * The longest a consumer's close waits for the address directory's lock: an honest holder
     * keeps it for a few file operations (a sweep of {@link ShmDirectory#SWEEP_MAX} names, tens of
     * milliseconds); past that the file is left marked closed for {@link LateRemovals}, which
     * frees the qualifier all the same, instead of stalling dat_psp_free for the whole
     * {@link ShmDirectory#LOCK_WAIT_NANOS}.
     */
    static final long CLOSE_WAIT_NANOS = 250_000_000L;

    private final ShmPort port;
    private final ListenerFile file;
    private final long qual;
    private final ListenHandler handler;
    /** close() was called (once). Guarded by this. */
    private boolean closing;
    /** The file is closed and removed: progress rounds may let the mapping go. */
    private volatile boolean closed;
    private boolean released;
    /** A fault of the mapping was seen: the file is not read or written again. */
    private volatile boolean wrecked;
    private long doorbell;

    ShmListener(final ShmPort port, final ListenerFile file, final long qual, final ListenHandler handler)
    {
        this.port = port;
        this.file = file;
        this.qual = qual;
        this.handler = handler;
    }

    @Override
    public long connQual()
    {
        return qual;
    }

    /**
     * Removes the file before it returns, also to a caller that finds another one closing (an
     * RSP's listener closes when its request arrives, and dat_rsp_free may come meanwhile): then
     * the qualifier is free for a new listener. A consumer's thread waits for the address
     * directory's lock ({@link #CLOSE_WAIT_NANOS} at most); a progress round (an RSP's
     * request arrived) never waits for it, since every connection of the port would wait with
     * the round. While another thread or process keeps the lock, the file is only marked closed
     * (the next listen on the qualifier may replace it) and this process removes it once the lock is
     * free ({@link LateRemovals}).
     */
    @Override
    public synchronized void close()
    {
        if (closing)
        {
            return;
        }
        closing = true;
        final Runnable remove = () ->
        {
            // false when the JVM's exit closed and removed it already (ListenerCleanup)
            if (wrecked || markClosed())
            {
                ShmDirectory.delete(file.path);
            }
        };
        boolean removed;
        try
        {
            if (port.progress.isHeldByCurrentThread())
            {
                removed = ShmDirectory.tryLocked(port.dir, remove);
            }
            else
            {
                removed = ShmDirectory.lockedUntil(port.dir, System.nanoTime() + CLOSE_WAIT_NANOS, remove);
            }
        }
        catch (final io.jdat.DatException e)
        {
            // another process kept the directory's lock, or its file is refused
            removed = false;
        }
        if (!removed)
        {
            // closed all the same: the file says so, and goes once the lock is free
            if (wrecked || markClosed())
            {
                LateRemovals.add(file.path);
            }
        }
        closed = true;
        port.wake();
    }

    /** No new request rang the doorbell. */
    @Override
    public boolean quiet()
    {
        return wrecked ? !closed : !closed && file.doorbell() == doorbell;
    }

    @Override
    public int progress(final long now)
    {
        if (closed)
        {
            release();
            return 1;
        }
        if (wrecked)
        {
            return 0;
        }
        final long d = doorbell();
        if (d == doorbell)
        {
            return 0;
        }
        doorbell = d;
        int n = 0;
        for (int i = 0; i < ListenerFile.SLOTS && !closed; i++)
        {
            final long id = take(i);
            if (id != 0)
            {
                n++;
                intake(id);
            }
        }
        return n;
    }

    /** The doorbell's count; the one already seen when the mapping faults. */
    private long doorbell()
    {
        try
        {
            return wrecked ? doorbell : file.doorbell();
        }
        catch (final InternalError e)
        {
            wreck(e);
            return doorbell;
        }
    }

    /** The request in slot {@code i}, taken; 0 if none, or when the mapping faults. */
    private long take(final int i)
    {
        try
        {
            return wrecked ? 0 : file.take(i);
        }
        catch (final InternalError e)
        {
            wreck(e);
            return 0;
        }
    }

    /** The mapping faulted: another process shrank the file. */
    private void wreck(final InternalError e)
    {
        if (!wrecked)
        {
            wrecked = true;
            LOG.log(System.Logger.Level.WARNING, "shm: the listener file of qualifier " + qual
                + " was shrunk by another process; no more connection requests arrive on it", e);
        }
    }

    private boolean markClosed()
    {
        try
        {
            return file.markClosed();
        }
        catch (final InternalError e)
        {
            wreck(e);
            return true;
        }
    }

    /** After closing: refuses what is left in the slots, unmaps, leaves the port. Progress lock held. */
    private void release()
    {
        if (released)
        {
            return;
        }
        released = true;
        for (int i = 0; i < ListenerFile.SLOTS && !wrecked; i++)
        {
            final long id = take(i);
            if (id != 0)
            {
                refuse(id);
            }
        }
        file.unmap();
        port.remove(this);
    }

    /**
     * This listener took connection {@code id} out of a slot: open and check the file,
     * and hand the request to the listener's consumer. Progress lock held.
     */
    private void intake(final long id)
    {
        final ConnectionFile f = ConnectionFile.open(port.dir, id);
        if (f == null)
        {
            // withdrawn meanwhile, or not a connection file: there is nobody to answer
            return;
        }
        final ShmRequest r;
        try
        {
            r = request(f);
        }
        catch (final InternalError e)
        {
            // the requester shrank its file while it was read: nobody to answer either
            f.unmap();
            return;
        }
        if (r == null)
        {
            f.unmap();
            return;
        }
        port.add(r);
        if (!handler.onRequest(r))
        {
            r.reject(false);
        }
    }

    /** The request read from its file, taken; null when it is refused (answered in the file). */
    private ShmRequest request(final ConnectionFile f)
    {
        if (f.state() != ConnectionFile.REQUESTED)
        {
            return null;
        }
        final String address = f.activeAddress();
        final byte[] pd = f.privateData(true);
        final int ird = f.activeIrd();
        final int ord = f.activeOrd();
        final long pid = f.activePid();
        final long start = f.activeStart();
        if (address == null || pd == null || !ConnectionFile.validReads(ird, ord) || !Liveness.alive(pid, start))
        {
            f.transition(ConnectionFile.REQUESTED, ConnectionFile.REJECTED_NON_PEER);
            return null;
        }
        f.writeTaker();
        return new ShmRequest(port, f, qual, IaAddress.named(address), f.activePort(), pd, ird, ord, pid,
            start);
    }

    /** Closed with requests still in the slots: each is refused as if nobody listened. */
    private void refuse(final long id)
    {
        final ConnectionFile f = ConnectionFile.open(port.dir, id);
        if (f != null)
        {
            try
            {
                f.transition(ConnectionFile.REQUESTED, ConnectionFile.REJECTED_NON_PEER);
            }
            catch (final InternalError e)
            {
                // the requester shrank its file: it cannot be told
            }
            f.unmap();
        }
    }

    @Override
    public void shutdown()
    {
        close();
        release();
    }

    @Override
    public String toString()
    {
        return "ShmListener[" + qual + (closed ? ", closed" : "") + "]";
    }
}

package io.jdat.shm;

import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;

/**
 * A listening connection qualifier: its {@link ListenerFile}, watched by the port's progress
 * rounds. Closing removes the file at once (so the qualifier can be listened on again) and
 * refuses what was left in the slots on the next round.
 */
final class ShmListener implements Listener, Work
{
    private final ShmPort port;
    private final ListenerFile file;
    private final long qual;
    private final ListenHandler handler;
    /** close() was called (once). Guarded by this. */
    private boolean closing;
    /** The file is closed and removed: progress rounds may let the mapping go. */
    private volatile boolean closed;
    private boolean released;
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
     * the qualifier is free for a new listener.
     */
    @Override
    public synchronized void close()
    {
        if (closing)
        {
            return;
        }
        closing = true;
        ShmDirectory.locked(port.dir, () ->
        {
            // false when the JVM's exit closed and removed it already (ListenerCleanup)
            if (file.markClosed())
            {
                ShmDirectory.delete(file.path);
            }
            return null;
        });
        closed = true;
        port.wake();
    }

    /** No new request rang the doorbell. */
    @Override
    public boolean quiet()
    {
        return !closed && file.doorbell() == doorbell;
    }

    @Override
    public int progress(final long now)
    {
        if (closed)
        {
            release();
            return 1;
        }
        final long d = file.doorbell();
        if (d == doorbell)
        {
            return 0;
        }
        doorbell = d;
        int n = 0;
        for (int i = 0; i < ListenerFile.SLOTS && !closed; i++)
        {
            final long id = file.take(i);
            if (id != 0)
            {
                n++;
                port.intake(id, qual, handler);
            }
        }
        return n;
    }

    /** After closing: refuses what is left in the slots, unmaps, leaves the port. Progress lock held. */
    private void release()
    {
        if (released)
        {
            return;
        }
        released = true;
        for (int i = 0; i < ListenerFile.SLOTS; i++)
        {
            final long id = file.take(i);
            if (id != 0)
            {
                port.refuse(id);
            }
        }
        file.unmap();
        port.remove(this);
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

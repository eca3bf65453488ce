package io.jdat.engine.channel;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.util.concurrent.TimeUnit;

/**
 * A {@link TransportPort} moved by an I/O thread of its own: the open and closing part every such
 * port shares. {@link #close} closes it once: it marks it closed under {@link #registry}, wakes
 * the I/O thread and waits for it to end (unless it is the caller), then lets the port shut down
 * what it holds.
 */
public abstract class ThreadedPort implements TransportPort
{
    /** How long {@link #close} waits for the I/O thread. */
    private static final long JOIN_MILLIS = TimeUnit.SECONDS.toMillis(10);

    /**
     * Guards what the port registers (listeners, attempts, connections) against {@link #close}:
     * whoever adds under it and finds the port {@link #closed} must not add.
     */
    protected final Object registry = new Object();
    /** Set once, under {@link #registry}, by {@link #close}. */
    protected volatile boolean closed;

    protected ThreadedPort()
    {
    }

    /** Whether {@link #close} has begun. */
    public final boolean isClosed()
    {
        return closed;
    }

    /** {@code DAT_INVALID_STATE}: what an operation on a closing port fails with. */
    protected static DatException closing()
    {
        return new DatException(DatReturnType.INVALID_STATE, "the IA instance is closing");
    }

    /** Throws {@link #closing()} once {@link #close} has begun. */
    protected final void checkOpen()
    {
        if (closed)
        {
            throw closing();
        }
    }

    @Override
    public final void close()
    {
        synchronized (registry)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        wakeIo();
        final Thread io = ioThread();
        if (Thread.currentThread() != io)
        {
            try
            {
                io.join(JOIN_MILLIS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        shutdown();
    }

    /** The thread that moves this port; it ends soon after it sees {@link #closed}. */
    protected abstract Thread ioThread();

    /** Makes the I/O thread look at {@link #closed} now, wherever it waits. */
    protected abstract void wakeIo();

    /**
     * Closes every listener and aborts every connection, once the I/O thread has ended (or did
     * not within the wait, or is the caller). Called once.
     */
    protected abstract void shutdown();
}

package io.jdat.tcp.channel;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The consumers' side of a {@link TcpPort}'s progress: an EVD poller reads the IA's connections
 * on its own thread ({@link #poll}), and one EVD waiter blocks in a select over them instead of
 * parking ({@link #awaitProgress}), so that arriving bytes wake the thread that wants them. While
 * consumers do this, the I/O thread leaves reading to them ({@link #active}). Two selectors of
 * their own watch the established channels for reading: one only ever {@code selectNow}ed by
 * pollers, one for the waiter.
 */
final class InlineProgress
{
    /**
     * Consumers that polled within this long are reading the connections; the I/O thread stays
     * out, and looks again this often. A poller that parks says so at once
     * ({@link #pollingStopped}); this bound only covers one that just stops calling, and a poller
     * descheduled for a few milliseconds on a busy machine.
     */
    static final long QUIET_MILLIS = 10;
    static final long QUIET_NANOS = QUIET_MILLIS * 1_000_000;
    /**
     * Up to this many connections, a polling consumer reads each of them directly (a read that
     * finds nothing costs what a selectNow does, and one that finds bytes saves the selectNow);
     * beyond, it asks the polling selector which ones have bytes.
     */
    private static final int DIRECT_POLL_MAX = 4;
    /**
     * A poll for one EVD reads only the connections that feed it, except every this many polls,
     * which read all of them (see {@link #poll}).
     */
    static final int FULL_ROUND_EVERY = 8;
    /** For selections that only release closed channels: readiness is level-triggered, nothing is lost. */
    private static final Consumer<SelectionKey> IGNORE = k ->
    {
    };
    /**
     * A waiter that made progress this recently reads on, polling, for up to this long before it
     * sleeps in its select again: while a stream flows, the next bytes are microseconds away,
     * and a sleep and wake-up per batch would cost more than they take to arrive.
     */
    private static final long STREAM_SPIN_NANOS = 20_000;
    private static final TcpChannel[] NO_CHANNELS = {};
    private static final System.Logger LOG = System.getLogger("io.jdat.tcp");

    private final TcpPort port;
    /** {@code port::selected}, made once: a method reference bound per call is an allocation per poll. */
    private final Consumer<SelectionKey> selected;
    /** The waiter's selected keys ({@link #awaitProgress}), gathered by {@link #gather}. One waiter at a time. */
    private SelectionKey[] ready = new SelectionKey[8];
    private int readyCount;
    private final Consumer<SelectionKey> gather = this::gather;
    /**
     * The established channels' read readiness, for consumers that poll ({@link #poll}); only ever {@code selectNow}.
     */
    private final Selector pollSelector;
    /** The same channels again, for the one consumer that blocks here instead of parking ({@link #awaitProgress}). */
    private final Selector waitSelector;
    /** The consumer thread blocked in {@link #awaitProgress}, if any. */
    private final AtomicReference<Thread> waiter = new AtomicReference<>();
    /**
     * The longest one blocking select lasts: the waiter comes back at least this often to see its
     * own deadline and the EVD's state. Tests lengthen it to tell a wake-up from a timeout.
     */
    long selectCapMillis = TcpPort.TICK_MILLIS;
    /**
     * Polls between two stamps of {@link #polledAt}: a poll that reads nothing takes about a
     * microsecond here, {@code System.nanoTime} 25 ns of it, and the stamp only needs to be well
     * within {@link #QUIET_NANOS}.
     */
    private static final int STAMP_EVERY = 16;
    /** When a consumer last polled ({@link #poll}); stamped every {@value #STAMP_EVERY} polls. */
    private volatile long polledAt = System.nanoTime() - 2 * QUIET_NANOS;
    /** Polls since the last stamp: a plain count polling threads share (a lost increment delays a stamp a little). */
    private int unstamped = STAMP_EVERY;
    /** The established connections, copied on change. Under the progress lock. */
    private TcpChannel[] channels = NO_CHANNELS;
    /** Where the next direct poll starts: after the connection that last had something. Under the progress lock. */
    private int nextDirect;
    /** Polls for one EVD since the last one that read every connection. Under the progress lock. */
    private int sinceFullRound;
    /** A poller is inside {@code pollSelector.selectNow}; a release then waits for its end. Under the progress lock. */
    private boolean inPollSelect;
    private boolean releaseDeferred;
    /** When the waiter last made progress ({@link #awaitProgress}); only the waiter uses it. */
    private long waiterProgressAt = System.nanoTime() - 2 * STREAM_SPIN_NANOS;

    /** Takes over both selectors (the port closes them). */
    InlineProgress(final TcpPort port, final Selector pollSelector, final Selector waitSelector)
    {
        this.port = port;
        this.selected = port::selected;
        this.pollSelector = pollSelector;
        this.waitSelector = waitSelector;
    }

    /** Whether consumers read the connections now: one polled within {@link #QUIET_NANOS}, or one waits here. */
    boolean active()
    {
        return System.nanoTime() - polledAt < QUIET_NANOS || waiter.get() != null;
    }

    /** Registers an established channel for reading by polling consumers. Under the progress lock. */
    SelectionKey registerForPolling(final SelectableChannel channel, final TcpChannel x) throws ClosedChannelException
    {
        final SelectionKey k = channel.register(pollSelector, SelectionKey.OP_READ, x);
        final TcpChannel[] more = Arrays.copyOf(channels, channels.length + 1);
        more[channels.length] = x;
        channels = more;
        return k;
    }

    /** Registers an established channel for a waiter that blocks in the transport. Under the progress lock. */
    SelectionKey registerForWaiting(final SelectableChannel channel, final TcpChannel x) throws ClosedChannelException
    {
        final SelectionKey k = channel.register(waitSelector, SelectionKey.OP_READ, x);
        // a select in progress would not watch the new connection
        wakeWaiter();
        return k;
    }

    /** True while a consumer is blocked in (or entering) {@link #awaitProgress}; for tests. */
    boolean hasWaiter()
    {
        return waiter.get() != null;
    }

    /** See {@link TcpPort#awaitProgress}. */
    boolean awaitProgress(final long nanos)
    {
        final Thread me = Thread.currentThread();
        if (port.isClosed() || port.progress.isHeldByCurrentThread() || !waiter.compareAndSet(null, me))
        {
            return false;
        }
        try
        {
            if (!port.quiet)
            {
                // the I/O thread watches for reads: let it see the waiter and stop first
                port.wake();
            }
            if (System.nanoTime() - waiterProgressAt < STREAM_SPIN_NANOS && readOn(nanos))
            {
                return true;
            }
            final long millis = Math.max(1, Math.min(selectCapMillis, (nanos + 999_999) / 1_000_000));
            // the keys are gathered into an array, not the selected-key set: its nodes and its
            // iterator would be allocations per wake-up
            readyCount = 0;
            if (waitSelector.select(gather, millis) > 0 || port.hasWork())
            {
                waiterProgressAt = System.nanoTime();
                port.progress.lock();
                try
                {
                    for (int i = 0; i < readyCount; i++)
                    {
                        port.selected(ready[i]);
                        ready[i] = null;
                    }
                    readyCount = 0;
                    port.runWork();
                }
                finally
                {
                    port.progress.unlock();
                }
            }
        }
        catch (final IOException | ClosedSelectorException e)
        {
            // the port closed: the EVD finds out why
        }
        finally
        {
            polledAt = System.nanoTime();
            waiter.set(null);
        }
        return true;
    }

    private void gather(final SelectionKey k)
    {
        if (readyCount == ready.length)
        {
            ready = java.util.Arrays.copyOf(ready, ready.length * 2);
        }
        ready[readyCount++] = k;
    }

    /** Polls the connections for up to {@link #STREAM_SPIN_NANOS} (at most {@code nanos}); true once it read. */
    private boolean readOn(final long nanos)
    {
        final long start = System.nanoTime();
        final long spin = Math.min(STREAM_SPIN_NANOS, nanos);
        while (!port.isClosed())
        {
            if (poll(null) > 0)
            {
                waiterProgressAt = System.nanoTime();
                return true;
            }
            if (System.nanoTime() - start >= spin)
            {
                return false;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    void wakeWaiter()
    {
        final Thread w = waiter.get();
        if (w != null && w != Thread.currentThread())
        {
            try
            {
                waitSelector.wakeup();
            }
            catch (final ClosedSelectorException e)
            {
                // closed: the waiter returns anyway
            }
        }
    }

    /** An established channel ended. Under the progress lock. */
    void unregisterForPolling(final TcpChannel x)
    {
        for (int i = 0; i < channels.length; i++)
        {
            if (channels[i] == x)
            {
                final TcpChannel[] fewer = new TcpChannel[channels.length - 1];
                System.arraycopy(channels, 0, fewer, 0, i);
                System.arraycopy(channels, i + 1, fewer, i, fewer.length - i);
                channels = fewer;
                return;
            }
        }
    }

    /**
     * A channel registered with the poll and wait selectors was closed. Its socket is released
     * only once each of them has selected since (a closed channel stays registered until then,
     * see {@link java.nio.channels.Selector}), and they select only while consumers poll more than
     * {@value #DIRECT_POLL_MAX} connections or block in {@link #awaitProgress}: let them select
     * now, or every connection of a long-lived IA keeps a file descriptor. Under the progress lock.
     */
    void released()
    {
        if (inPollSelect)
        {
            releaseDeferred = true;
            return;
        }
        try
        {
            pollSelector.selectNow(IGNORE);
            if (waiter.get() == null)
            {
                // a waiter blocked in it releases the channel when its select ends; one that
                // starts just now is woken, so that this selection does not wait for it
                waitSelector.wakeup();
                waitSelector.selectNow(IGNORE);
            }
        }
        catch (final IOException | ClosedSelectorException e)
        {
            // the port closed: closing the selectors released everything
        }
    }

    void pollingStopped()
    {
        polledAt = System.nanoTime() - 2 * QUIET_NANOS;
        // the next poll stamps at once
        unstamped = STAMP_EVERY;
        if (port.quiet)
        {
            // the I/O thread is not watching for reads: make it look again now
            port.wake();
        }
    }

    /**
     * See {@link TcpPort#poll}. With up to {@value #DIRECT_POLL_MAX} connections, a poll for an EVD
     * reads only the connections whose endpoints complete into it: the ones whose bytes the
     * polling thread waits for, one read each per turn of its spin instead of one for every
     * connection of the IA (the others' reads find nothing most of the time and cost as much).
     * No connection starves: every {@value #FULL_ROUND_EVERY}th poll reads all of them, a few
     * microseconds apart while a consumer spins, so RDMA Write targets, Read Responses,
     * connections whose EVD nobody polls and blocked sends keep moving; once no one polls for
     * {@link #QUIET_NANOS} the I/O thread reads again. A poll for {@code null} (a waiter's spin)
     * reads them all in turn, as every poll did before. With more connections a poll asks the
     * polling selector, which reads all that have bytes, as before.
     */
    int poll(final Object evd)
    {
        if (++unstamped >= STAMP_EVERY)
        {
            unstamped = 0;
            polledAt = System.nanoTime();
        }
        // the I/O thread waiting for the lock goes first: a consumer polling in a tight loop
        // would otherwise keep it out (the lock is not fair) and starve ticks and tasks
        final var progress = port.progress;
        if (port.isClosed() || progress.hasQueuedThreads() || progress.isHeldByCurrentThread() || !progress.tryLock())
        {
            return 0;
        }
        try
        {
            final TcpChannel[] these = channels;
            int n = 0;
            if (these.length <= DIRECT_POLL_MAX)
            {
                final boolean full = evd != null && ++sinceFullRound >= FULL_ROUND_EVERY;
                if (full)
                {
                    sinceFullRound = 0;
                }
                // outside a full round, the first connection with something ends the poll, so
                // that its completion reaches the consumer without waiting for reads of the others
                // that find nothing; they come first in the next poll. A full round reads all.
                int at = nextDirect;
                for (int i = 0; i < these.length && (n == 0 || full); i++)
                {
                    if (at >= these.length)
                    {
                        at = 0;
                    }
                    final TcpChannel c = these[at++];
                    if (evd != null && !full && !c.feeds(evd))
                    {
                        continue;
                    }
                    try
                    {
                        n += c.pollDirect();
                    }
                    catch (final RuntimeException e)
                    {
                        LOG.log(System.Logger.Level.ERROR, "tcp: " + c + " failed", e);
                        c.failed();
                    }
                }
                nextDirect = at;
            }
            else
            {
                // a channel that ends inside this selection is released after it (no nested select)
                inPollSelect = true;
                try
                {
                    n = pollSelector.selectNow(selected);
                }
                finally
                {
                    inPollSelect = false;
                }
                if (releaseDeferred)
                {
                    releaseDeferred = false;
                    released();
                }
            }
            if (port.hasWork())
            {
                n++;
                port.runWork();
            }
            return n;
        }
        catch (final IOException | ClosedSelectorException e)
        {
            return 0;
        }
        finally
        {
            progress.unlock();
        }
    }

    /** Closes both selectors. */
    void close() throws IOException
    {
        try
        {
            pollSelector.close();
        }
        finally
        {
            waitSelector.close();
        }
    }
}

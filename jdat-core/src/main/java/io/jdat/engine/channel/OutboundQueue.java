package io.jdat.engine.channel;

import org.jctools.queues.atomic.MpscChunkedAtomicArrayQueue;

/**
 * What the engine hands a channel, in order: messages ({@link Channel#post}), a Terminate
 * ({@link Channel#terminate}) and a graceful close ({@link Channel#disconnect}). Any thread
 * offers, without a lock; the one thread that makes progress on the channel polls and tells
 * the three apart with {@link #isClose} and {@code instanceof}.
 */
public final class OutboundQueue
{
    private static final Object CLOSE = new Object();

    private final MpscChunkedAtomicArrayQueue<Object> queue = new MpscChunkedAtomicArrayQueue<>(256, 1 << 24);

    /** An empty queue. */
    public OutboundQueue()
    {
    }

    public void offer(final OutboundMessage message)
    {
        queue.offer(message);
    }

    public void offerTerminate(final TerminateInfo info)
    {
        queue.offer(info);
    }

    public void offerClose()
    {
        queue.offer(CLOSE);
    }

    /** The oldest entry: an {@link OutboundMessage}, a {@link TerminateInfo} or the close; null if none. */
    public Object poll()
    {
        return queue.poll();
    }

    /** Whether {@code entry} (from {@link #poll}) is the graceful close. */
    public static boolean isClose(final Object entry)
    {
        return entry == CLOSE;
    }

    public boolean isEmpty()
    {
        return queue.isEmpty();
    }

    public void clear()
    {
        queue.clear();
    }
}

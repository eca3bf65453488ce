package io.jdat.engine;

import io.jdat.DatEvent;

/**
 * An EVD's ring of a {@code nonthreadsafe} IA with no EVD around it, driven as the EVD drives it:
 * the operations of its concurrency proofs. A post that finds the ring closed tries again, as the
 * EVD's would under its lock once a resize is over.
 */
public final class EventRingHarness
{
    private final EventRing ring;

    /** A ring of {@code capacity} records, single-consumer (as a {@code nonthreadsafe} IA's EVD has). */
    public EventRingHarness(final int capacity)
    {
        ring = new EventRing(capacity, false, true);
    }

    /** A completion claimed on the consumer's thread, in its own call: "OK" or "FULL". */
    public String consumerPost(final int value)
    {
        while (true)
        {
            final long p = ring.claimAsConsumer();
            if (p != EventRing.CLOSED)
            {
                return publish(p, value);
            }
            Thread.onSpinWait();
        }
    }

    /** A completion claimed on any other thread: "OK" or "FULL". */
    public String otherPost(final int value)
    {
        while (true)
        {
            final long p = ring.claim();
            if (p != EventRing.CLOSED)
            {
                return publish(p, value);
            }
            Thread.onSpinWait();
        }
    }

    /** The consumer's take: "TOOK value" or "EMPTY". */
    public String take()
    {
        final DatEvent event = new DatEvent();
        return ring.take(event, null, 1, false) < 0 ? "EMPTY" : "TOOK " + event.software.pointer;
    }

    /** A resize's close, its count of the queued events, and (as when they do not fit) its reopen. */
    public int closeCountReopen()
    {
        ring.close();
        final int n = ring.count();
        ring.reopen();
        return n;
    }

    private String publish(final long p, final int value)
    {
        if (p == EventRing.FULL)
        {
            return "FULL";
        }
        ring.entry(p).fillSoftware(value);
        ring.publish(p, true);
        return "OK";
    }
}

package io.jdat.engine;

import io.jdat.DatEvent;

/**
 * A {@code nonthreadsafe} IA's EVD ring that another thread may move into a ring that counts
 * notifications, as {@link EvdImpl}'s {@code countNotifications} does under the EVD's lock when a
 * producer brings the first event that does not notify. The consumer takes as the EVD's dequeue
 * does: a ring found empty while a move is under way is looked at again once it is over.
 */
public final class MovingEventRingHarness
{
    private volatile EventRing ring;
    private volatile boolean moving;

    /** A single-consumer ring of {@code capacity} records that does not count notifications yet. */
    public MovingEventRingHarness(final int capacity)
    {
        ring = new EventRing(capacity, false, true);
    }

    /** A completion from a thread other than the consumer's: "OK" or "FULL". */
    public synchronized String otherPost(final int value)
    {
        final EventRing r = ring;
        final long p = r.claim();
        if (p == EventRing.FULL)
        {
            return "FULL";
        }
        r.entry(p).fillSoftware(value);
        r.publish(p, true);
        return "OK";
    }

    /** The move a first event that does not notify causes, on a producer's thread. */
    public synchronized void moveToCounting()
    {
        final EventRing r = ring;
        if (!r.counting())
        {
            moving = true;
            ring = r.moveTo(r.capacity(), true);
            moving = false;
        }
    }

    /** The consumer's take: "TOOK value" or "EMPTY". */
    public String take()
    {
        final DatEvent event = new DatEvent();
        while (true)
        {
            final EventRing r = ring;
            if (r.take(event, null, 1, false) >= 0)
            {
                return "TOOK " + event.software.pointer;
            }
            if (!moving && r == ring)
            {
                return "EMPTY";
            }
            Thread.onSpinWait();
        }
    }
}

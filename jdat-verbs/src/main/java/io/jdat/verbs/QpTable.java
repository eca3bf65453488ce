package io.jdat.verbs;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToIntFunction;

/**
 * Endpoints by QP number, for the completions of SRQ buffers (which name the QP, not a slot of
 * the endpoint). Open addressing with linear probing; the key is the endpoint's {@code qpNum}.
 * Writers take the table's lock and delete by shifting back the entries that follow, so there
 * are no tombstones; a reader looks without the lock and, when it finds nothing (a shift may
 * have moved the entry past it), looks again under the lock. Lookups allocate nothing.
 */
final class QpTable<T>
{
    private final AtomicReferenceArray<T> slots;
    private final ToIntFunction<T> qpNum;
    private final int mask;

    /** {@code capacity}: a power of two, above the most endpoints ever in it at once. */
    QpTable(final int capacity, final ToIntFunction<T> qpNum)
    {
        this.qpNum = qpNum;
        if (Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("capacity " + capacity + " is not a power of two");
        }
        this.slots = new AtomicReferenceArray<>(capacity);
        this.mask = capacity - 1;
    }

    private int home(final int key)
    {
        return (key * 0x9E3779B9) >>> 7 & mask;
    }

    synchronized void put(final T ep)
    {
        int i = home(qpNum.applyAsInt(ep));
        for (int n = 0; n <= mask; n++, i = (i + 1) & mask)
        {
            final T e = slots.get(i);
            if (e == null || e == ep)
            {
                slots.set(i, ep);
                return;
            }
        }
        throw new IllegalStateException("QP table full");
    }

    synchronized void remove(final T ep)
    {
        int i = home(qpNum.applyAsInt(ep));
        for (int n = 0; n <= mask; n++, i = (i + 1) & mask)
        {
            final T e = slots.get(i);
            if (e == null)
            {
                return;
            }
            if (e == ep)
            {
                slots.set(i, null);
                shiftBack(i);
                return;
            }
        }
    }

    /** Moves later entries of the probe run into the hole at {@code hole} where their home allows. */
    private void shiftBack(final int hole)
    {
        int free = hole;
        int i = (hole + 1) & mask;
        while (true)
        {
            final T e = slots.get(i);
            if (e == null)
            {
                return;
            }
            final int h = home(qpNum.applyAsInt(e));
            // e may move to free when its home is not in the cyclic range (free, i]
            final boolean inRange = free <= i ? (h > free && h <= i) : (h > free || h <= i);
            if (!inRange)
            {
                slots.set(free, e);
                slots.set(i, null);
                free = i;
            }
            i = (i + 1) & mask;
        }
    }

    T get(final int key)
    {
        final T e = find(key);
        if (e != null)
        {
            return e;
        }
        synchronized (this)
        {
            return find(key);
        }
    }

    private T find(final int key)
    {
        int i = home(key);
        for (int n = 0; n <= mask; n++, i = (i + 1) & mask)
        {
            final T e = slots.get(i);
            if (e == null)
            {
                return null;
            }
            if (qpNum.applyAsInt(e) == key)
            {
                return e;
            }
        }
        return null;
    }
}

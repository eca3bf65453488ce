package io.jdat.engine.channel;

import java.util.Arrays;

/**
 * The messages a channel has written and not yet reported sent, oldest first, each with the
 * position in its byte stream or ring just after its last byte: once the peer (or the kernel) has
 * taken everything up to that position, the message is reported with
 * {@link ChannelHandler#onSent}, in post order. A ring of a power-of-two size that doubles when
 * full; one thread uses it (whoever makes progress on the channel).
 */
public final class SentLog
{
    private OutboundMessage[] messages = new OutboundMessage[64];
    private long[] ends = new long[64];
    private int first;
    private int count;

    /** An empty log. */
    public SentLog()
    {
    }

    /** Appends {@code m}, whose last byte ends at stream position {@code end}. */
    public void add(final OutboundMessage m, final long end)
    {
        if (count == messages.length)
        {
            final int n = count * 2;
            final OutboundMessage[] ms = new OutboundMessage[n];
            final long[] es = new long[n];
            for (int i = 0; i < count; i++)
            {
                final int at = (first + i) & (messages.length - 1);
                ms[i] = messages[at];
                es[i] = ends[at];
            }
            messages = ms;
            ends = es;
            first = 0;
        }
        final int at = (first + count) & (messages.length - 1);
        messages[at] = m;
        ends[at] = end;
        count++;
    }

    /**
     * Removes and returns the oldest message if it ends at or before {@code position} (compared
     * as a running counter, so a wrap of the long is harmless), else null.
     */
    public OutboundMessage takeReached(final long position)
    {
        if (count == 0 || ends[first] - position > 0)
        {
            return null;
        }
        final OutboundMessage m = messages[first];
        messages[first] = null;
        first = (first + 1) & (messages.length - 1);
        count--;
        return m;
    }

    public boolean isEmpty()
    {
        return count == 0;
    }

    /** Forgets every message (nothing is reported). */
    public void clear()
    {
        Arrays.fill(messages, null);
        first = 0;
        count = 0;
    }
}

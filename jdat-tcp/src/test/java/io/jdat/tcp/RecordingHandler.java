package io.jdat.tcp;

import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.TerminateInfo;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Records what a decoder delivers and checks, inside each call, that the payload lies within the
 * bytes the decoder was given ({@link #window}).
 */
final class RecordingHandler implements ChannelHandler
{
    final List<Event> events = new ArrayList<>();
    /** Reject (return false) the segment with this index; -1 never. */
    int rejectAt = -1;
    /** Copy payloads into events (off for allocation measurements). */
    boolean copy = true;
    /** Callbacks seen. */
    int calls;
    /** Bytes of payload seen. */
    long payloadBytes;
    /** Sees every payload during its callback, if set. */
    Probe probe;
    private long windowStart;
    private long windowEnd = Long.MAX_VALUE;

    /** Looks at a payload while it is valid. */
    @FunctionalInterface
    interface Probe
    {
        void payload(MemorySegment src, long off, int len);
    }

    /** The bytes (indexes of the receive buffer) the decoder may deliver from. */
    void window(final long start, final long end)
    {
        windowStart = start;
        windowEnd = end;
    }

    private boolean record(final Event event)
    {
        final boolean accept = calls != rejectAt;
        calls++;
        if (copy)
        {
            events.add(event);
        }
        return accept;
    }

    private byte[] payload(final MemorySegment src, final long off, final int len)
    {
        if (len < 0 || off < windowStart || off + len > windowEnd || off + len > src.byteSize())
        {
            throw new AssertionError("payload [" + off + ", " + (off + len) + ") outside the input [" + windowStart
                + ", " + windowEnd + ") of a " + src.byteSize() + "-byte buffer");
        }
        payloadBytes += len;
        if (probe != null)
        {
            probe.payload(src, off, len);
        }
        return copy ? src.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE) : null;
    }

    @Override
    public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
        final MemorySegment src, final long off, final int len)
    {
        final byte[] data = payload(src, off, len);
        return record(copy ? Event.send(msn, mo, last, solicited, data) : null);
    }

    @Override
    public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src, final long off,
        final int len)
    {
        final byte[] data = payload(src, off, len);
        return record(copy ? Event.write(stag, to, last, data) : null);
    }

    @Override
    public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
        final int srcStag, final long srcTo)
    {
        return record(copy ? Event.readRequest(msn, sinkStag, sinkTo, size, srcStag, srcTo) : null);
    }

    @Override
    public boolean onReadResponse(final int stag, final long to, final boolean last, final MemorySegment src,
        final long off, final int len)
    {
        final byte[] data = payload(src, off, len);
        return record(copy ? Event.readResponse(stag, to, last, data) : null);
    }

    @Override
    public void onTerminate(final TerminateInfo info)
    {
        record(Event.terminate(info));
    }

    @Override
    public void onSent(final OutboundMessage message)
    {
        throw new AssertionError("a decoder never reports sent messages");
    }

    @Override
    public void onClosed(final CloseReason reason)
    {
        throw new AssertionError("a decoder never closes");
    }
}

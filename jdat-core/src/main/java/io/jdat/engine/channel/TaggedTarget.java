package io.jdat.engine.channel;

import java.lang.foreign.MemorySegment;

/**
 * Where the payload of a segment goes, for a transport that moves it there itself
 * ({@link ChannelHandler#writeTarget}, {@link ChannelHandler#readResponseTarget}, and for the
 * untagged Send {@link ChannelHandler#sendTarget}): the segment's bytes of {@code memory} from
 * {@code offset}. One per connection, filled by the engine, read by the transport; reused.
 */
public final class TaggedTarget
{
    /** The registered memory the payload lands in (the whole region's segment). */
    public MemorySegment memory;
    /** Where in {@link #memory} the first payload byte goes. */
    public long offset;

    /** An empty target, for a placement to fill. */
    public TaggedTarget()
    {
    }
}

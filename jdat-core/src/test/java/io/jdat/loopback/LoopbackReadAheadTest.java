package io.jdat.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A thread waiting on one end reads ahead the receive its next Send goes into: the one at the
 * other end of the link, never its own.
 */
class LoopbackReadAheadTest
{
    /** An end that answers the read-ahead with {@link #posted} and counts the looks. */
    private static final class End implements ChannelHandler
    {
        volatile boolean posted;
        int looks;

        @Override
        public boolean readNextReceive()
        {
            looks++;
            return posted;
        }

        @Override
        public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
            final MemorySegment src, final long off, final int len)
        {
            return true;
        }

        @Override
        public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            return true;
        }

        @Override
        public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
            final int srcStag, final long srcTo)
        {
            return true;
        }

        @Override
        public boolean onReadResponse(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            return true;
        }

        @Override
        public void onTerminate(final TerminateInfo info)
        {
        }

        @Override
        public void onSent(final OutboundMessage message)
        {
        }

        @Override
        public void onClosed(final CloseReason reason)
        {
        }
    }

    @Test
    void eachEndReadsThePeersNextReceive()
    {
        final LoopbackTransport transport = new LoopbackTransport("loopback-read-ahead", EngineConfig.parse(""));
        final LoopbackPort port = new LoopbackPort(transport, LoopbackNetwork.INSTANCE);
        final End active = new End();
        final End passive = new End();
        final LoopbackLink link = new LoopbackLink(port, port, active, passive);
        link.activeEnd.ready();
        link.passiveEnd.ready();

        assertFalse(link.activeEnd.readPeerReceive(), "nothing posted at the passive end");
        passive.posted = true;
        assertTrue(link.activeEnd.readPeerReceive(), "a receive posted at the passive end");
        assertFalse(link.passiveEnd.readPeerReceive(), "nothing posted at the active end");
        assertEquals(2, passive.looks, "the active end's looks are at the passive end");
        assertEquals(1, active.looks, "the passive end's look is at the active end");
        port.close();
    }
}

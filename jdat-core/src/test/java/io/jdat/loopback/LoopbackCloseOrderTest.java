package io.jdat.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A loopback connection closed by the peer right after it got a message: the sender hears that
 * the message was sent before it hears of the close, so its Send does not complete flushed
 * although the peer received it (which a network transport never does: there the Send completes
 * before the peer can see it).
 */
class LoopbackCloseOrderTest
{
    /** A zero-length Send. */
    private static final OutboundMessage SEND = new OutboundMessage(0).describeSend(1, false);

    /** Records what a connection end hears; {@code onSent} can be made slow. */
    private static final class Recorder implements ChannelHandler
    {
        final Queue<String> heard = new ConcurrentLinkedQueue<>();
        final CountDownLatch received = new CountDownLatch(1);
        final long sentDelayMillis;

        Recorder(final long sentDelayMillis)
        {
            this.sentDelayMillis = sentDelayMillis;
        }

        @Override
        public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
            final MemorySegment src, final long off, final int len)
        {
            heard.add("send " + msn);
            received.countDown();
            return true;
        }

        @Override
        public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            heard.add("write");
            return true;
        }

        @Override
        public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
            final int srcStag, final long srcTo)
        {
            heard.add("read request");
            return true;
        }

        @Override
        public boolean onReadResponse(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            heard.add("read response");
            return true;
        }

        @Override
        public void onTerminate(final TerminateInfo info)
        {
            heard.add("terminate");
        }

        @Override
        public void onSent(final OutboundMessage message)
        {
            try
            {
                // the delivering thread is descheduled right after the peer got the message
                Thread.sleep(sentDelayMillis);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            heard.add("sent " + message.msn());
        }

        @Override
        public void onClosed(final CloseReason reason)
        {
            heard.add("closed " + reason);
        }
    }

    @Test
    void aMessageThePeerGotIsReportedSentBeforeThePeersClose() throws InterruptedException
    {
        final LoopbackTransport transport = new LoopbackTransport("loopback-close-order", EngineConfig.parse(""));
        final LoopbackPort port = new LoopbackPort(transport, LoopbackNetwork.INSTANCE);
        final Recorder sender = new Recorder(300);
        final Recorder receiver = new Recorder(0);
        final LoopbackLink link = new LoopbackLink(port, port, sender, receiver);
        link.activeEnd.ready();
        link.passiveEnd.ready();

        final Thread delivering = Thread.ofPlatform().daemon().name("test-sender").start(() ->
        {
            link.activeEnd.post(SEND);
            link.activeEnd.flush();
        });
        assertTrue(receiver.received.await(5, TimeUnit.SECONDS), "the Send never arrived");
        // the receiver closes as soon as it has the message, while the sender is not yet told it was sent
        link.passiveEnd.disconnect();
        delivering.join(5000);

        assertEquals(List.of("sent 1", "closed PEER_CLOSED"), List.copyOf(sender.heard));
        assertEquals(List.of("send 1", "closed LOCAL_CLOSE"), List.copyOf(receiver.heard));
        port.close();
    }
}

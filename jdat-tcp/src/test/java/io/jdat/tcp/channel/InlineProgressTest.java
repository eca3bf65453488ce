package io.jdat.tcp.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.channel.AcceptHandler;
import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.engine.channel.TransportContext;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Who makes progress on a {@code tcp} port (see {@code TcpPort}): a thread that posts while the
 * port is idle writes its own message; a thread that polls reads the connection itself, and
 * while it polls the I/O thread leaves reading to it; when polling stops, the I/O thread reads
 * again. Observed through the thread each channel callback runs on.
 */
class InlineProgressTest
{
    private static final int MESSAGES = 20;
    /** Messages sent at most until the polling thread has read one itself. */
    private static final int MAX_MESSAGES = 2_000;
    private static final AtomicInteger IDS = new AtomicInteger(1000);

    private TcpPort clientPort;
    private TcpPort serverPort;
    /** The EVDs, as the port sees them: objects a poll names. */
    private static final Object POLLED_EVD = new Object();
    private static final Object OTHER_EVD = new Object();

    private TcpTransport transport;
    private final Recorder client = new Recorder(new Object());
    private final Recorder server = new Recorder(POLLED_EVD);
    private Channel clientChannel;

    @BeforeEach
    void connect() throws Exception
    {
        transport = new TcpTransport(EngineConfig.parse(""));
        clientPort = (TcpPort) transport.open(context("client"));
        serverPort = (TcpPort) transport.open(context("server"));
        clientChannel = connect(client, server);
    }

    /** Connects the client port to the server port; returns the client's end. */
    private Channel connect(final Recorder clientSide, final Recorder serverSide) throws Exception
    {
        final CompletableFuture<Channel> accepted = new CompletableFuture<>();
        final long qual = serverPort.listenAny(request ->
        {
            request.accept(new byte[0], 4, 4, serverSide.accepting(accepted));
            return true;
        }).connQual();
        final CompletableFuture<Channel> established = new CompletableFuture<>();
        clientPort.connect(new ConnectRequest(serverPort.address(), qual, new byte[0], 4, 4),
            clientSide.connecting(established));
        final Channel c = established.get(10, TimeUnit.SECONDS);
        assertNotNull(accepted.get(10, TimeUnit.SECONDS));
        return c;
    }

    @AfterEach
    void close()
    {
        clientPort.close();
        serverPort.close();
    }

    @Test
    void aThreadThatPostsToAnIdlePortWritesItsMessageItself() throws Exception
    {
        final String me = Thread.currentThread().getName();
        int mine = 0;
        for (int i = 0; i < MESSAGES; i++)
        {
            clientChannel.post(send(i, new byte[] {(byte) i}));
            clientChannel.flush();
            final String sentOn = client.sent.poll(10, TimeUnit.SECONDS);
            assertNotNull(sentOn, "message " + i + " was never reported sent");
            mine += me.equals(sentOn) ? 1 : 0;
            assertNotNull(server.received.poll(10, TimeUnit.SECONDS), "message " + i + " never arrived");
        }
        // the client's I/O thread holds the lock only for its 100 ms ticks: posts find it free
        assertTrue(mine > 0, "none of " + MESSAGES + " messages was written by the posting thread");
    }

    @Test
    void aPollingThreadReadsItselfAndTheIoThreadReadsAgainWhenPollingStops() throws Exception
    {
        final String me = Thread.currentThread().getName();
        pollUntilQuiet();
        int mine = 0;
        int sent = 0;
        // not all, and on a loaded machine maybe none of the first few: whenever this thread is
        // descheduled for longer than the quiet bound, the I/O thread reads again, as it must
        while (sent < MESSAGES || mine == 0 && sent < MAX_MESSAGES)
        {
            clientChannel.post(send(sent, new byte[] {(byte) sent}));
            clientChannel.flush();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String receivedOn;
            while ((receivedOn = server.received.poll()) == null)
            {
                serverPort.poll();
                assertTrue(System.nanoTime() - deadline < 0, "message " + sent + " never arrived");
            }
            mine += me.equals(receivedOn) ? 1 : 0;
            sent++;
        }
        assertTrue(mine > 0, "none of " + sent + " messages was read by the polling thread");

        serverPort.pollingStopped();
        // at once, not after the quiet bound (which alone would bring the I/O thread back below)
        assertFalse(serverPort.consumers.active(), "the port still counts on the thread that stopped polling");
        clientChannel.post(send(sent, new byte[] {1}));
        clientChannel.flush();
        final String receivedOn = server.received.poll(10, TimeUnit.SECONDS);
        assertNotNull(receivedOn, "after polling stopped, the I/O thread did not read the next message");
        assertTrue(receivedOn.endsWith("-io"), "read on " + receivedOn);
    }

    @Test
    void aPollerThatJustGoesAwayLeavesNothingUnread() throws Exception
    {
        pollUntilQuiet();
        // no pollingStopped(): the I/O thread notices within its quiet bound (10 ms)
        clientChannel.post(send(0, new byte[] {7}));
        clientChannel.flush();
        final String receivedOn = server.received.poll(10, TimeUnit.SECONDS);
        assertNotNull(receivedOn, "a message sent after the poller left was never read");
        assertTrue(receivedOn.endsWith("-io"), "read on " + receivedOn);
        assertEquals(0, server.closed.size(), "the connection ended: " + server.closed);
    }

    @Test
    void aWaiterBlockedInTheTransportReadsTheMessageThatWakesIt() throws Exception
    {
        final CompletableFuture<String> waited = CompletableFuture.supplyAsync(() ->
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.received.isEmpty() && System.nanoTime() - deadline < 0)
            {
                assertTrue(serverPort.awaitProgress(TimeUnit.SECONDS.toNanos(5)), "a second waiter in the transport");
            }
            return Thread.currentThread().getName();
        }, r -> Thread.ofPlatform().name("evd-waiter").daemon().start(r));
        // let it block in the transport and the I/O thread stop watching for reads, then send (a
        // fixed sleep was not enough on a loaded machine, nor the waiter alone: until the I/O
        // thread has seen the waiter it still reads, and could read the message first)
        final long registered = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(serverPort.consumers.hasWaiter() && serverPort.quiet) && System.nanoTime() - registered < 0)
        {
            Thread.sleep(1);
        }
        assertTrue(serverPort.consumers.hasWaiter(), "the waiter never blocked in the transport");
        assertTrue(serverPort.quiet, "the I/O thread never left the reads to the waiter");
        clientChannel.post(send(0, new byte[] {3}));
        clientChannel.flush();
        final String waiter = waited.get(10, TimeUnit.SECONDS);
        assertEquals(waiter, server.received.poll(1, TimeUnit.SECONDS), "the message was read by another thread");
    }

    @Test
    void aWaiterBlockedInTheTransportReturnsWhenWokenAndOnlyOneBlocksAtATime() throws Exception
    {
        // one awaitProgress blocks for at most one select and returns at once when it finds work
        // (bytes an earlier test left, say): the waiter calls it again and again until told to
        // stop, as dat_evd_wait does, so that this thread finds it blocked. Each select may last
        // a minute here, not the usual tick: only the wake-up can end it within the ten seconds
        // this test waits for the waiter
        serverPort.consumers.selectCapMillis = TimeUnit.MINUTES.toMillis(1);
        try
        {
            final AtomicBoolean stop = new AtomicBoolean();
            final CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() ->
            {
                while (!stop.get())
                {
                    serverPort.awaitProgress(TimeUnit.MINUTES.toNanos(1));
                }
                return System.nanoTime();
            }, r -> Thread.ofPlatform().daemon().start(r));
            final long registered = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!serverPort.consumers.hasWaiter() && System.nanoTime() - registered < 0)
            {
                Thread.onSpinWait();
            }
            assertTrue(serverPort.consumers.hasWaiter(), "the first waiter never blocked in the transport");
            // a second waiter is turned away while the first blocks; this thread may come in the
            // moment between two of the first one's calls and block in its place (for at most its
            // own second), so it tries a few times: where two could block at once, every try
            // would block and return true
            boolean refused = false;
            for (int i = 0; i < 5 && !refused; i++)
            {
                refused = !serverPort.awaitProgress(TimeUnit.SECONDS.toNanos(1));
            }
            assertTrue(refused, "two waiters blocked in the transport");
            stop.set(true);
            serverPort.wakeWaiter();
            try
            {
                waited.get(10, TimeUnit.SECONDS);
            }
            catch (final TimeoutException e)
            {
                fail("the wake-up did not end the waiter's select");
            }
        }
        finally
        {
            serverPort.consumers.selectCapMillis = TcpPort.TICK_MILLIS;
        }
    }

    @Test
    void trafficForAnEvdNobodyPollsArrivesWhileAnotherEvdIsPolled() throws Exception
    {
        // a second connection whose endpoint completes into an EVD that nobody polls: the
        // poller of the first connection's EVD must still read it (the I/O thread stays out
        // while a consumer polls), Sends as well as RDMA Writes that land without a completion
        final Recorder otherClient = new Recorder(new Object());
        final Recorder other = new Recorder(OTHER_EVD);
        final Channel otherChannel = connect(otherClient, other);
        final String me = Thread.currentThread().getName();
        final byte[] payload = new byte[64];
        while (!serverPort.quiet)
        {
            serverPort.poll(POLLED_EVD);
        }
        int sendsMine = 0;
        int writesMine = 0;
        int sent = 0;
        // as above: whenever this thread is descheduled for longer than the quiet bound, the
        // I/O thread reads, as it must; some of each kind must be this poller's own reads
        while (sent < MESSAGES || (sendsMine == 0 || writesMine == 0) && sent < MAX_MESSAGES)
        {
            otherChannel.post(send(sent, payload));
            otherChannel.post(new OutboundMessage(1).describeWrite(1, 0)
                .addPayload(MemorySegment.ofArray(payload), 0, payload.length));
            otherChannel.flush();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String receivedOn = null;
            String writtenOn = null;
            while (receivedOn == null || writtenOn == null)
            {
                serverPort.poll(POLLED_EVD);
                receivedOn = receivedOn != null ? receivedOn : other.received.poll();
                writtenOn = writtenOn != null ? writtenOn : other.written.poll();
                assertTrue(System.nanoTime() - deadline < 0, "message " + sent + " to the unpolled EVD never arrived"
                    + (receivedOn == null ? "" : " (its Send did, its RDMA Write did not)"));
            }
            sendsMine += me.equals(receivedOn) ? 1 : 0;
            writesMine += me.equals(writtenOn) ? 1 : 0;
            sent++;
        }
        assertTrue(sendsMine > 0 && writesMine > 0, "of " + sent + " Sends and Writes to an EVD nobody polls, the"
            + " poller of another EVD read " + sendsMine + " and " + writesMine);
        assertEquals(0, other.closed.size(), "the connection ended: " + other.closed);
    }

    /** Polls the server's port until its I/O thread has seen the poller and stopped watching for reads. */
    private void pollUntilQuiet()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!serverPort.quiet)
        {
            serverPort.poll();
            assertTrue(System.nanoTime() - deadline < 0,
                "the I/O thread still watches for reads while a consumer polls");
        }
    }

    private static TransportContext context(final String name)
    {
        return new TransportContext("inline-" + name, IDS.incrementAndGet(), r ->
        {
            final Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        });
    }

    /** Records the thread each callback ran on. */
    private static final class Recorder
    {
        /** The EVD this side's connection completes into ({@code ChannelHandler.completesInto}). */
        final Object evd;
        final BlockingQueue<String> sent = new LinkedBlockingQueue<>();
        final BlockingQueue<String> written = new LinkedBlockingQueue<>();
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        final BlockingQueue<CloseReason> closed = new LinkedBlockingQueue<>();

        Recorder(final Object evd)
        {
            this.evd = evd;
        }

        AcceptHandler accepting(final CompletableFuture<Channel> done)
        {
            return new Handler(this)
            {
                @Override
                public void established(final Channel channel)
                {
                    done.complete(channel);
                }

                @Override
                public void acceptFailed()
                {
                    done.completeExceptionally(new AssertionError("accept failed"));
                }
            };
        }

        ConnectHandler connecting(final CompletableFuture<Channel> done)
        {
            return new ConnectingHandler(this, done);
        }
    }

    private static final class ConnectingHandler extends Handler implements ConnectHandler
    {
        private final CompletableFuture<Channel> done;

        ConnectingHandler(final Recorder r, final CompletableFuture<Channel> done)
        {
            super(r);
            this.done = done;
        }

        @Override
        public void established(final Channel channel, final byte[] privateData, final int peerIrd, final int peerOrd)
        {
            done.complete(channel);
        }

        @Override
        public void rejected(final boolean byPeer)
        {
            done.completeExceptionally(new AssertionError("rejected"));
        }

        @Override
        public void unreachable()
        {
            done.completeExceptionally(new AssertionError("unreachable"));
        }
    }

    private abstract static class Handler implements AcceptHandler
    {
        private final Recorder r;

        Handler(final Recorder r)
        {
            this.r = r;
        }

        @Override
        public void established(final Channel channel)
        {
            throw new IllegalStateException("not an accepting handler");
        }

        @Override
        public void acceptFailed()
        {
            throw new IllegalStateException("not an accepting handler");
        }

        @Override
        public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
            final MemorySegment src, final long off, final int len)
        {
            if (last)
            {
                r.received.add(Thread.currentThread().getName());
            }
            return true;
        }

        @Override
        public boolean completesInto(final Object evd)
        {
            return r.evd == evd;
        }

        @Override
        public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            if (last)
            {
                r.written.add(Thread.currentThread().getName());
            }
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
            r.closed.add(CloseReason.BROKEN);
        }

        @Override
        public void onSent(final OutboundMessage message)
        {
            r.sent.add(Thread.currentThread().getName());
        }

        @Override
        public void onClosed(final CloseReason reason)
        {
            r.closed.add(reason);
        }
    }

    /** An untagged Send of a few bytes, the {@code msnIndex}-th on its queue. */
    private static OutboundMessage send(final int msnIndex, final byte[] payload)
    {
        return new OutboundMessage(1).describeSend(msnIndex + 1, false)
            .addPayload(MemorySegment.ofArray(payload), 0, payload.length);
    }
}

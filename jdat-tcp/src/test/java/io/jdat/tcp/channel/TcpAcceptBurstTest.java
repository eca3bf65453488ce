package io.jdat.tcp.channel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.engine.EngineConfig;
import io.jdat.engine.channel.TransportContext;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Connections that queued in the kernel while the I/O thread was busy are accepted in one burst.
 * A displaced half-open connection's socket is registered with the selector, so closing it frees
 * its descriptor only when the selector next runs: a burst that accepted on after displacing
 * would hold one descriptor more per accept than {@code max_half_open} allows (seen as 215
 * accepted sockets against a bound of 200 in a flood on a loaded machine).
 */
class TcpAcceptBurstTest
{
    private static final int MAX_HALF_OPEN = 2;
    private static final int BURST = 100;
    private static final AtomicInteger IDS = new AtomicInteger(3000);

    @Test
    void aBurstOfAcceptsHoldsNoMoreThanTheHalfOpenBound() throws Exception
    {
        final TcpTransport transport = new TcpTransport(EngineConfig.parse(
            "max_half_open=" + MAX_HALF_OPEN + " mpa_timeout_ms=60000 backlog=" + (BURST + 10)));
        final TcpPort port = (TcpPort) transport.open(new TransportContext("burst", IDS.incrementAndGet(), r ->
        {
            final Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        }));
        final List<SocketChannel> clients = new ArrayList<>();
        try
        {
            final int qual = (int) port.listenAny(request -> false).connQual();
            // hold the I/O thread while the kernel completes every handshake into the backlog
            final CountDownLatch release = new CountDownLatch(1);
            final CountDownLatch holding = new CountDownLatch(1);
            assertTrue(port.execute(() ->
            {
                holding.countDown();
                try
                {
                    release.await(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }));
            assertTrue(holding.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < BURST; i++)
            {
                clients.add(SocketChannel.open(new InetSocketAddress(transport.address.inet(), qual)));
            }
            final AtomicBoolean sampling = new AtomicBoolean(true);
            final AtomicInteger most = new AtomicInteger();
            final Thread sampler = Thread.ofPlatform().name("burst-sampler").start(() ->
            {
                // counted on the I/O thread, between its rounds: a task queued during the burst
                // runs right after it, before the next selection
                while (sampling.get())
                {
                    final CountDownLatch counted = new CountDownLatch(1);
                    if (!port.execute(() ->
                    {
                        most.accumulateAndGet(Descriptors.acceptedOn(qual), Math::max);
                        counted.countDown();
                    }))
                    {
                        return;
                    }
                    try
                    {
                        counted.await(10, TimeUnit.SECONDS);
                    }
                    catch (final InterruptedException e)
                    {
                        return;
                    }
                }
            });
            release.countDown();
            // the burst is over once every connection beyond the bound was displaced
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (displaced(port) < BURST - MAX_HALF_OPEN)
            {
                assertTrue(System.nanoTime() - deadline < 0, "displaced " + displaced(port) + " of "
                    + (BURST - MAX_HALF_OPEN));
                Thread.sleep(1);
            }
            Thread.sleep(50);
            sampling.set(false);
            sampler.join();
            final int now = Descriptors.acceptedOn(qual);
            System.out.printf("STRANGERS accept burst: %d connections queued, max_half_open %d: accepted sockets"
                + " at most %d, %d at the end%n", BURST, MAX_HALF_OPEN, most.get(), now);
            assertTrue(now <= MAX_HALF_OPEN, "accepted sockets left after the burst: " + now);
            // the bound, and the one displaced socket whose descriptor the next selection frees
            assertTrue(most.get() <= MAX_HALF_OPEN + 1, "accepted sockets held during the burst: " + most.get());
        }
        finally
        {
            for (final SocketChannel c : clients)
            {
                c.close();
            }
            port.close();
        }
    }

    private static long displaced(final TcpPort port)
    {
        return port.attributes().stream().filter(a -> a.name().equals("jdat.tcp.half_open_displaced"))
            .mapToLong(a -> Long.parseLong(a.value())).findFirst().orElseThrow();
    }
}

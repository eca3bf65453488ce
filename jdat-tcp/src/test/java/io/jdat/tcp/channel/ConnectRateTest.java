package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection churn on tcp over 127.0.0.1: for {@code jdat.connectrate.seconds} (default 30) a
 * client IA connects endpoints to one PSP at a pace of {@code jdat.connectrate.per_second}
 * (default 1,000) a second, up to 64 in flight; the server accepts each and disconnects it once
 * established (so TIME_WAIT stays on the server's side), the client frees it on DISCONNECTED.
 * Every connect must be established and then disconnected: none rejected, timed out or broken.
 * At the end the open file descriptors and the IA threads are back where they started. The
 * rate reached is printed (it is a figure, not an assertion: timing is for benchmarks).
 */
class ConnectRateTest
{
    private static final int SECONDS = Integer.getInteger("jdat.connectrate.seconds", 30);
    private static final int PER_SECOND = Integer.getInteger("jdat.connectrate.per_second", 1_000);
    private static final int IN_FLIGHT = 64;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void connectsAndDisconnectsAtAThousandASecondLeaveNothingBehind() throws Exception
    {
        final long fdsBefore = openFds();
        final long total = (long) SECONDS * PER_SECOND;
        final AtomicInteger accepted = new AtomicInteger();
        final AtomicBoolean stop = new AtomicBoolean();
        long connected = 0;
        double seconds;
        try (TcpNode server = TcpNode.open(); TcpNode client = TcpNode.open())
        {
            final EventDispatcher crEvd = server.evd(4 * IN_FLIGHT, EvdFlags.CR_FLAG);
            final EventDispatcher serverConn = server.evd(8 * IN_FLIGHT, EvdFlags.CONNECTION_FLAG);
            final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final CompletableFuture<Void> acceptor = CompletableFuture.runAsync(
                () -> serve(server, crEvd, serverConn, accepted, stop));

            final EventDispatcher clientConn = client.evd(8 * IN_FLIGHT, EvdFlags.CONNECTION_FLAG);
            final long start = System.nanoTime();
            long started = 0;
            int inFlight = 0;
            final DatEvent ev = new DatEvent();
            while (connected < total)
            {
                // start connects while the pace and the in-flight bound allow
                final long due = Math.min(total, (System.nanoTime() - start) * PER_SECOND / 1_000_000_000L + 1);
                while (started < due && inFlight < IN_FLIGHT)
                {
                    final Endpoint ep = client.ia.epCreate(client.pz, null, null, clientConn, null);
                    ep.connect(server.address, psp.connQual(), 20 * SECOND, null, Qos.BEST_EFFORT, 0);
                    started++;
                    inFlight++;
                }
                final DatStatus s = clientConn.wait(started < due ? 0 : 1_000, 1, ev, new DatCount());
                if (s == DatStatus.TIMEOUT_EXPIRED)
                {
                    continue;
                }
                if (ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
                {
                    continue;
                }
                assertTrue(ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED),
                    "connect " + connected + " ended with " + ev);
                ev.connection.epHandle.free();
                inFlight--;
                connected++;
            }
            seconds = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            acceptor.get(30, TimeUnit.SECONDS);
            assertEquals(total, accepted.get(), "connection requests the server accepted");
        }
        System.out.printf("connect rate: %d connects established and disconnected in %.1f s: %.0f/s (paced at %d/s)%n",
            connected, seconds, connected / seconds, PER_SECOND);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (openFds() > fdsBefore + 8 && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(50);
        }
        assertTrue(openFds() <= fdsBefore + 8, "open file descriptors: " + fdsBefore + " before, " + openFds()
            + " after");
    }

    /**
     * The server: accepts every request into a new endpoint, disconnects it once established, frees it once
     * disconnected.
     */
    private static void serve(final TcpNode server, final EventDispatcher crEvd, final EventDispatcher conn,
        final AtomicInteger accepted, final AtomicBoolean stop)
    {
        final DatEvent ev = new DatEvent();
        while (!stop.get())
        {
            boolean idle = true;
            while (crEvd.dequeue(ev) == DatStatus.SUCCESS)
            {
                idle = false;
                final Endpoint ep = server.ia.epCreate(server.pz, null, null, conn, null);
                ev.crArrival.crHandle.accept(ep, null);
                accepted.incrementAndGet();
            }
            while (conn.dequeue(ev) == DatStatus.SUCCESS)
            {
                idle = false;
                onConnectionEvent(ev);
            }
            if (idle && conn.wait(1_000, 1, ev, new DatCount()) == DatStatus.SUCCESS)
            {
                onConnectionEvent(ev);
            }
        }
    }

    private static void onConnectionEvent(final DatEvent ev)
    {
        if (ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
        {
            ev.connection.epHandle.disconnect(CloseFlags.GRACEFUL_FLAG);
        }
        else if (ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED))
        {
            ev.connection.epHandle.free();
        }
        else
        {
            throw new AssertionError("server endpoint: " + ev);
        }
    }

    private static long openFds() throws Exception
    {
        try (var s = Files.list(Path.of("/proc/self/fd")))
        {
            return s.count();
        }
    }
}

package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.SECOND;
import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.DatEvent;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.tcp.Mpa;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A half-open flood against a listening IA: {@value #FLOOD} TCP connections to its PSP, half of
 * them silent and half stopping in the middle of their MPA Request, held open. The IA holds at most
 * {@code max_half_open} of them at any moment (the oldest is closed for each new one beyond), the
 * rest are closed after {@code mpa_timeout_ms}: the accepted sockets, counted by the kernel's
 * tables, never exceed the bound, every flood connection ends closed by one bound or the other (the
 * IA's counters add up to the flood exactly, and each socket reads its end), and once the flood is
 * over no descriptor, thread or buffer is left. Honest clients that connect in the middle and at
 * the end of the flood are established at once.
 */
class TcpHalfOpenFloodTest
{
    private static final int FLOOD = 600;
    private static final int MAX_HALF_OPEN = 200;
    private static final int MPA_TIMEOUT_MS = 2000;

    @Test
    void aHalfOpenFloodIsBoundedAndHonestClientsAreServedAtOnce() throws Exception
    {
        try (TcpNode server = TcpNode.open("mpa_timeout_ms=" + MPA_TIMEOUT_MS + " max_half_open=" + MAX_HALF_OPEN);
            TcpNode client = TcpNode.open())
        {
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final int port = (int) psp.connQual();
            // one honest round first, so that what the IAs keep for good is counted before
            honest(server, client, crEvd, port);
            final int fdsBefore = Descriptors.open();
            final int threadsBefore = Thread.activeCount();
            final long heapBefore = heapAfterGc();
            assertEquals(0, Descriptors.acceptedOn(port));

            // a sampler watches the accepted sockets while the flood lasts
            final AtomicBoolean sampling = new AtomicBoolean(true);
            final AtomicInteger maxAccepted = new AtomicInteger();
            final Thread sampler = Thread.ofPlatform().name("flood-sampler").start(() ->
            {
                while (sampling.get())
                {
                    maxAccepted.accumulateAndGet(Descriptors.acceptedOn(port), Math::max);
                    try
                    {
                        Thread.sleep(2);
                    }
                    catch (final InterruptedException e)
                    {
                        return;
                    }
                }
            });
            final byte[] request = RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), null);
            final byte[] half = Arrays.copyOf(request, request.length / 2);
            final List<SocketChannel> flood = new ArrayList<>();
            final List<Long> honestMillis = new ArrayList<>();
            long heapDuring = 0;
            int fdsDuring = 0;
            try
            {
                for (int i = 0; i < FLOOD; i++)
                {
                    final SocketChannel s = SocketChannel.open(new InetSocketAddress(server.address.inet(), port));
                    flood.add(s);
                    if (i % 2 == 1)
                    {
                        s.write(ByteBuffer.wrap(half));
                    }
                    if (i == FLOOD / 2)
                    {
                        honestMillis.add(honest(server, client, crEvd, port));
                    }
                }
                honestMillis.add(honest(server, client, crEvd, port));
                heapDuring = heapAfterGc();
                fdsDuring = Descriptors.open() - flood.size();
                maxAccepted.accumulateAndGet(Descriptors.acceptedOn(port), Math::max);
                honestMillis.add(honest(server, client, crEvd, port));
            }
            finally
            {
                sampling.set(false);
                sampler.join();
            }
            final String attrs = halfOpenAttributes(server);
            // the bound counts half-open connections; the sockets of the honest clients' connections
            // are accepted sockets on the same port too, and one more is accepted before the oldest
            // waiting one is displaced
            final int allowed = MAX_HALF_OPEN + honestMillis.size() + 1;
            assertTrue(maxAccepted.get() <= allowed, "accepted sockets held during the flood: "
                + maxAccepted.get() + " (bound " + MAX_HALF_OPEN + " half-open + " + honestMillis.size()
                + " honest + 1); " + attrs);

            // every flood connection is closed by the IA within the MPA bound (plus a tick)
            final long deadline = System.nanoTime() + (MPA_TIMEOUT_MS + 3000) * 1_000_000L;
            while (Descriptors.acceptedOn(port) > 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(20);
            }
            assertEquals(0, Descriptors.acceptedOn(port), "accepted sockets left: " + halfOpenAttributes(server));
            int ended = 0;
            for (final SocketChannel s : flood)
            {
                s.configureBlocking(false);
                try
                {
                    if (s.read(ByteBuffer.allocate(64)) < 0)
                    {
                        ended++;
                    }
                }
                catch (final IOException e)
                {
                    // reset: ended as well
                    ended++;
                }
                s.close();
            }
            assertEquals(FLOOD, ended, "flood connections the IA closed");
            final long timedOut = attr(server, "jdat.tcp.half_open_timed_out");
            final long displaced = attr(server, "jdat.tcp.half_open_displaced");
            assertEquals(FLOOD, timedOut + displaced, "each flood connection ended by one bound: "
                + halfOpenAttributes(server));
            assertEquals(0, attr(server, "jdat.tcp.half_open"));
            assertTrue(timedOut >= MAX_HALF_OPEN - 2, "the last ones timed out: " + halfOpenAttributes(server));

            // nothing left, and still serving
            Thread.sleep(200);
            final int fdsAfter = Descriptors.open();
            final long heapAfter = heapAfterGc();
            assertTrue(fdsAfter <= fdsBefore + 2, "descriptors " + fdsBefore + " before, " + fdsAfter + " after");
            assertEquals(threadsBefore, Thread.activeCount(), "threads");
            assertTrue(heapAfter < heapBefore + (8 << 20), "heap after GC " + heapBefore + " before, " + heapAfter
                + " after");
            final long last = honest(server, client, crEvd, port);
            for (final long ms : honestMillis)
            {
                assertTrue(ms < 1000, "an honest client waited " + honestMillis + " ms");
            }
            System.out.printf("STRANGERS half-open flood: %d connections (half silent, half a partial MPA Request),"
                + " max_half_open %d, mpa_timeout_ms %d: accepted sockets at most %d during; descriptors %d before,"
                + " %d during (without the flood's own), %d after; heap after GC %d/%d/%d KiB; threads %d/%d;"
                + " %d displaced, %d timed out; honest clients established in %s ms, %d ms after%n", FLOOD,
                MAX_HALF_OPEN, MPA_TIMEOUT_MS, maxAccepted.get(), fdsBefore, fdsDuring, fdsAfter, heapBefore >> 10,
                heapDuring >> 10, heapAfter >> 10, threadsBefore, Thread.activeCount(), displaced, timedOut,
                honestMillis, last);
        }
    }

    /** One honest connection, established and disconnected; milliseconds from connect to ESTABLISHED. */
    private static long honest(final TcpNode server, final TcpNode client, final EventDispatcher crEvd,
        final int port)
    {
        final TcpNode.Ep c = client.ep(null);
        final TcpNode.Ep s = server.ep(null);
        final long start = System.nanoTime();
        c.ep().connect(server.address, port, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        cr.crArrival.crHandle.accept(s.ep(), null);
        next(c.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        final long millis = (System.nanoTime() - start) / 1_000_000;
        next(s.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        c.ep().disconnect(CloseFlags.GRACEFUL_FLAG);
        next(c.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
        next(s.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
        for (final TcpNode.Ep e : List.of(c, s))
        {
            e.ep().free();
            e.recv().free();
            e.req().free();
            e.conn().free();
        }
        return millis;
    }

    private static long attr(final TcpNode n, final String name)
    {
        return Long.parseLong(n.query().transportAttr(name));
    }

    private static String halfOpenAttributes(final TcpNode n)
    {
        final StringBuilder b = new StringBuilder();
        for (final var a : n.query().transportAttr)
        {
            if (a.name().contains("half_open"))
            {
                b.append(a.name()).append('=').append(a.value()).append(' ');
            }
        }
        return b.toString().trim();
    }

    private static long heapAfterGc()
    {
        System.gc();
        final Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }
}

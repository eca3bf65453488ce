package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Fixture.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Many producer threads feed one EVD ({@code dat_evd_post_se} and DTO completions of several
 * connections) while one consumer takes the events with {@code dat_evd_wait} and changing
 * thresholds: no event is lost or duplicated, each stream keeps its order (digest §1.3, §2.6), and
 * {@code nmore} is at least {@code threshold - 1} on success.
 */
class EvdConcurrencyTest
{
    private static final int THRESHOLDS = 8;

    /** A software event's payload: which producer, which of its events. */
    private record Tag(int producer, int seq)
    {
    }

    /** What the consumer saw: the last sequence number per stream, and the count. */
    private static final class Seen
    {
        final Map<Object, Integer> last = new HashMap<>();
        int events;

        /** Records {@code seq} on {@code stream}; it must follow the stream's previous one exactly. */
        void next(final Object stream, final int seq)
        {
            final int expected = last.getOrDefault(stream, -1) + 1;
            assertEquals(expected, seq, () -> "stream " + stream + ": lost, duplicated or out of order");
            last.put(stream, seq);
            events++;
        }
    }

    /**
     * Takes {@code total} events from {@code evd} with thresholds 1..{@value #THRESHOLDS} in turn
     * (falling back to 1 when fewer are left), handing each to {@code record}.
     */
    private static void consume(final EventDispatcher evd, final int total, final Seen seen,
        final java.util.function.Consumer<DatEvent> record)
    {
        final DatEvent ev = new DatEvent();
        final DatCount nmore = new DatCount();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int threshold = 1;
        int turn = 0;
        while (seen.events < total)
        {
            assertTrue(System.nanoTime() < deadline, "only " + seen.events + " of " + total + " events arrived");
            final DatStatus s = evd.wait(50_000, threshold, ev, nmore);
            if (s == DatStatus.TIMEOUT_EXPIRED)
            {
                // fewer than the threshold are left for now
                assertTrue(nmore.value < threshold, "timed out with " + nmore.value + " queued");
                threshold = 1;
                continue;
            }
            assertEquals(DatStatus.SUCCESS, s);
            assertTrue(nmore.value >= threshold - 1, "nmore " + nmore.value + " below threshold " + threshold);
            assertSame(evd, ev.evdHandle);
            record.accept(ev);
            turn++;
            threshold = 1 + turn % THRESHOLDS;
        }
    }

    private static CompletableFuture<Void> start(final CountDownLatch go, final Runnable work)
    {
        return CompletableFuture.runAsync(() ->
        {
            try
            {
                go.await();
            }
            catch (final InterruptedException e)
            {
                throw new AssertionError(e);
            }
            work.run();
        }, Fixture.THREADS);
    }

    /** Posts {@code n} software events tagged {@code producer}, retrying while the queue is full. */
    private static Runnable softwareProducer(final EventDispatcher evd, final int producer, final int n)
    {
        return () ->
        {
            final DatEvent ev = new DatEvent();
            for (int i = 0; i < n; i++)
            {
                ev.software(new Tag(producer, i));
                while (evd.postSe(ev) == DatStatus.QUEUE_FULL)
                {
                    Thread.yield();
                }
            }
        };
    }

    @Test
    void softwareEventsAndDtoCompletionsFromManyThreadsReachOneThresholdWaiterExactlyOnceAndInOrder()
    {
        final int producers = 4;
        final int perProducer = 1500;
        final int pairs = 2;
        final int sends = 1500;
        final int total = producers * perProducer + pairs * sends * 2;
        try (Fixture f = new Fixture())
        {
            // room for every event: a DTO completion must never overflow it
            final EventDispatcher evd = f.evd(total + 16, EvdFlags.SOFTWARE_FLAG | EvdFlags.DTO_FLAG);
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = sends;
            attr.maxRequestDtos = sends;
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final List<Endpoint> clients = new ArrayList<>();
            final List<Endpoint> servers = new ArrayList<>();
            final Lmr lmr = f.lmr((long) pairs * sends * 8);
            for (int p = 0; p < pairs; p++)
            {
                final EventDispatcher clientConn = f.evd(4, EvdFlags.CONNECTION_FLAG);
                final EventDispatcher serverConn = f.evd(4, EvdFlags.CONNECTION_FLAG);
                final Endpoint client = f.ia.epCreate(f.pz, f.evd(4, EvdFlags.DTO_FLAG), evd, clientConn, attr);
                final Endpoint server = f.ia.epCreate(f.pz, evd, f.evd(4, EvdFlags.DTO_FLAG), serverConn, attr);
                for (int i = 0; i < sends; i++)
                {
                    server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, ((long) p * sends + i) * 8, 8)}, i, 0);
                }
                client.connect(f.address, psp.connQual(), 5 * SECOND, null, io.jdat.Qos.BEST_EFFORT, 0);
                Connecting.request(crEvd).crArrival.crHandle.accept(server, null);
                Connecting.event(clientConn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                Connecting.event(serverConn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                clients.add(client);
                servers.add(server);
            }
            final Lmr src = f.lmr(8);
            final CountDownLatch go = new CountDownLatch(1);
            final List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int p = 0; p < producers; p++)
            {
                running.add(start(go, softwareProducer(evd, p, perProducer)));
            }
            for (final Endpoint client : clients)
            {
                running.add(start(go, () ->
                {
                    final LmrTriplet[] iov = {LmrTriplet.of(src, 0, 8)};
                    for (int i = 0; i < sends; i++)
                    {
                        client.postSend(1, iov, i, 0);
                    }
                }));
            }
            go.countDown();
            final Seen seen = new Seen();
            consume(evd, total, seen, ev ->
            {
                if (ev.is(EventNumber.SOFTWARE_EVENT))
                {
                    final Tag t = (Tag) ev.software.pointer;
                    seen.next("producer " + t.producer(), t.seq());
                    return;
                }
                assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
                assertEquals(DtoStatus.SUCCESS, ev.dto.status);
                final Endpoint ep = ev.dto.epHandle;
                assertTrue(clients.contains(ep) || servers.contains(ep));
                // one stream per endpoint queue: sends of a client, receives of a server
                seen.next(ep, (int) ev.dto.userCookie);
            });
            for (final CompletableFuture<Void> r : running)
            {
                r.orTimeout(5, TimeUnit.SECONDS).join();
            }
            assertEquals(total, seen.events);
            assertEquals(producers + 2 * pairs, seen.last.size());
            for (final int last : seen.last.values())
            {
                assertTrue(last == perProducer - 1 || last == sends - 1);
            }
            assertEmpty(evd);
            // nothing overflowed
            assertEmpty(f.asyncEvd);
        }
    }

    @Test
    void dequeueRightAfterSetUnwaitableIsNotRefusedBecauseOfTheWokenWaiter()
    {
        // dat_evd_set_unwaitable(3DAT): the blocked waiter is woken and returns DAT_INVALID_STATE;
        // from then on it is no longer blocked, even before its thread has run again
        try (Fixture f = new Fixture())
        {
            for (int round = 0; round < 50; round++)
            {
                final EventDispatcher evd = f.evd(4, EvdFlags.SOFTWARE_FLAG);
                evd.postSe(new DatEvent().software(round));
                final Thread[] waiting = new Thread[1];
                final CompletableFuture<DatStatus> waiter = CompletableFuture.supplyAsync(() ->
                {
                    waiting[0] = Thread.currentThread();
                    try
                    {
                        return evd.wait(Dat.TIMEOUT_INFINITE, 2, new DatEvent(), new DatCount());
                    }
                    catch (final io.jdat.DatException e)
                    {
                        return e.status();
                    }
                }, Fixture.THREADS);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (waiting[0] == null)
                {
                    assertTrue(System.nanoTime() < deadline, "the waiter did not start");
                    Thread.onSpinWait();
                }
                EvdTest.awaitBlocked(waiting[0]);
                evd.setUnwaitable();
                final DatEvent ev = new DatEvent();
                assertEquals(DatStatus.SUCCESS, evd.dequeue(ev));
                assertEquals(round, ev.software.pointer);
                final DatStatus s = waiter.orTimeout(5, TimeUnit.SECONDS).join();
                assertTrue(s.is(io.jdat.DatReturnType.INVALID_STATE), s.toString());
                evd.free();
            }
        }
    }

    @Test
    void softwareEventsRetriedOnAFullQueueAreNeitherLostNorDuplicated()
    {
        // dat_evd_post_se(3DAT): a full queue is DAT_QUEUE_FULL, the event is not queued, nothing overflows
        final int producers = 4;
        final int perProducer = 2000;
        try (Fixture f = new Fixture())
        {
            final EventDispatcher evd = f.evd(16, EvdFlags.SOFTWARE_FLAG);
            final CountDownLatch go = new CountDownLatch(1);
            final List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int p = 0; p < producers; p++)
            {
                running.add(start(go, softwareProducer(evd, p, perProducer)));
            }
            go.countDown();
            final Seen seen = new Seen();
            consume(evd, producers * perProducer, seen, ev ->
            {
                final Tag t = (Tag) ev.software.pointer;
                seen.next(t.producer(), t.seq());
            });
            for (final CompletableFuture<Void> r : running)
            {
                r.orTimeout(5, TimeUnit.SECONDS).join();
            }
            assertEquals(producers, seen.last.size());
            for (final int last : seen.last.values())
            {
                assertEquals(perProducer - 1, last);
            }
            assertEmpty(evd);
            assertEmpty(f.asyncEvd);
        }
    }
}

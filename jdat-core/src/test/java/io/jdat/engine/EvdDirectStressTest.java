package io.jdat.engine;

import static io.jdat.engine.StressRig.connect;
import static io.jdat.engine.StressRig.guard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
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
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderInfo;
import io.jdat.RegionDescription;
import io.jdat.loopback.LoopbackLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Direct mode under real threads: a sender places Sends into the receive queue's slots while
 * two consumers of a threadsafe IA dequeue from them at once (each takes by compare-and-set) and
 * repost each buffer they reaped; in the {@code move} rounds a third thread ends the mode half way
 * (a resize: the completed slots move into the EVD's ring while both consumers take). Every message
 * must come out exactly once, each consumer must see the messages in increasing order, and none
 * may be lost in the move.
 */
class EvdDirectStressTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long SECOND = 1_000_000L;
    private static final int QUEUE = 8;
    private static final int SLOT = 64;
    private static final int MESSAGES = 200_000;

    @ParameterizedTest(name = "move={0}")
    @ValueSource(booleans = {false, true})
    void twoConsumersTakeEachMessageOnceInOrder(final boolean move) throws Exception
    {
        final String name = "loopback-dstress" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, Dat.THREADSAFE), "evd_direct");
        final InterfaceAdapter ia = Dat.iaOpen(name, 64, null);
        final Arena arena = Arena.ofShared();
        try
        {
            final Rig rig = new Rig(ia, ia, arena);
            final EventDispatcher recv = ia.evdCreate(4 * QUEUE, null, EvdFlags.DTO_FLAG);
            final Endpoint client = rig.client();
            final Endpoint server = rig.server(recv);
            assertTrue(((EvdImpl) recv).direct != null, "direct mode");
            connect(ia, client, server, rig.serverConn);
            rig.postReceives(server);
            final AtomicLong credits = new AtomicLong(QUEUE);
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final boolean[] seen = new boolean[MESSAGES];
            final AtomicInteger taken = new AtomicInteger();
            final Thread[] consumers = new Thread[2];
            for (int c = 0; c < consumers.length; c++)
            {
                consumers[c] = Thread.ofPlatform().daemon().name("consumer-" + c).start(() -> guard(failed, () ->
                {
                    final DatEvent ev = new DatEvent();
                    long last = -1;
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (taken.get() < MESSAGES && failed.get() == null)
                    {
                        if (recv.dequeue(ev) != DatStatus.SUCCESS)
                        {
                            assertTrue(System.nanoTime() < deadline, "stuck at " + taken.get());
                            Thread.onSpinWait();
                            continue;
                        }
                        assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
                        assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
                        assertEquals(SLOT, ev.dto.transferredLength);
                        final long slot = ev.dto.userCookie;
                        final long seq = rig.received.get(ValueLayout.JAVA_LONG, slot * SLOT);
                        assertTrue(seq > last, "out of order: " + seq + " after " + last);
                        last = seq;
                        synchronized (seen)
                        {
                            assertTrue(!seen[(int) seq], "message " + seq + " twice");
                            seen[(int) seq] = true;
                        }
                        taken.incrementAndGet();
                        server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(rig.dst, slot * SLOT, SLOT)}, slot, 0);
                        credits.incrementAndGet();
                    }
                }));
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (long seq = 0; seq < MESSAGES && failed.get() == null; seq++)
            {
                while (credits.get() <= seq)
                {
                    assertTrue(System.nanoTime() < deadline, "no credit for " + seq);
                    Thread.onSpinWait();
                }
                if (move && seq == MESSAGES / 2)
                {
                    recv.resize(4 * QUEUE);
                    assertNull(((EvdImpl) recv).direct, "the resize ended direct mode");
                }
                // a slot of its own per message in flight (at most QUEUE are)
                final long at = seq % 1024 * SLOT;
                rig.source.set(ValueLayout.JAVA_LONG, at, seq);
                client.postSend(1, new LmrTriplet[] {LmrTriplet.of(rig.src, at, SLOT)}, seq,
                    CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG);
            }
            for (final Thread t : consumers)
            {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertNull(failed.get(), () -> "failed: " + failed.get());
            assertEquals(MESSAGES, taken.get());
            for (int i = 0; i < MESSAGES; i++)
            {
                assertTrue(seen[i], "message " + i + " lost");
            }
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
            arena.close();
        }
    }

    /**
     * The one consumer of a {@code nonthreadsafe} IA takes with a store and a look at the mode, no
     * read-modify-write; the sender's thread ends the mode at a random moment of each round, as a
     * placer that would overflow the EVD ends it, while the consumer takes the Sends it placed.
     * Sender and consumer each have an IA of their own, one thread each, as the entry promises
     * (two threads, so that on two cores both run at once).
     * Every message must come out exactly once and in order, from the slots or from the EVD's ring.
     */
    @ParameterizedTest(name = "rounds={0}")
    @ValueSource(ints = {1_000})
    void theOneConsumerOfANonthreadsafeIaTakesEachMessageOnceWhileAnEngineThreadEndsTheMode(final int rounds)
        throws Exception
    {
        final String name = "loopback-dsingle" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, false), "evd_direct");
        final InterfaceAdapter sending = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        final InterfaceAdapter receiving = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        final Arena arena = Arena.ofShared();
        final int messages = 300;
        try
        {
            final Rig rig = new Rig(sending, receiving, arena);
            final java.util.Random random = new java.util.Random(42);
            for (int round = 0; round < rounds; round++)
            {
                final EventDispatcher recv = receiving.evdCreate(4 * QUEUE, null, EvdFlags.DTO_FLAG);
                final Endpoint client = rig.client();
                final Endpoint server = rig.server(recv);
                final EvdImpl evd = (EvdImpl) recv;
                assertTrue(evd.direct != null, "direct mode");
                connect(receiving, client, server, rig.serverConn);
                rig.postReceives(server);
                final AtomicLong credits = new AtomicLong(QUEUE);
                final AtomicInteger taken = new AtomicInteger();
                final AtomicReference<Throwable> failed = new AtomicReference<>();
                final int endAt = QUEUE + random.nextInt(messages - QUEUE);
                final Thread consumer = Thread.ofPlatform().daemon().name("consumer").start(() -> guard(failed, () ->
                {
                    final DatEvent ev = new DatEvent();
                    long expect = 0;
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (expect < messages && failed.get() == null)
                    {
                        if (recv.dequeue(ev) != DatStatus.SUCCESS)
                        {
                            assertTrue(System.nanoTime() < deadline, "stuck at " + expect);
                            Thread.onSpinWait();
                            continue;
                        }
                        rig.reapInOrder(server, ev, expect);
                        expect++;
                        taken.set((int) expect);
                        credits.incrementAndGet();
                    }
                }));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                for (long seq = 0; seq < messages && failed.get() == null; seq++)
                {
                    if (seq == endAt)
                    {
                        // the engine ends the mode on the placer's thread, with Sends in the slots
                        evd.leaveDirect();
                    }
                    while (credits.get() <= seq && failed.get() == null)
                    {
                        assertTrue(System.nanoTime() < deadline, "no credit for " + seq);
                        Thread.onSpinWait();
                    }
                    final long at = seq % 1024 * SLOT;
                    rig.source.set(ValueLayout.JAVA_LONG, at, seq);
                    client.postSend(1, new LmrTriplet[] {LmrTriplet.of(rig.src, at, SLOT)}, seq,
                        CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG);
                }
                consumer.join(TimeUnit.SECONDS.toMillis(60));
                assertNull(failed.get(), () -> "round with the end at " + endAt + " failed: " + failed.get());
                assertEquals(messages, taken.get());
                assertNull(evd.direct, "the mode ended");
                final DatEvent ev = new DatEvent();
                assertEquals(DatStatus.QUEUE_EMPTY, recv.dequeue(ev), () -> "one more: " + ev);
                client.free();
                server.free();
            }
        }
        finally
        {
            sending.close(CloseFlags.ABRUPT_FLAG);
            receiving.close(CloseFlags.ABRUPT_FLAG);
            arena.close();
        }
    }

    /**
     * No lost wake-up in direct mode: the consumer blocks in {@code dat_evd_wait} (threshold 1, the
     * EVD spinning 0 µs so that every wait that finds nothing parks) while the sender's thread places
     * each Send into the slots after a random delay that spreads it over the waiter's
     * check-then-park window. Each Send follows the repost of the last one within microseconds, so
     * a wait that lasts 3 s is a lost wake-up; every message must come out once and in order.
     * The ring proofs ({@code EvdWakeupStressTest}) race software events, which end direct mode, so
     * they never reach this path.
     */
    @ParameterizedTest(name = "nonthreadsafe={0}")
    @ValueSource(booleans = {false, true})
    void aWaiterParkedInDirectModeIsWokenByEverySend(final boolean single) throws Exception
    {
        final String name = "loopback-dwake" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, !single), "evd_direct evd_spin_us=0");
        final InterfaceAdapter sending = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, !single);
        final InterfaceAdapter receiving = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, !single);
        final Arena arena = Arena.ofShared();
        final int messages = 5_000;
        try
        {
            final Rig rig = new Rig(sending, receiving, arena);
            final EventDispatcher recv = receiving.evdCreate(4 * QUEUE, null, EvdFlags.DTO_FLAG);
            final Endpoint client = rig.client();
            final Endpoint server = rig.server(recv);
            connect(receiving, client, server, rig.serverConn);
            assertTrue(((EvdImpl) recv).direct != null, "direct mode");
            rig.postReceives(server);
            final AtomicLong credits = new AtomicLong(QUEUE);
            final AtomicLong placed = new AtomicLong();
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final AtomicInteger taken = new AtomicInteger();
            final Thread consumer = Thread.ofPlatform().daemon().name("waiter").start(() -> guard(failed, () ->
            {
                final DatEvent ev = new DatEvent();
                final DatCount nmore = new DatCount();
                long expect = 0;
                while (expect < messages && failed.get() == null)
                {
                    final long start = System.nanoTime();
                    final DatStatus s = recv.wait(5 * SECOND, 1, ev, nmore);
                    final long waited = System.nanoTime() - start;
                    // the sender places the next Send within microseconds of the repost: a wait that
                    // lasts seconds (and then finds it, at its timeout's last look) missed its wake-up
                    assertTrue(waited < TimeUnit.SECONDS.toNanos(3), () -> "lost wake-up: a wait for message "
                        + taken.get() + " took " + waited / 1_000_000 + " ms (" + s + "), " + placed.get() + " placed");
                    if (s != DatStatus.SUCCESS)
                    {
                        continue;
                    }
                    rig.reapInOrder(server, ev, expect);
                    expect++;
                    taken.set((int) expect);
                    credits.incrementAndGet();
                }
            }));
            final java.util.SplittableRandom random = new java.util.SplittableRandom(42);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (long seq = 0; seq < messages && failed.get() == null; seq++)
            {
                while (credits.get() <= seq && failed.get() == null)
                {
                    assertTrue(System.nanoTime() < deadline, "no credit for " + seq);
                    Thread.onSpinWait();
                }
                // about as long as the waiter takes from its last look to its park, at random
                for (int i = random.nextInt(2_000); i > 0; i--)
                {
                    Thread.onSpinWait();
                }
                final long at = seq % 1024 * SLOT;
                rig.source.set(ValueLayout.JAVA_LONG, at, seq);
                client.postSend(1, new LmrTriplet[] {LmrTriplet.of(rig.src, at, SLOT)}, seq,
                    CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG);
                placed.set(seq + 1);
            }
            consumer.join(TimeUnit.SECONDS.toMillis(60));
            assertNull(failed.get(), () -> "failed: " + failed.get());
            assertEquals(messages, taken.get());
            assertTrue(((EvdImpl) recv).direct != null, "every message came through direct mode");
        }
        finally
        {
            sending.close(CloseFlags.ABRUPT_FLAG);
            receiving.close(CloseFlags.ABRUPT_FLAG);
            arena.close();
        }
    }


    /**
     * What every test here sets up: a protection zone at each end, the sender's source and the
     * receiver's QUEUE buffers registered there, and endpoints of QUEUE receives with
     * unsignalled requests (the sending and receiving IA may be one).
     */
    private static final class Rig
    {
        final InterfaceAdapter sending;
        final InterfaceAdapter receiving;
        final ProtectionZone spz;
        final ProtectionZone rpz;
        final MemorySegment source;
        final MemorySegment received;
        final Lmr src;
        final Lmr dst;
        final EpAttr attr = new EpAttr();
        /** The connection EVD of the last {@link #server} made. */
        EventDispatcher serverConn;

        Rig(final InterfaceAdapter sending, final InterfaceAdapter receiving, final Arena arena)
        {
            this.sending = sending;
            this.receiving = receiving;
            spz = sending.pzCreate();
            rpz = receiving.pzCreate();
            source = arena.allocate(1024L * SLOT, 64);
            received = arena.allocate((long) QUEUE * SLOT, 64);
            src = sending.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(source), source.byteSize(), spz,
                MemPriv.ALL_FLAG);
            dst = receiving.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(received), received.byteSize(), rpz,
                MemPriv.ALL_FLAG);
            attr.maxRecvDtos = QUEUE;
            attr.maxRequestDtos = 64;
            attr.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
        }

        Endpoint client()
        {
            return sending.epCreate(spz, sending.evdCreate(8, null, EvdFlags.DTO_FLAG),
                sending.evdCreate(128, null, EvdFlags.DTO_FLAG), sending.evdCreate(8, null, EvdFlags.CONNECTION_FLAG),
                attr);
        }

        /** The receiving endpoint, its receives completing into {@code recv}, with a connection EVD of its own. */
        Endpoint server(final EventDispatcher recv)
        {
            serverConn = receiving.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            return receiving.epCreate(rpz, recv, receiving.evdCreate(8, null, EvdFlags.DTO_FLAG), serverConn, attr);
        }

        /**
         * Checks that {@code ev} completed message {@code expect} (each message's first long is its
         * number) and posts its buffer again.
         */
        void reapInOrder(final Endpoint server, final DatEvent ev, final long expect)
        {
            assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
            final long slot = ev.dto.userCookie;
            final long seq = received.get(ValueLayout.JAVA_LONG, slot * SLOT);
            assertEquals(expect, seq, "message " + seq + " where " + expect + " was due");
            server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(dst, slot * SLOT, SLOT)}, slot, 0);
        }

        /** Posts one receive per buffer, its cookie the buffer's index. */
        void postReceives(final Endpoint server)
        {
            for (int i = 0; i < QUEUE; i++)
            {
                server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(dst, (long) i * SLOT, SLOT)}, i, 0);
            }
        }
    }
}

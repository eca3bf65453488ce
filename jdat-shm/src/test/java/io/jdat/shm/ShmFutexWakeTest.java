package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The waiter the peer wakes ({@link Futex}, {@link SpscRing}): a port whose threads sleep on the
 * rings' futex words is woken by the peer's record long before the sleep's timeout, and a peer's
 * "sleeps" word left set (a hostile or broken peer) buys it a bounded number of wake calls, never
 * one per record. These tests need futexes: Linux with native access, which the module's test JVM
 * has.
 */
class ShmFutexWakeTest
{
    /**
     * Sleeps and parks of both IAs' threads last this long: without the peer's wake-up a Send
     * would reach the waiting consumer only when one of them ends.
     */
    private static final long SLEEP_NS = 3_000_000_000L;

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void futexesAreAvailableHere()
    {
        assertTrue(Futex.SUPPORTED && Futex.available(), "futex wake-ups are on in this JVM (Linux, native access)");
    }

    @Test
    void aSleepingPortIsWokenByThePeersRecordLongBeforeItsTimeout() throws Exception
    {
        final long[] took = sendsToASleepingConsumer("", SLEEP_NS, 3);
        for (final long t : took)
        {
            assertTrue(t < SLEEP_NS / 3, "a Send took " + t / 1000 + " us to reach the waiting consumer,"
                + " against sleeps of " + SLEEP_NS / 1000 + " us: the peer did not wake it");
        }
    }

    @Test
    void aFutexOptionThatIsNotABooleanIsRefused()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ShmNode.open(dir, "odd", "futex=sometimes").close());
        assertTrue(e.getMessage().contains("futex"), e.getMessage());
    }

    @Test
    void futexFalseParksAsBefore() throws Exception
    {
        // the same IAs parking instead (futex=false): nobody sleeps on the rings, nobody wakes a
        // peer, and the Send arrives when a park ends (at a point of the I/O thread's 1 s parks
        // that the test does not control, so the time is printed, not checked)
        sendsToASleepingConsumer("futex=false", 1_000_000_000L, 1);
    }

    /**
     * Sends {@code rounds} times one 64-byte Send to a consumer waiting in {@code dat_evd_wait},
     * each after both IAs' threads had time to go to sleep; returns how long each took from the
     * post to the waiter's return.
     */
    private long[] sendsToASleepingConsumer(final String more, final long sleepNs, final int rounds) throws Exception
    {
        // no spin, no yield: every thread that finds nothing to do sleeps (or parks) sleepNs at once
        final String sleepy = "evd_spin_us=0 idle_spin_ns=0 idle_yield_ns=0 wait_spin_ns=0 poll_grace_ns=0"
            + " idle_park_min_ns=" + sleepNs + " idle_park_max_ns=" + sleepNs + " " + more;
        final long[] took = new long[rounds];
        try (ShmNode server = ShmNode.open(dir, "srv", sleepy);
            ShmNode client = ShmNode.open(dir, "cli", sleepy))
        {
            final boolean futex = Boolean.parseBoolean(attr(server, "jdat.shm.futex"));
            assertEquals(!more.contains("futex=false"), futex, "futex wake-ups on");
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4712);
            final ShmNode.Ep c = pair[0];
            final ShmNode.Ep s = pair[1];
            final Lmr cm = client.lmr(4096);
            final Lmr sm = server.lmr(4096);
            for (int round = 0; round < rounds; round++)
            {
                s.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 64)}, 0, 0);
                final long[] arrived = new long[1];
                final Thread waiter = new Thread(() ->
                {
                    final DatEvent got = next(s.recv(), EventNumber.DTO_COMPLETION_EVENT);
                    arrived[0] = got.dto.status == DtoStatus.SUCCESS ? System.nanoTime() : -1;
                }, "test-waiter");
                waiter.start();
                // long enough for the server's threads to go to sleep
                Thread.sleep(300);
                final long sleptBefore = sleeps(server);
                final long posted = System.nanoTime();
                c.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 64)}, 0, CompletionFlags.SUPPRESS_FLAG);
                waiter.join(2 * sleepNs / 1_000_000 + 10_000);
                assertTrue(arrived[0] > 0, "the waiter got the Send");
                took[round] = arrived[0] - posted;
                System.out.println((futex ? "futex" : "parking") + ", round " + round + ": the Send reached the"
                    + " sleeping consumer in " + took[round] / 1000 + " us (sleeps of " + sleepNs / 1_000_000
                    + " ms); server futex sleeps " + sleptBefore + ", client wake calls "
                    + attr(client, "jdat.shm.futex_wakes"));
                assertEquals(futex, sleptBefore > 0, "the server's threads slept on futexes");
            }
            assertEquals(futex, Long.parseLong(attr(client, "jdat.shm.futex_wakes")) >= 1, "the client woke its peer");
        }
        return took;
    }

    @Test
    void aSleepsWordLeftSetBuysOneWakePerTurnOfTheRing()
    {
        try (Arena arena = Arena.ofShared())
        {
            final int capacity = 4096;
            final MemorySegment control = arena.allocate(SpscRing.CONTROL_SIZE, 4096);
            final MemorySegment data = arena.allocate(capacity, 4096);
            final SpscRing producer = new SpscRing(control, data);
            final SpscRing consumer = new SpscRing(control, data);
            // the peer (consumer) says it sleeps and never takes it back
            control.set(ValueLayout.JAVA_INT, SpscRing.CONSUMER_SLEEPS, 0x5EED);
            final int records = 10 * capacity / 64;
            for (int i = 0; i < records; i++)
            {
                send(producer, consumer);
            }
            // one for the ticket, then one per 4 KiB turn: 10 turns of 64-byte records
            assertTrue(producer.wakes() >= 1 && producer.wakes() <= 11,
                records + " records woke a stuck sleeps word " + producer.wakes() + " times");

            // an honest consumer takes a new ticket for every sleep: each is woken once
            final long before = producer.wakes();
            for (int i = 0; i < 20; i++)
            {
                consumer.armConsumer();
                send(producer, consumer);
                send(producer, consumer);
                consumer.disarm(true);
            }
            assertEquals(before + 20, producer.wakes(), "one wake call per sleep, none for the second record");

            // the same bound on the other ring's side: a producer's word left set, the consumer consumes
            control.set(ValueLayout.JAVA_INT, SpscRing.PRODUCER_SLEEPS, 0x5EED);
            for (int i = 0; i < records; i++)
            {
                send(producer, consumer);
            }
            assertTrue(consumer.wakes() >= 1 && consumer.wakes() <= 11,
                records + " records consumed woke a stuck sleeps word " + consumer.wakes() + " times");
        }
    }

    @Test
    void aSleeperThatIsNeverWokenWaitsOutItsTimeoutAndNoMore()
    {
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment control = arena.allocate(SpscRing.CONTROL_SIZE, 4096);
            final MemorySegment data = arena.allocate(4096, 4096);
            final SpscRing consumer = new SpscRing(control, data);
            final Futex.Sleep sleep = new Futex.Sleep(arena, 1);
            Futex.set(sleep.waiters, 0, consumer.tailWord(), consumer.armConsumer());
            final long t0 = System.nanoTime();
            assertTrue(Futex.waitAny(sleep, 1, 50_000_000L), "the sleep ended normally");
            final long took = System.nanoTime() - t0;
            assertTrue(took >= 45_000_000L && took < 5_000_000_000L, "a 50 ms sleep took " + took / 1000 + " us");

            // a word that moved before the sleep: it returns at once
            control.set(ValueLayout.JAVA_LONG, SpscRing.TAIL, 16);
            final long t1 = System.nanoTime();
            assertTrue(Futex.waitAny(sleep, 1, 2_000_000_000L), "the sleep ended normally");
            assertTrue(System.nanoTime() - t1 < 1_000_000_000L, "a moved word does not sleep");
        }
    }

    /** One 64-byte record from producer to consumer. */
    private static void send(final SpscRing producer, final SpscRing consumer)
    {
        final long at = producer.claim(64);
        assertTrue(at >= 0, "room in the ring");
        producer.commit();
        final long n = consumer.available();
        assertTrue(n >= 64, "the record is there");
        consumer.consume(n);
    }

    private static long sleeps(final ShmNode node)
    {
        return Long.parseLong(attr(node, "jdat.shm.futex_sleeps"));
    }

    private static String attr(final ShmNode node, final String name)
    {
        final IaAttr attr = new IaAttr();
        node.ia.query(IaAttr.FIELD_ALL, attr, 0, null);
        return attr.transportAttr(name);
    }
}

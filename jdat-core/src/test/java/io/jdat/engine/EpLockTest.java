package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testkit.ExclusionProbe;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The endpoint lock excludes: threads taking it with its compare-and-set (the engine's threads, a
 * threadsafe IA's posters, some with the send claim) and a single-writer IA's one consumer taking
 * it with a store and a load ({@link EpLock#lockAsConsumer}), each also reentrantly. Every holder
 * counts itself in and out, and adds one to a plain counter in two steps with a pause between
 * them ({@link ExclusionProbe}): a second holder at the same time is counted, or loses an increment.
 */
class EpLockTest
{
    private static final int ROUNDS = 200_000;

    private EpLock lock = new EpLock(true);
    private final ExclusionProbe probe = new ExclusionProbe();

    @Test
    void theConsumersStoreAndTheEnginesCompareAndSetExcludeEachOther() throws Exception
    {
        excludes();
    }

    /**
     * On a threadsafe IA's lock the first poster takes the consumer's way (its bias) where the
     * heavy fence exists, and the other threads, one a poster too, the compare-and-set.
     */
    @Test
    void aThreadsafeLocksFirstPosterAndItsOtherTakersExcludeEachOther() throws Exception
    {
        lock = new EpLock(false);
        excludes();
    }

    private void excludes() throws Exception
    {
        final CyclicBarrier start = new CyclicBarrier(3);
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final Thread consumer = Thread.ofPlatform().daemon().start(() -> ExclusionProbe.run(start, failed, ROUNDS, () ->
        {
            final boolean placing = lock.lockAsConsumer();
            try
            {
                assertTrue(placing && lock.placing(), "the consumer holds the send claim");
                probe.add();
                // a nested take, as a post that ends a connection would
                lock.lock();
                try
                {
                    probe.add();
                }
                finally
                {
                    lock.unlock();
                }
                lock.donePlacing();
                assertFalse(lock.placing());
            }
            finally
            {
                lock.unlock();
            }
        }));
        final Thread[] engine = new Thread[2];
        for (int t = 0; t < engine.length; t++)
        {
            final boolean poster = t == 0;
            engine[t] = Thread.ofPlatform().daemon().start(() -> ExclusionProbe.run(start, failed, ROUNDS, () ->
            {
                if (poster)
                {
                    assertTrue(lock.lockToPlace(), "a threadsafe poster holds the send claim");
                }
                else
                {
                    lock.lock();
                }
                try
                {
                    probe.add();
                    probe.add();
                }
                finally
                {
                    lock.unlock();
                }
            }));
        }
        // two holders at once can also leave the lock taken for good: the others then never finish
        consumer.join(TimeUnit.SECONDS.toMillis(30));
        for (final Thread t : engine)
        {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (failed.get() != null)
        {
            throw new AssertionError(failed.get());
        }
        assertFalse(consumer.isAlive() || engine[0].isAlive() || engine[1].isAlive(), "a thread never got the lock");
        assertEquals(6L * ROUNDS, probe.count(), "increments were lost: two threads held the lock at once");
        assertFalse(lock.placingByOther(0), "the lock is free and nobody places");
    }

    /**
     * The consumer takes the lock with no fence while its other takers fence for it
     * ({@link AsymmetricFence}); once they have done so sixteen times it fences for itself, and
     * the lock still excludes and is let go by both kinds of taker.
     */
    @Test
    void theConsumerFencesForItselfOnceTheOtherTakersHaveFencedForItSixteenTimes() throws Exception
    {
        final java.lang.reflect.Field fences = EpLock.class.getDeclaredField("fences");
        fences.setAccessible(true);
        final int symmetric = 2;
        if (!AsymmetricFence.ASYMMETRIC)
        {
            assertEquals(symmetric, fences.getInt(lock), "no heavy fence: the consumer always fences");
            return;
        }
        final Thread engine = Thread.ofPlatform().unstarted(() ->
        {
            lock.lock();
            probe.add();
            lock.unlock();
        });
        for (int i = 0; i < 16; i++)
        {
            assertTrue(lock.lockAsConsumer());
            probe.add();
            lock.donePlacing();
            lock.unlock();
            final Thread t = Thread.ofPlatform().start(engine::run);
            t.join();
            assertEquals(0, fences.getInt(lock), "after " + (i + 1) + " takes by another thread");
        }
        final Thread seventeenth = Thread.ofPlatform().start(engine::run);
        seventeenth.join();
        assertEquals(symmetric, fences.getInt(lock), "from the seventeenth take on, the consumer fences for itself");
        assertTrue(lock.lockAsConsumer());
        probe.add();
        lock.donePlacing();
        lock.unlock();
        assertEquals(34, probe.count());
        assertFalse(lock.placingByOther(0), "the lock is free and nobody places");
    }

    /**
     * Takers that fence for the consumer seldom next to its own takes (one in 300 here: a port's
     * thread that now and then reports a Send for a busy poster) leave it unfenced beyond sixteen;
     * a run of their takes with none of the consumer's in between makes it fence for itself.
     */
    @Test
    void takersThatFenceSeldomBesideTheConsumersTakesLeaveItUnfenced() throws Exception
    {
        final java.lang.reflect.Field fences = EpLock.class.getDeclaredField("fences");
        fences.setAccessible(true);
        if (!AsymmetricFence.ASYMMETRIC)
        {
            return;
        }
        final Runnable engine = () ->
        {
            lock.lock();
            probe.add();
            lock.unlock();
        };
        for (int i = 0; i < 40; i++)
        {
            for (int k = 0; k < 300; k++)
            {
                assertTrue(lock.lockAsConsumer());
                probe.add();
                lock.donePlacing();
                lock.unlock();
            }
            final Thread t = Thread.ofPlatform().start(engine);
            t.join();
        }
        assertEquals(0, fences.getInt(lock), "40 heavy fences beside 12,000 takes of the consumer");
        for (int i = 0; i < 20; i++)
        {
            final Thread t = Thread.ofPlatform().start(engine);
            t.join();
        }
        assertEquals(2, fences.getInt(lock), "60 heavy fences beside 12,000 takes: the consumer fences for itself");
        assertTrue(lock.lockAsConsumer());
        probe.add();
        lock.donePlacing();
        lock.unlock();
        assertEquals(40 * 301 + 21, probe.count());
    }

}

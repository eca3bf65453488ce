package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testkit.ExclusionProbe;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The port's progress lock: one holder at a time across its try-takers and a thread that must
 * have it, nested holds by the holder, a must-taker that is not starved by threads that keep
 * trying, and a clear error for a thread that gives back what it does not hold.
 */
class ProgressLockTest
{
    private static final int ROUNDS = 200_000;

    private final ProgressLock lock = new ProgressLock();
    private final ExclusionProbe probe = new ExclusionProbe();

    @Test
    void oneHolderAtATimeAmongTryTakersAndAMustTaker() throws Exception
    {
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final AtomicInteger taken = new AtomicInteger();
        final CyclicBarrier start = new CyclicBarrier(3);
        final Runnable trier = () -> ExclusionProbe.run(start, failed, ROUNDS, () ->
        {
            if (lock.tryLock())
            {
                probe.add();
                taken.incrementAndGet();
                lock.unlock();
            }
        });
        final Runnable must = () -> ExclusionProbe.run(start, failed, ROUNDS, () ->
        {
            lock.lock();
            probe.add();
            taken.incrementAndGet();
            lock.unlock();
        });
        final Thread[] threads = {new Thread(trier), new Thread(trier), new Thread(must)};
        for (final Thread t : threads)
        {
            t.start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        assertNull(failed.get(), () -> "a holder failed: " + failed.get());
        assertEquals(taken.get(), probe.count(), "increments were lost: two threads held the lock at once");
        assertFalse(lock.isHeldByCurrentThread());
        assertTrue(lock.tryLock(), "free once everybody gave it back");
        lock.unlock();
    }

    @Test
    void theHolderNestsAndOnlyTheLastUnlockFreesIt() throws Exception
    {
        assertTrue(lock.tryLock());
        assertTrue(lock.tryLock(), "the holder takes it again");
        lock.lock();
        lock.unlock();
        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread());
        assertFalse(tryOnAnotherThread(), "another thread took it while a hold was left");
        lock.unlock();
        assertFalse(lock.isHeldByCurrentThread());
        assertTrue(tryOnAnotherThread(), "another thread could not take a free lock");
    }

    @Test
    void aThreadThatKeepsTryingDoesNotStarveOneThatMustHaveIt()
    {
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread trier = new Thread(() ->
        {
            while (!stop.get())
            {
                if (lock.tryLock())
                {
                    Thread.onSpinWait();
                    lock.unlock();
                }
            }
        });
        trier.start();
        try
        {
            // a guard against a hang, not a measurement: each take waits for one hold at most
            assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
            {
                for (int i = 0; i < 1_000; i++)
                {
                    lock.lock();
                    probe.add();
                    lock.unlock();
                }
            });
        }
        finally
        {
            stop.set(true);
        }
        assertEquals(1_000, probe.count());
    }

    @Test
    void givingBackALockNotHeldIsAnError() throws Exception
    {
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(lock.tryLock());
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final Thread t = new Thread(() ->
        {
            try
            {
                lock.unlock();
            }
            catch (final Throwable e)
            {
                thrown.set(e);
            }
        });
        t.start();
        t.join();
        assertTrue(thrown.get() instanceof IllegalMonitorStateException, "another thread gave back our hold");
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
    }

    private boolean tryOnAnotherThread() throws InterruptedException
    {
        final AtomicBoolean got = new AtomicBoolean();
        final Thread t = new Thread(() ->
        {
            if (lock.tryLock())
            {
                got.set(true);
                lock.unlock();
            }
        });
        t.start();
        t.join();
        return got.get();
    }

}

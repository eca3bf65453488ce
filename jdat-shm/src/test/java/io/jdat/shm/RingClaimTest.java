package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The claim of a connection's inbound ring: one holder at a time, nobody waits, and the end of
 * the connection unmaps exactly once, never under a holder: at once when the claim is free, else
 * at the holder's release.
 */
class RingClaimTest
{
    @Test
    void oneHolderAtATimeAndTheEndWaitsForTheHoldersRelease() throws Exception
    {
        final RingClaim claim = new RingClaim();
        assertTrue(claim.take());
        assertTrue(claim.heldByCurrentThread());
        final AtomicReference<Boolean> other = new AtomicReference<>();
        final Thread t = new Thread(() -> other.set(claim.take()));
        t.start();
        t.join();
        assertEquals(Boolean.FALSE, other.get(), "a second thread took a held claim");
        final AtomicInteger unmaps = new AtomicInteger();
        claim.close(unmaps::incrementAndGet);
        assertEquals(0, unmaps.get(), "unmapped under the holder");
        claim.release();
        assertEquals(1, unmaps.get(), "the holder's release did not unmap");
        assertFalse(claim.take(), "taken after the end");
        assertFalse(claim.heldByCurrentThread());
        assertEquals(1, unmaps.get());
    }

    @Test
    void aFreeClaimUnmapsAtTheEnd()
    {
        final RingClaim claim = new RingClaim();
        assertTrue(claim.take());
        claim.release();
        final AtomicInteger unmaps = new AtomicInteger();
        claim.close(unmaps::incrementAndGet);
        assertEquals(1, unmaps.get());
        assertFalse(claim.take());
    }

    /**
     * Two holders race to take and release while a third thread ends the connection at a random
     * moment: no two hold it at once, the unmap runs exactly once, and never while a holder reads.
     */
    @Test
    void theEndRacingTwoHoldersUnmapsOnceAndNeverUnderAHolder() throws Exception
    {
        for (int round = 0; round < 2_000; round++)
        {
            final RingClaim claim = new RingClaim();
            final AtomicInteger inside = new AtomicInteger();
            final AtomicInteger unmaps = new AtomicInteger();
            final AtomicReference<String> failure = new AtomicReference<>();
            final CountDownLatch go = new CountDownLatch(1);
            final Runnable holder = () ->
            {
                await(go);
                for (int i = 0; i < 200 && unmaps.get() == 0; i++)
                {
                    if (claim.take())
                    {
                        if (inside.incrementAndGet() != 1)
                        {
                            failure.compareAndSet(null, "two holders at once");
                        }
                        if (unmaps.get() != 0)
                        {
                            failure.compareAndSet(null, "taken after the unmap");
                        }
                        Thread.onSpinWait();
                        inside.decrementAndGet();
                        claim.release();
                    }
                }
            };
            final Thread a = new Thread(holder);
            final Thread b = new Thread(holder);
            a.start();
            b.start();
            go.countDown();
            for (int i = 0; i < round % 50; i++)
            {
                Thread.onSpinWait();
            }
            claim.close(() ->
            {
                if (inside.get() != 0)
                {
                    failure.compareAndSet(null, "unmapped under a holder");
                }
                unmaps.incrementAndGet();
            });
            a.join();
            b.join();
            assertNull(failure.get(), "round " + round);
            assertEquals(1, unmaps.get(), "unmaps in round " + round);
        }
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}

package io.jdat.engine.channel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link PlacementClaim}: the engine's close waits for a write into placed memory that is in
 * progress, and no write begins after it; the closing thread itself is never made to wait.
 */
class PlacementClaimTest
{
    @Test
    void aCloseWaitsForTheWriteInProgressAndNoWriteBeginsAfterIt() throws Exception
    {
        final PlacementClaim claim = new PlacementClaim();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean writing = new AtomicBoolean();
        final Thread reader = Thread.ofPlatform().start(() ->
        {
            assertTrue(claim.enter());
            writing.set(true);
            entered.countDown();
            try
            {
                release.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            writing.set(false);
            claim.exit();
        });
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        final CountDownLatch closed = new CountDownLatch(1);
        final AtomicBoolean sawWriting = new AtomicBoolean();
        final Thread closer = Thread.ofPlatform().start(() ->
        {
            claim.close();
            sawWriting.set(writing.get());
            closed.countDown();
        });
        assertFalse(closed.await(200, TimeUnit.MILLISECONDS), "the close returned while a write was in progress");
        release.countDown();
        assertTrue(closed.await(5, TimeUnit.SECONDS), "the close did not return after the write ended");
        assertFalse(sawWriting.get(), "the close returned before the write ended");
        reader.join(5000);
        closer.join(5000);
        assertFalse(claim.enter(), "a write began after the close");
    }

    @Test
    void theClosingThreadItselfDoesNotWaitForItsOwnClaim()
    {
        final PlacementClaim claim = new PlacementClaim();
        assertTrue(claim.enter());
        // an engine callback on the reading thread that ends the connection
        claim.close();
        claim.exit();
        assertFalse(claim.enter());
    }
}

package io.jdat.conformance;

import io.jdat.Cno;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.OsWaitProxyAgent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds a loopback connection's traffic still, so that requests stay outstanding. The loopback
 * channel delivers on the thread that posts; the first receive completion on {@link #recvEvd}
 * triggers a CNO whose proxy agent blocks that thread inside the delivery until
 * {@link #release()}. Meanwhile the sending endpoint's request is still in flight, and whatever
 * it posts next waits in its request queue behind it: that is how a test fills a request queue,
 * or catches an endpoint with requests outstanding.
 */
final class StalledDelivery implements AutoCloseable
{
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final Cno cno;
    private CompletableFuture<Void> poster;

    StalledDelivery(final Fixture f)
    {
        cno = f.ia.cnoCreate(new OsWaitProxyAgent(null, (data, evd) -> hold()));
    }

    /** A recv EVD whose first notification stalls the thread that delivered it. */
    EventDispatcher recvEvd(final Fixture f)
    {
        return f.ia.evdCreate(256, cno, EvdFlags.DTO_FLAG);
    }

    private void hold()
    {
        entered.countDown();
        try
        {
            released.await(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs {@code post} (a Send to the endpoint of {@link #recvEvd}) on another thread and returns
     * once that thread is held inside the delivery.
     */
    void stall(final Runnable post)
    {
        poster = CompletableFuture.runAsync(post, Fixture.THREADS);
        try
        {
            if (!entered.await(5, TimeUnit.SECONDS))
            {
                throw new AssertionError("the delivery did not reach the receiver's CNO");
            }
        }
        catch (final InterruptedException e)
        {
            throw new AssertionError(e);
        }
    }

    /** Lets the delivery go on and waits (up to 5 s) until the posting thread is done. */
    void release()
    {
        released.countDown();
        try
        {
            poster.get(5, TimeUnit.SECONDS);
        }
        catch (final Exception e)
        {
            throw new AssertionError("the stalled post did not finish", e);
        }
    }

    @Override
    public void close()
    {
        released.countDown();
    }
}

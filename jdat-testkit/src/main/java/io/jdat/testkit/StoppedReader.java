package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What the stopped-reader tests share, whichever way their peer stops reading (a ring it no
 * longer consumes, a socket whose window it shut): the stream of Sends and RDMA Writes that fills
 * the endpoint's request queue, the honest exchange that runs on the same IA meanwhile, and the
 * heap held while the queue is full.
 */
public final class StoppedReader
{
    /** More heap than this after GC with the queue full means the queued messages were copied. */
    public static final long HEAP_SLACK = 8 << 20;

    private StoppedReader()
    {
    }

    /**
     * Posts DTO {@code cookie} of {@code iov}: a Send for an even cookie, an RDMA Write of the same
     * length for an odd one (to an STag the peer never checks, since it reads nothing).
     */
    public static void post(final ProviderNode.Ep ep, final LmrTriplet[] iov, final long cookie)
    {
        if (cookie % 2 == 0)
        {
            ep.ep().postSend(1, iov, cookie, 0);
        }
        else
        {
            ep.ep().postRdmaWrite(1, iov, cookie, new RmrTriplet(0x1234, 0, iov[0].segmentLength), 0);
        }
    }

    /** Runs {@code exchange} (returning its milliseconds) on a daemon thread of its own. */
    public static CompletableFuture<Long> meanwhile(final Supplier<Long> exchange)
    {
        return CompletableFuture.supplyAsync(exchange,
            task -> Thread.ofPlatform().daemon().name("test-honest").start(task));
    }

    /** The heap in use after a GC. */
    public static long heapAfterGc()
    {
        System.gc();
        final Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    /** The queue's messages are the consumer's registered memory, never copied to the heap. */
    public static void assertNotCopied(final long heapBefore, final long heapDuring)
    {
        assertTrue(heapDuring < heapBefore + HEAP_SLACK, "heap after GC " + heapBefore + " before, " + heapDuring
            + " with the queue full");
    }

    /** The line the tests print: how late the break came, the honest exchange's time, the heap. */
    public static String summary(final String bound, final long ms, final long honestMs, final long heapBefore,
        final long heapDuring, final long heapAfter)
    {
        return "broken " + ms + " ms after " + bound + "; an honest connect and Send on the same IA took " + honestMs
            + " ms meanwhile; heap after GC " + (heapBefore >> 10) + " / " + (heapDuring >> 10) + " / "
            + (heapAfter >> 10) + " KiB";
    }
}

package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * An endpoint's messages keep their posting order when some of them are placed by the posting
 * thread itself and others wait in the loopback channel's queue. Four threads post to one
 * endpoint: each an RDMA Write of 32 KiB of filler and a growing number into its own word of
 * the peer's memory (a Write of two pieces goes through the channel's queue, and its copy
 * keeps the delivery busy), then a Send (which the poster places at once when nothing is
 * queued before it). Before posting a Send a thread reads the numbers whose Writes any of them
 * has finished posting, and the Send carries them: by then those Writes stand before the Send
 * in the endpoint's order, so the receiver must find every word at least that large when the
 * Send arrives. A Send that overtook a queued Write finds a smaller one.
 */
class SendOrderStressTest
{
    private static final int THREADS = 4;
    private static final int MESSAGES = 5_000;
    private static final int RECEIVES = 32;
    private static final int SEND = THREADS * 8;
    /** Each Write carries this much filler before its number, so delivering it takes a while. */
    private static final int FILL = 32 * 1024;
    private static final long WORD = FILL + 8;

    @Test
    void aSendPlacedByItsPosterNeverOvertakesAnEarlierQueuedWrite() throws Exception
    {
        try (Fixture f = new Fixture())
        {
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = RECEIVES;
            attr.maxRequestDtos = 64;
            attr.maxRdmaWriteIov = 2;
            attr.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            final Fixture.Ep[] p = f.connectedPair(attr);
            // the sender's memory: per thread, a word per Write and a word per thread per Send, never reused
            final Lmr writes = f.lmr((long) THREADS * MESSAGES * 8);
            final Lmr sends = f.lmr((long) THREADS * MESSAGES * SEND);
            // the receiver's: one word per thread that the Writes land in, and the receive slots
            final Lmr words = f.lmr(THREADS * WORD);
            final Lmr filler = f.lmr(FILL);
            final Lmr slots = f.lmr((long) RECEIVES * SEND);
            for (int i = 0; i < RECEIVES; i++)
            {
                p[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(slots, (long) i * SEND, SEND)}, i, 0);
            }
            final AtomicLong credits = new AtomicLong(RECEIVES);
            final AtomicLong used = new AtomicLong();
            final AtomicLongArray written = new AtomicLongArray(THREADS);
            final CompletableFuture<?>[] posters = new CompletableFuture<?>[THREADS];
            for (int t = 0; t < THREADS; t++)
            {
                final int me = t;
                posters[t] = CompletableFuture.runAsync(() ->
                    post(p[0], me, filler, writes, sends, words, credits, used, written), Fixture.THREADS);
            }
            final DatEvent ev = new DatEvent();
            final MemorySegment w = words.memory();
            final MemorySegment s = slots.memory();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (long seq = 0; seq < (long) THREADS * MESSAGES; seq++)
            {
                while (p[1].recv().dequeue(ev) != DatStatus.SUCCESS)
                {
                    assertTrue(System.nanoTime() < deadline, "receive " + seq + " never completed");
                    for (final CompletableFuture<?> poster : posters)
                    {
                        if (poster.isCompletedExceptionally())
                        {
                            // its exception, with the cause
                            poster.join();
                        }
                    }
                    Thread.onSpinWait();
                }
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev::toString);
                final long slot = ev.dto.userCookie % RECEIVES;
                for (int t = 0; t < THREADS; t++)
                {
                    final long known = s.get(ValueLayout.JAVA_LONG_UNALIGNED, slot * SEND + t * 8L);
                    final long landed = w.get(ValueLayout.JAVA_LONG_UNALIGNED, t * WORD + FILL);
                    final int tt = t;
                    assertTrue(landed >= known, () -> "Send " + ev.dto.userCookie + " arrived before thread " + tt
                        + "'s Write of " + known + " (the word holds " + landed + ")");
                }
                p[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(slots, slot * SEND, SEND)},
                    ev.dto.userCookie + RECEIVES, 0);
                credits.incrementAndGet();
            }
            for (final CompletableFuture<?> poster : posters)
            {
                poster.get(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void post(final Fixture.Ep from, final int me, final Lmr filler, final Lmr writes, final Lmr sends,
        final Lmr words, final AtomicLong credits, final AtomicLong used, final AtomicLongArray written)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        final RmrTriplet word = new RmrTriplet(words.rmrContext(), words.registeredAddress() + me * WORD, WORD);
        for (int k = 1; k <= MESSAGES; k++)
        {
            final long at = ((long) me * MESSAGES + k - 1) * 8;
            writes.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, at, k);
            final LmrTriplet[] w = {LmrTriplet.of(filler, 0, FILL), LmrTriplet.of(writes, at, 8)};
            while (!posted(() -> from.ep().postRdmaWrite(2, w, 0, word,
                CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG)))
            {
                assertTrue(System.nanoTime() < deadline, "the request queue stayed full");
                Thread.onSpinWait();
            }
            written.set(me, k);
            // a receive for the Send
            long u;
            do
            {
                u = used.get();
                assertTrue(System.nanoTime() < deadline, "no receive credit");
                Thread.onSpinWait();
            }
            while (u >= credits.get() || !used.compareAndSet(u, u + 1));
            final long slot = ((long) me * MESSAGES + k - 1) * SEND;
            for (int t = 0; t < THREADS; t++)
            {
                sends.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, slot + t * 8L, written.get(t));
            }
            final LmrTriplet[] s = {LmrTriplet.of(sends, slot, SEND)};
            while (!posted(() -> from.ep().postSend(1, s, 0,
                CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG)))
            {
                assertTrue(System.nanoTime() < deadline, "the request queue stayed full");
                Thread.onSpinWait();
            }
        }
    }

    /** Runs a post; false if the request queue was full (max_request_dtos outstanding). */
    private static boolean posted(final Runnable post)
    {
        try
        {
            post.run();
            return true;
        }
        catch (final DatException e)
        {
            if (e.type() != DatReturnType.INSUFFICIENT_RESOURCES)
            {
                throw e;
            }
            return false;
        }
    }
}

package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The receive queue under real threads: the receiving consumer posts receives while the sending
 * thread places Sends into them without the receiving endpoint's lock, on a queue of four
 * buffers that wraps thousands of times. The sender sends only into receives it knows are posted
 * (a credit per posted receive), and the receiver reposts as soon as it reaped a completion, so
 * the queue is full most of the time. Every receive must complete once, in posting order, with
 * its own message's bytes; the repost after a reaped completion must always find room. Then the
 * receiver disconnects abruptly while the last Sends are being placed: each receive completes
 * exactly once, placed (with the right bytes) or flushed, and no placement follows a flush.
 */
class RecvQueueStressTest
{
    private static final int QUEUE = 4;
    private static final int SLOT = 64;
    private static final int MESSAGES = 20_000;
    private static final int ROUNDS = 20;

    private static LmrTriplet[] iov(final Lmr lmr, final long index)
    {
        return new LmrTriplet[] {LmrTriplet.of(lmr, index * SLOT, SLOT)};
    }

    /** Fills a slot with the bytes of message {@code seq}. */
    private static void stamp(final MemorySegment m, final long slot, final long seq)
    {
        for (int i = 0; i < SLOT; i += 8)
        {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, slot * SLOT + i, seq * 31 + i);
        }
    }

    private static boolean stamped(final MemorySegment m, final long slot, final long seq)
    {
        for (int i = 0; i < SLOT; i += 8)
        {
            if (m.get(ValueLayout.JAVA_LONG_UNALIGNED, slot * SLOT + i) != seq * 31 + i)
            {
                return false;
            }
        }
        return true;
    }

    private static Fixture.Ep[] pair(final Fixture f)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = QUEUE;
        attr.maxRequestDtos = QUEUE * 4;
        attr.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
        return f.connectedPair(attr);
    }

    /** The sender: message {@code seq} goes out once receive {@code seq} is known to be posted. */
    private static CompletableFuture<Integer> sender(final Fixture.Ep from, final Lmr source, final AtomicLong credits,
        final int messages, final AtomicBoolean stop)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int seq = 0;
            try
            {
                for (; seq < messages; seq++)
                {
                    while (credits.get() <= seq)
                    {
                        if (stop.get())
                        {
                            return seq;
                        }
                        assertTrue(System.nanoTime() < deadline, "no credit for message " + seq);
                        Thread.onSpinWait();
                    }
                    from.ep().postSend(1, iov(source, seq), seq,
                        CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG);
                }
            }
            catch (final DatException e)
            {
                // the connection went (the abrupt rounds): the rest is not sent
            }
            return seq;
        }, Fixture.THREADS);
    }

    @Test
    void postsAndPlacementsRaceOnAFullQueueAndEveryReceiveCompletesOnceInOrder() throws Exception
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith(Fixture.RING_EVD)))
        {
            final Fixture.Ep[] p = pair(f);
            final Lmr source = f.lmr((long) MESSAGES * SLOT);
            final Lmr received = f.lmr((long) QUEUE * SLOT);
            for (int seq = 0; seq < MESSAGES; seq++)
            {
                stamp(source.memory(), seq, seq);
            }
            final AtomicLong credits = new AtomicLong();
            for (int i = 0; i < QUEUE; i++)
            {
                p[1].ep().postRecv(1, iov(received, i), i, 0);
            }
            credits.set(QUEUE);
            final CompletableFuture<Integer> sent = sender(p[0], source, credits, MESSAGES,
                new AtomicBoolean());
            final DatEvent ev = new DatEvent();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (long seq = 0; seq < MESSAGES; seq++)
            {
                while (p[1].recv().dequeue(ev) != DatStatus.SUCCESS)
                {
                    assertTrue(System.nanoTime() < deadline, "receive " + seq + " never completed");
                    assertFalse(sent.isCompletedExceptionally(), "the sender failed");
                    Thread.onSpinWait();
                }
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev::toString);
                assertEquals(seq, ev.dto.userCookie, "completions out of order");
                assertEquals(SLOT, ev.dto.transferredLength);
                final long slot = seq % QUEUE;
                final long s = seq;
                assertTrue(stamped(received.memory(), slot, seq), () -> "receive " + s + " holds other bytes");
                // the slot just reaped must be free again at once
                p[1].ep().postRecv(1, iov(received, slot), seq + QUEUE, 0);
                credits.incrementAndGet();
            }
            assertEquals(MESSAGES, sent.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void anAbruptDisconnectAmidPlacementsCompletesEachReceiveOnceInOrder() throws Exception
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith(Fixture.RING_EVD)))
        {
            final int messages = 4_000;
            final Lmr source = f.lmr((long) messages * SLOT);
            final Lmr received = f.lmr((long) QUEUE * SLOT);
            for (int seq = 0; seq < messages; seq++)
            {
                stamp(source.memory(), seq, seq);
            }
            for (int round = 0; round < ROUNDS; round++)
            {
                abruptRound(f, source, received, messages, 500 + round * 150);
            }
        }
    }

    private static void abruptRound(final Fixture f, final Lmr source, final Lmr received, final int messages,
        final int cut)
    {
        final Fixture.Ep[] p = pair(f);
        final AtomicLong credits = new AtomicLong();
        for (int i = 0; i < QUEUE; i++)
        {
            p[1].ep().postRecv(1, iov(received, i), i, 0);
        }
        credits.set(QUEUE);
        final AtomicBoolean stop = new AtomicBoolean();
        // the sender stops two messages past the cut: those two race with the disconnect, and
        // the receives posted behind them are certainly still empty when it comes
        final CompletableFuture<Integer> sent = sender(p[0], source, credits, Math.min(messages, cut + 2), stop);
        final DatEvent ev = new DatEvent();
        long posted = QUEUE;
        boolean flushed = false;
        for (long seq = 0; seq < posted; seq++)
        {
            if (seq == cut)
            {
                p[1].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            }
            final DatEvent e = Connecting.event(p[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(seq, e.dto.userCookie, "completions out of order, or one twice");
            if (e.dto.status == DtoStatus.SUCCESS)
            {
                assertFalse(flushed, "a receive placed after one was flushed");
                final long s = seq;
                assertTrue(stamped(received.memory(), seq % QUEUE, seq), () -> "receive " + s + " holds other bytes");
            }
            else
            {
                assertEquals(DtoStatus.ERR_FLUSHED, e.dto.status, e::toString);
                flushed = true;
            }
            if (seq < cut)
            {
                p[1].ep().postRecv(1, iov(received, seq % QUEUE), posted, 0);
                posted++;
                credits.incrementAndGet();
            }
        }
        assertTrue(flushed, "the disconnect flushed nothing");
        assertEquals(DatStatus.QUEUE_EMPTY, p[1].recv().dequeue(ev), "a receive completed twice");
        stop.set(true);
        try
        {
            sent.get(10, TimeUnit.SECONDS);
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
        p[0].ep().free();
        p[1].ep().free();
    }
}

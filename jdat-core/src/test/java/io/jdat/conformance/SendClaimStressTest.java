package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Several threads post to one endpoint while the connection ends under them: the send claim a
 * poster takes with its endpoint lock's compare-and-set (and places its own Send under) against a
 * disconnect from another thread, on the sending side in half of the rounds, on the receiving side
 * in the other half. Three posters each post Sends and, every fourth post, an RDMA Write of two
 * pieces (which waits in the channel's queue, so Sends queue behind it) into a request queue of
 * four; a fourth thread disconnects abruptly after a random pause. Then:
 * <ul>
 *   <li>every request completes exactly once, each thread's in its posting order, and once one
 *       completes in error every later one does too (flushed after the disconnect);</li>
 *   <li>every receive completes exactly once; a receive reported flushed holds no byte (nothing
 *       is placed into a buffer the flush gave back); a Send received was not the first request
 *       reported flushed, and every Send reported successful was received;</li>
 *   <li>a post to a full request queue fails with DAT_INSUFFICIENT_RESOURCES (and is retried):
 *       seen in some round.</li>
 * </ul>
 * The same with one poster on an IA of loopback's {@code nonthreadsafe} entry, whose posts take
 * the endpoint lock without an atomic, against the receiver's disconnect (its close reaches the
 * sender's endpoint on the disconnecting thread, as a peer's would).
 */
class SendClaimStressTest
{
    private static final int ROUNDS = 400;
    private static final int POSTERS = 3;
    private static final int POSTS = 40;
    /** A Send's size: its copy takes microseconds, so a close often comes while one is placed. */
    private static final int SLOT = 64 * 1024;
    private static final int RECEIVES = POSTERS * POSTS;

    @Test
    void postersRacingADisconnectCompleteEveryRequestOnceInOrder() throws Exception
    {
        final AtomicLong full = new AtomicLong();
        run(true, POSTERS, full);
        assertTrue(full.get() > 0, "no post ever found the request queue full");
    }

    @Test
    void aSingleWriterPosterRacingTheReceiversDisconnectCompletesEveryRequestOnce() throws Exception
    {
        run(false, 1, new AtomicLong());
    }

    private static void run(final boolean threadSafe, final int posters, final AtomicLong full) throws Exception
    {
        try (Fixture f = new Fixture("loopback", threadSafe))
        {
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = RECEIVES;
            attr.maxRequestDtos = 4;
            attr.maxRdmaWriteIov = 2;
            final Lmr out = f.lmr((long) POSTERS * POSTS * SLOT);
            final Lmr in = f.lmr((long) RECEIVES * SLOT);
            final Lmr words = f.lmr((long) POSTERS * POSTS * 8);
            for (int t = 0; t < POSTERS; t++)
            {
                for (int k = 0; k < POSTS; k++)
                {
                    final long at = ((long) t * POSTS + k) * SLOT;
                    out.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, at, cookie(t, k));
                    out.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, at + SLOT - 8, cookie(t, k));
                }
            }
            for (int round = 0; round < ROUNDS; round++)
            {
                // a single-writer IA's one consumer thread posts: only the receiver disconnects
                round(f, attr, threadSafe ? round % 4 : 2 + round % 2, posters, out, in, words, full);
            }
        }
    }

    private static long cookie(final int thread, final int k)
    {
        return ((long) (thread + 1) << 32) | (k + 1);
    }

    /**
     * One round; {@code kind}: 0 and 1 the sender disconnects (abruptly, gracefully), 2 and 3 the
     * receiver does.
     */
    private static void round(final Fixture f, final EpAttr attr, final int kind, final int posters,
        final Lmr out, final Lmr in, final Lmr words, final AtomicLong full) throws Exception
    {
        in.memory().fill((byte) 0);
        final Fixture.Ep[] p = f.connectedPair(attr);
        for (int i = 0; i < RECEIVES; i++)
        {
            p[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(in, (long) i * SLOT, SLOT)}, i, 0);
        }
        final CyclicBarrier start = new CyclicBarrier(posters + 1);
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final AtomicLong posted = new AtomicLong();
        final Thread[] threads = new Thread[posters + 1];
        for (int t = 0; t < posters; t++)
        {
            final int me = t;
            threads[t] = Thread.ofPlatform().daemon().name("poster-" + t).start(() ->
            {
                try
                {
                    start.await();
                    for (int k = 0; k < POSTS && post(p[0], me, k, out, words, full); k++)
                    {
                        posted.incrementAndGet();
                    }
                }
                catch (final Throwable e)
                {
                    failed.compareAndSet(null, e);
                }
            });
        }
        final int pause = ThreadLocalRandom.current().nextInt(4_000);
        threads[posters] = Thread.ofPlatform().daemon().name("disconnector").start(() ->
        {
            try
            {
                start.await();
                for (int i = 0; i < pause; i++)
                {
                    Thread.onSpinWait();
                }
                final int flags = kind % 2 == 0 ? CloseFlags.ABRUPT_FLAG : CloseFlags.GRACEFUL_FLAG;
                p[kind < 2 ? 0 : 1].ep().disconnect(flags);
            }
            catch (final Throwable e)
            {
                failed.compareAndSet(null, e);
            }
        });
        for (final Thread t : threads)
        {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!t.isAlive(), t.getName() + " did not finish");
        }
        if (failed.get() != null)
        {
            throw new AssertionError(failed.get());
        }
        final List<DatEvent> requests = drain(p[0].req(), (int) posted.get(), "request");
        final List<DatEvent> receives = drain(p[1].recv(), RECEIVES, "receive");
        checkRequests(requests);
        checkReceives(requests, receives, in);
        for (final Fixture.Ep ep : p)
        {
            ep.ep().free();
            ep.recv().free();
            ep.req().free();
            ep.conn().free();
        }
    }

    /** Posts request {@code k} of thread {@code me}; false if the endpoint no longer takes requests. */
    private static boolean post(final Fixture.Ep from, final int me, final int k, final Lmr out, final Lmr words,
        final AtomicLong full)
    {
        final long c = cookie(me, k);
        final long at = ((long) me * POSTS + k) * SLOT;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true)
        {
            try
            {
                if (k % 4 == 3)
                {
                    final long word = ((long) me * POSTS + k) * 8;
                    final RmrTriplet to = new RmrTriplet(words.rmrContext(), words.registeredAddress() + word, 8);
                    // the cookie in two pieces: the Write waits in the channel's queue
                    from.ep().postRdmaWrite(2, new LmrTriplet[] {LmrTriplet.of(out, at, 4),
                        LmrTriplet.of(out, at + 4, 4)}, c, to, CompletionFlags.DEFAULT_FLAG);
                }
                else
                {
                    from.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(out, at, SLOT)}, c,
                        CompletionFlags.DEFAULT_FLAG);
                }
                return true;
            }
            catch (final DatException e)
            {
                if (e.type() == DatReturnType.INVALID_STATE)
                {
                    // DISCONNECT_PENDING: a graceful disconnect of this endpoint is under way
                    return false;
                }
                if (e.type() != DatReturnType.INSUFFICIENT_RESOURCES)
                {
                    throw e;
                }
                full.incrementAndGet();
                assertTrue(System.nanoTime() < deadline, "the request queue stayed full");
                Thread.onSpinWait();
            }
        }
    }

    private static List<DatEvent> drain(final EventDispatcher evd, final int n, final String what)
    {
        final List<DatEvent> events = new ArrayList<>(n);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        DatEvent ev = new DatEvent();
        while (events.size() < n)
        {
            if (evd.dequeue(ev) == DatStatus.SUCCESS)
            {
                assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev::toString);
                events.add(ev);
                ev = new DatEvent();
                continue;
            }
            if (System.nanoTime() > deadline)
            {
                fail(events.size() + " of " + n + " " + what + " completions came");
            }
            Thread.onSpinWait();
        }
        final DatEvent extra = ev;
        assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(extra), () -> "one " + what + " too many: " + extra);
        return events;
    }

    private static void checkRequests(final List<DatEvent> requests)
    {
        final Set<Long> seen = new HashSet<>();
        final int[] last = new int[POSTERS];
        boolean failing = false;
        for (final DatEvent ev : requests)
        {
            final long c = ev.dto.userCookie;
            assertTrue(seen.add(c), () -> "request " + Long.toHexString(c) + " completed twice");
            final int thread = (int) (c >>> 32) - 1;
            final int k = (int) c;
            assertTrue(k > last[thread], () -> "request " + Long.toHexString(c) + " completed after a later one");
            last[thread] = k;
            if (ev.dto.status != DtoStatus.SUCCESS)
            {
                failing = true;
            }
            else
            {
                assertTrue(!failing, () -> "request " + Long.toHexString(c) + " succeeded after one failed");
            }
        }
    }

    private static void checkReceives(final List<DatEvent> requests, final List<DatEvent> receives, final Lmr in)
    {
        final Map<Long, DtoStatus> sent = new HashMap<>();
        long firstFailed = 0;
        for (final DatEvent ev : requests)
        {
            sent.put(ev.dto.userCookie, ev.dto.status);
            if (firstFailed == 0 && ev.dto.status != DtoStatus.SUCCESS)
            {
                firstFailed = ev.dto.userCookie;
            }
        }
        final Set<Long> slots = new HashSet<>();
        final Set<Long> got = new HashSet<>();
        boolean failing = false;
        final MemorySegment m = in.memory();
        for (final DatEvent ev : receives)
        {
            final long slot = ev.dto.userCookie;
            assertTrue(slots.add(slot), () -> "receive " + slot + " completed twice");
            final long c = m.get(ValueLayout.JAVA_LONG_UNALIGNED, slot * SLOT);
            final long end = m.get(ValueLayout.JAVA_LONG_UNALIGNED, slot * SLOT + SLOT - 8);
            if (ev.dto.status != DtoStatus.SUCCESS)
            {
                failing = true;
                assertTrue(c == 0 && end == 0, () -> "receive " + slot + " was flushed but holds Send "
                    + Long.toHexString(c | end));
                continue;
            }
            assertEquals(c, end, () -> "receive " + slot + " holds part of a Send");
            assertTrue(!failing, () -> "receive " + slot + " succeeded after one was flushed");
            assertTrue(got.add(c), () -> "Send " + Long.toHexString(c) + " was received twice");
            assertTrue(sent.containsKey(c), () -> "received " + Long.toHexString(c) + ", which was never posted");
            final long first = firstFailed;
            assertTrue(c != first, () -> "Send " + Long.toHexString(c)
                + " was received, yet reported flushed before any other request failed");
        }
        for (final Map.Entry<Long, DtoStatus> e : sent.entrySet())
        {
            final int k = (int) (long) e.getKey() - 1;
            if (e.getValue() == DtoStatus.SUCCESS && k % 4 != 3)
            {
                assertTrue(got.contains(e.getKey()), () -> "Send " + Long.toHexString(e.getKey())
                    + " completed successfully but was never received");
            }
        }
    }
}

package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Several threads post on one endpoint at once ({@code dat_ep_post_send},
 * {@code dat_ep_post_rdma_write}, {@code dat_ep_post_rdma_read}; jdat makes the post calls safe
 * to call concurrently, digest §1.6 [INF]). Every completion arrives exactly once with its own
 * cookie, each thread's requests complete in the order it posted them, and every byte is where
 * it belongs. RDMA Reads from many threads on one credit never overrun the target's IRD
 * (trap T-34). An abrupt disconnect in the middle of it leaves each request either completed and
 * delivered, or flushed and never delivered (but for the one a delivery has in hand).
 */
class EpConcurrencyTest
{
    private static final int THREADS = 4;
    private static final int OPS = 300;
    private static final int SLOT = 64;
    private static final int QUEUE = 32;
    private static final int ROUNDS = 6;

    private static long id(final int thread, final int seq)
    {
        return (long) thread << 32 | seq;
    }

    /** Fills a slot with the bytes that identify request {@code id}. */
    private static void stamp(final MemorySegment slot, final long id)
    {
        slot.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, id);
        for (int i = 8; i < SLOT; i++)
        {
            slot.set(ValueLayout.JAVA_BYTE, i, (byte) (id * 31 + i));
        }
    }

    /** The request a slot identifies, after checking every byte of it. */
    private static long stamped(final MemorySegment slot)
    {
        final long id = slot.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        for (int i = 8; i < SLOT; i++)
        {
            assertEquals((byte) (id * 31 + i), slot.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of " + id);
        }
        return id;
    }

    private static MemorySegment slot(final Lmr lmr, final long index)
    {
        return lmr.memory().asSlice(index * SLOT, SLOT);
    }

    private static LmrTriplet[] iov(final Lmr lmr, final long index)
    {
        return new LmrTriplet[] {LmrTriplet.of(lmr, index * SLOT, SLOT)};
    }

    private static RmrTriplet remote(final Lmr lmr, final long index)
    {
        return new RmrTriplet(lmr.rmrContext(), lmr.registeredAddress() + index * SLOT, SLOT);
    }

    /** Posts until the request queue has room: another thread's delivery frees it. */
    private static void post(final Runnable call)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true)
        {
            try
            {
                call.run();
                return;
            }
            catch (final DatException e)
            {
                assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type(), e::getMessage);
                assertTrue(System.nanoTime() < deadline, "the request queue stayed full");
                Thread.onSpinWait();
            }
        }
    }

    /** Runs {@code body(thread)} on {@link #THREADS} threads that start together; waits for all. */
    private static void concurrently(final java.util.function.IntConsumer body)
    {
        final CountDownLatch start = new CountDownLatch(1);
        final List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final int thread = t;
            all.add(CompletableFuture.runAsync(() ->
            {
                try
                {
                    start.await();
                }
                catch (final InterruptedException e)
                {
                    throw new AssertionError(e);
                }
                body.accept(thread);
            }, Fixture.THREADS));
        }
        start.countDown();
        for (final CompletableFuture<Void> c : all)
        {
            c.orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    /** Two connected endpoints with a short request queue and EVDs that hold every completion. */
    private static Fixture.Ep[] pair(final Fixture f, final int readCredits)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRequestDtos = QUEUE;
        attr.maxRecvDtos = THREADS * OPS;
        attr.maxRdmaReadIn = readCredits;
        attr.maxRdmaReadOut = readCredits;
        final Fixture.Ep[] p = new Fixture.Ep[2];
        for (int i = 0; i < 2; i++)
        {
            final EventDispatcher recv = f.evd(2 * THREADS * OPS, EvdFlags.DTO_FLAG);
            final EventDispatcher req = f.evd(2 * THREADS * OPS, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            p[i] = new Fixture.Ep(f.ia.epCreate(f.pz, recv, req, conn, attr), recv, req, conn);
        }
        EpTest.connect(f, p[0], p[1]);
        return p;
    }

    @Test
    void concurrentSendsWritesAndReadsCompleteExactlyOnceInEachThreadsOrderWithTheirData()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = pair(f, 2);
            final Endpoint ep = p[0].ep();
            final int slots = THREADS * OPS;
            // the initiator's sources and read sinks, the target's receive buffers, write targets, read sources
            final Lmr source = f.lmr((long) slots * SLOT);
            final Lmr sink = f.lmr((long) slots * SLOT);
            final Lmr received = f.lmr((long) slots * SLOT);
            final Lmr written = f.lmr((long) slots * SLOT);
            final Lmr readable = f.lmr((long) slots * SLOT);
            int sends = 0;
            for (int t = 0; t < THREADS; t++)
            {
                for (int seq = 0; seq < OPS; seq++)
                {
                    final int index = t * OPS + seq;
                    stamp(slot(source, index), id(t, seq));
                    stamp(slot(readable, index), id(t, seq) ^ 0x5A5A_0000_0000L);
                    if (seq % 3 == 0)
                    {
                        sends++;
                    }
                }
            }
            for (int i = 0; i < sends; i++)
            {
                p[1].ep().postRecv(1, iov(received, i), i, 0);
            }
            concurrently(t ->
            {
                for (int seq = 0; seq < OPS; seq++)
                {
                    final int index = t * OPS + seq;
                    final long id = id(t, seq);
                    switch (seq % 3)
                    {
                        case 0 -> post(() -> ep.postSend(1, iov(source, index), id, 0));
                        case 1 -> post(() -> ep.postRdmaWrite(1, iov(source, index), id, remote(written, index), 0));
                        default -> post(() -> ep.postRdmaRead(1, iov(sink, index), id, remote(readable, index), 0));
                    }
                }
            });
            // every request completes once, successfully, in the order its thread posted it
            final int[] next = new int[THREADS];
            for (int i = 0; i < slots; i++)
            {
                final DatEvent ev = Connecting.event(p[0].req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev::toString);
                assertEquals(SLOT, ev.dto.transferredLength);
                final int t = (int) (ev.dto.userCookie >>> 32);
                final int seq = (int) ev.dto.userCookie;
                assertEquals(next[t], seq, "thread " + t + "'s requests out of order or duplicated");
                next[t]++;
            }
            Connecting.assertEmpty(p[0].req());
            // every message arrived once; each thread's messages in its order
            final int[] lastSeq = new int[THREADS];
            java.util.Arrays.fill(lastSeq, -1);
            final Set<Long> seen = new HashSet<>();
            for (int i = 0; i < sends; i++)
            {
                final DatEvent ev = Connecting.event(p[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev::toString);
                assertEquals(i, ev.dto.userCookie, "receives complete in the order they were posted");
                final long id = stamped(slot(received, i));
                assertTrue(seen.add(id), "message " + id + " arrived twice");
                final int t = (int) (id >>> 32);
                final int seq = (int) id;
                assertEquals(0, seq % 3, "not a Send: " + id);
                assertTrue(seq > lastSeq[t], "thread " + t + "'s messages out of order");
                lastSeq[t] = seq;
            }
            assertEquals(sends, seen.size());
            Connecting.assertEmpty(p[1].recv());
            // every written and every read slot holds its own bytes
            for (int t = 0; t < THREADS; t++)
            {
                for (int seq = 0; seq < OPS; seq++)
                {
                    final int index = t * OPS + seq;
                    if (seq % 3 == 1)
                    {
                        assertEquals(id(t, seq), stamped(slot(written, index)));
                    }
                    else if (seq % 3 == 2)
                    {
                        assertEquals(id(t, seq) ^ 0x5A5A_0000_0000L, stamped(slot(sink, index)));
                    }
                }
            }
        }
    }

    @Test
    void concurrentReadsOnOneCreditNeverOverrunTheTarget()
    {
        // one RDMA Read credit each way: every Read waits for the one before it to be answered,
        // and the target must have freed its slot before the next Read Request reaches it
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = pair(f, 1);
            final Fixture.Ep a = p[0];
            final Fixture.Ep b = p[1];
            final int slots = THREADS * OPS;
            final Lmr sink = f.lmr((long) slots * SLOT);
            final Lmr readable = f.lmr((long) slots * SLOT);
            for (int i = 0; i < slots; i++)
            {
                stamp(slot(readable, i), i);
            }
            concurrently(t ->
            {
                for (int seq = 0; seq < OPS; seq++)
                {
                    final int index = t * OPS + seq;
                    post(() -> a.ep().postRdmaRead(1, iov(sink, index), index, remote(readable, index), 0));
                }
            });
            final Set<Long> done = new HashSet<>();
            for (int i = 0; i < slots; i++)
            {
                final DatEvent ev = Connecting.event(a.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev::toString);
                assertTrue(done.add(ev.dto.userCookie), "completed twice: " + ev);
                assertEquals(ev.dto.userCookie, stamped(slot(sink, ev.dto.userCookie)));
            }
            Connecting.assertEmpty(a.conn());
            Connecting.assertEmpty(b.conn());
        }
    }

    @Test
    void abruptDisconnectWhileThreadsSendLeavesEachSendDeliveredOrFlushedNeverBoth()
    {
        // the race is between the disconnect and deliveries on other threads: run it a few times
        try (Fixture f = new Fixture())
        {
            final int total = THREADS * OPS;
            final Lmr source = f.lmr((long) total * SLOT);
            final Lmr received = f.lmr((long) total * SLOT);
            for (int t = 0; t < THREADS; t++)
            {
                for (int seq = 0; seq < OPS; seq++)
                {
                    stamp(slot(source, t * OPS + seq), id(t, seq));
                }
            }
            for (int round = 0; round < ROUNDS; round++)
            {
                received.memory().fill((byte) 0);
                abruptDisconnectRound(pair(f, 2), source, received);
            }
        }
    }

    private static void abruptDisconnectRound(final Fixture.Ep[] p, final Lmr source, final Lmr received)
    {
        final Endpoint ep = p[0].ep();
        final int total = THREADS * OPS;
        for (int i = 0; i < total; i++)
        {
            p[1].ep().postRecv(1, iov(received, i), i, 0);
        }
        // thread 0 disconnects a quarter of the way through its Sends, while the others post on
        concurrently(t ->
        {
            for (int seq = 0; seq < OPS; seq++)
            {
                if (t == 0 && seq == OPS / 4)
                {
                    ep.disconnect(CloseFlags.ABRUPT_FLAG);
                }
                final int index = t * OPS + seq;
                final long id = id(t, seq);
                post(() -> ep.postSend(1, iov(source, index), id, 0));
            }
        });
        // each Send completes once: delivered, or flushed; once one is flushed, all later ones are
        final Map<Long, DtoStatus> status = new HashMap<>();
        boolean flushing = false;
        for (int i = 0; i < total; i++)
        {
            final DatEvent ev = Connecting.event(p[0].req(), EventNumber.DTO_COMPLETION_EVENT);
            assertTrue(ev.dto.status == DtoStatus.SUCCESS || ev.dto.status == DtoStatus.ERR_FLUSHED,
                ev::toString);
            assertFalse(flushing && ev.dto.status == DtoStatus.SUCCESS, "a success after a flush: " + ev);
            flushing |= ev.dto.status == DtoStatus.ERR_FLUSHED;
            assertNull(status.put(ev.dto.userCookie, ev.dto.status), "completed twice: " + ev);
        }
        assertTrue(flushing, "the disconnect flushed nothing");
        // every receive completes once; what arrived is a whole message that was posted, once
        final Set<Long> arrived = new HashSet<>();
        for (int i = 0; i < total; i++)
        {
            final DatEvent ev = Connecting.event(p[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(i, ev.dto.userCookie);
            if (ev.dto.status == DtoStatus.SUCCESS)
            {
                assertEquals(SLOT, ev.dto.transferredLength, ev::toString);
                final long id = stamped(slot(received, i));
                assertTrue(status.containsKey(id), "never posted: " + id);
                assertTrue(arrived.add(id), "arrived twice: " + id);
            }
            else
            {
                assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status, ev::toString);
            }
        }
        // a completed Send was delivered; a flushed one was not, but for the one a delivery
        // had in hand when the connection went (it may complete either way)
        int flushedButArrived = 0;
        for (final Map.Entry<Long, DtoStatus> e : status.entrySet())
        {
            if (e.getValue() == DtoStatus.SUCCESS)
            {
                assertTrue(arrived.contains(e.getKey()), "completed but never arrived: " + e.getKey());
            }
            else if (arrived.contains(e.getKey()))
            {
                flushedButArrived++;
            }
        }
        assertTrue(flushedButArrived <= 1, flushedButArrived + " flushed Sends arrived");
        Connecting.connection(p[0], EventNumber.CONNECTION_EVENT_DISCONNECTED);
        Connecting.connection(p[1], EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }
}

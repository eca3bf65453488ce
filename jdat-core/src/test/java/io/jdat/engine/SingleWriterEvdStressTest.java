package io.jdat.engine;

import static io.jdat.engine.StressRig.connect;
import static io.jdat.engine.StressRig.guard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderInfo;
import io.jdat.RegionDescription;
import io.jdat.loopback.LoopbackLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * One EVD for an endpoint's requests and receives (dapltest's shape) on an IA from a
 * {@code nonthreadsafe} entry, under real threads: its one consumer thread posts signalled Sends,
 * whose completions it claims in the EVD's ring with no read-modify-write, while the peer's thread
 * places Sends into the same endpoint, whose completions it claims as any other producer does, at
 * the same moments. The consumer blocks in {@code dat_evd_wait} (the EVD spins 0 µs, so a wait that
 * finds nothing registers without the lock and parks) whenever an event is due. Every completion
 * must come out exactly once, the Sends' in posting order and the receives' in the peer's order,
 * and no wait may miss its wake-up (each event is due within microseconds: a wait of 3 s is one).
 */
class SingleWriterEvdStressTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long SECOND = 1_000_000L;
    private static final int QUEUE = 8;
    private static final int SLOT = 64;
    private static final int MESSAGES = 100_000;
    /** The consumer's Sends carry cookies from here; its receives carry their slot. */
    private static final long SEND_COOKIE = 1L << 40;

    @Test
    void theConsumersClaimsAndThePeersMeetInOneEvdAndNothingIsLostReorderedOrMissed() throws Exception
    {
        final String name = "loopback-swstress" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, false), "evd_spin_us=0");
        final InterfaceAdapter mine = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        final InterfaceAdapter peers = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        final Arena arena = Arena.ofShared();
        try
        {
            final Side a = new Side(mine, arena);
            final Side b = new Side(peers, arena);
            final EventDispatcher shared = mine.evdCreate(4 * QUEUE + 64, null, EvdFlags.DTO_FLAG);
            final Endpoint ea = mine.epCreate(a.pz, shared, shared, a.conn, a.attr);
            final EventDispatcher bRecv = peers.evdCreate(4 * QUEUE, null, EvdFlags.DTO_FLAG);
            final Endpoint eb = peers.epCreate(b.pz, bRecv, peers.evdCreate(64, null, EvdFlags.DTO_FLAG), b.conn,
                b.attr);
            connect(peers, ea, eb, b.conn);
            a.postReceives(ea);
            b.postReceives(eb);
            // receives each side posted for the other's Sends, counted by the receiver
            final AtomicLong creditsForB = new AtomicLong(QUEUE);
            final AtomicLong creditsForA = new AtomicLong(QUEUE);
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            final Thread peer = Thread.ofPlatform().daemon().name("peer").start(() -> guard(failed, () ->
            {
                final DatEvent ev = new DatEvent();
                long sent = 0;
                long received = 0;
                while ((sent < MESSAGES || received < MESSAGES) && failed.get() == null)
                {
                    assertTrue(System.nanoTime() < deadline, "peer stuck: sent " + sent + ", received " + received);
                    if (bRecv.dequeue(ev) == DatStatus.SUCCESS)
                    {
                        b.reapInOrder(eb, ev, received++);
                        creditsForA.incrementAndGet();
                    }
                    if (sent < MESSAGES && creditsForB.get() > sent)
                    {
                        b.send(eb, sent, sent, CompletionFlags.SUPPRESS_FLAG);
                        sent++;
                    }
                }
            }));
            final DatEvent ev = new DatEvent();
            final DatCount nmore = new DatCount();
            long posted = 0;
            long completed = 0;
            long received = 0;
            while ((completed < MESSAGES || received < MESSAGES) && failed.get() == null)
            {
                assertTrue(System.nanoTime() < deadline, "stuck: completed " + completed + ", received " + received);
                // at most QUEUE completions of its own waiting beside the peer's QUEUE receives
                if (posted < MESSAGES && creditsForA.get() > posted && posted - completed < QUEUE)
                {
                    a.send(ea, posted, SEND_COOKIE + posted, CompletionFlags.DEFAULT_FLAG);
                    posted++;
                }
                final DatStatus s;
                if (received < MESSAGES || completed < posted)
                {
                    // an event is due within microseconds: the peer's next Send, or this Send's completion
                    final long start = System.nanoTime();
                    s = shared.wait(5 * SECOND, 1, ev, nmore);
                    final long waited = System.nanoTime() - start;
                    final long c = completed;
                    final long r = received;
                    assertTrue(waited < TimeUnit.SECONDS.toNanos(3), () -> "lost wake-up: a wait took "
                        + waited / 1_000_000 + " ms (" + s + "), completed " + c + ", received " + r);
                }
                else
                {
                    s = shared.dequeue(ev);
                }
                if (s != DatStatus.SUCCESS)
                {
                    continue;
                }
                assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
                if (ev.dto.userCookie >= SEND_COOKIE)
                {
                    assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
                    assertEquals(SEND_COOKIE + completed, ev.dto.userCookie, "a Send's completion out of order");
                    completed++;
                }
                else
                {
                    a.reapInOrder(ea, ev, received++);
                    creditsForB.incrementAndGet();
                }
            }
            peer.join(TimeUnit.SECONDS.toMillis(60));
            assertNull(failed.get(), () -> "failed: " + failed.get());
            assertEquals(MESSAGES, completed);
            assertEquals(MESSAGES, received);
            assertEquals(DatStatus.QUEUE_EMPTY, shared.dequeue(ev), () -> "one more: " + ev);
        }
        finally
        {
            mine.close(CloseFlags.ABRUPT_FLAG);
            peers.close(CloseFlags.ABRUPT_FLAG);
            arena.close();
        }
    }


    /** One end: a protection zone, a source of 1024 slots and QUEUE receive slots, a connection EVD. */
    private static final class Side
    {
        final ProtectionZone pz;
        final MemorySegment source;
        final MemorySegment received;
        final Lmr src;
        final Lmr dst;
        final EventDispatcher conn;
        final EpAttr attr = new EpAttr();

        Side(final InterfaceAdapter ia, final Arena arena)
        {
            pz = ia.pzCreate();
            source = arena.allocate(1024L * SLOT, 64);
            received = arena.allocate((long) QUEUE * SLOT, 64);
            src = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(source), source.byteSize(), pz,
                MemPriv.ALL_FLAG);
            dst = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(received), received.byteSize(), pz,
                MemPriv.ALL_FLAG);
            conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            attr.maxRecvDtos = QUEUE;
            attr.maxRequestDtos = 64;
        }

        void postReceives(final Endpoint ep)
        {
            for (int s = 0; s < QUEUE; s++)
            {
                ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(dst, (long) s * SLOT, SLOT)}, s, 0);
            }
        }

        /** A Send of message {@code seq} (its first long) with {@code cookie}. */
        void send(final Endpoint ep, final long seq, final long cookie, final int flags)
        {
            final long at = seq % 1024 * SLOT;
            source.set(ValueLayout.JAVA_LONG, at, seq);
            ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(src, at, SLOT)}, cookie, flags);
        }

        /** Checks that {@code ev} completed message {@code expect} and posts its buffer again. */
        void reapInOrder(final Endpoint ep, final DatEvent ev, final long expect)
        {
            assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
            final long slot = ev.dto.userCookie;
            final long seq = received.get(ValueLayout.JAVA_LONG, slot * SLOT);
            assertEquals(expect, seq, "message " + seq + " where " + expect + " was due");
            ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(dst, slot * SLOT, SLOT)}, slot, 0);
        }
    }
}

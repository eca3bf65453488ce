package io.jdat.engine;

import static io.jdat.engine.StressRig.connect;
import static io.jdat.engine.StressRig.guard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
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
import io.jdat.RmrTriplet;
import io.jdat.loopback.LoopbackLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * DAT's thread-safety rule for an IA from a {@code nonthreadsafe} entry is per object: the
 * consumer serialises calls on one handle, and may call on two handles from two threads at once
 * (the spec digest, §1.6). Here two threads each post signalled RDMA Writes on an endpoint of
 * their own, both endpoints completing into one request EVD, while a third thread dequeues that
 * EVD: three threads, three handles. Every completion must come out exactly once, each
 * endpoint's in its posting order. Two posters that both claimed in the EVD's ring as the IA's
 * one consumer (with no read-modify-write) wrote two completions into one record.
 */
class SingleWriterSharedEvdTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final int POSTERS = 2;
    private static final int WINDOW = 16;
    private static final int WRITES = 200_000;
    private static final long SLOT = 64;
    /** An endpoint's cookies: its index here, then its sequence number. */
    private static final int SHIFT = 40;

    @Test
    void twoEndpointsPostingOnTwoThreadsIntoOneRequestEvdLoseNoCompletion() throws Exception
    {
        final String name = "loopback-perobject" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, false), "");
        final InterfaceAdapter mine = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        final InterfaceAdapter peers = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        final Arena arena = Arena.ofShared();
        try
        {
            final ProtectionZone pz = mine.pzCreate();
            final ProtectionZone peerPz = peers.pzCreate();
            final MemorySegment source = arena.allocate(POSTERS * SLOT, 64);
            final MemorySegment target = arena.allocate(POSTERS * SLOT, 64);
            final Lmr src = mine.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(source), source.byteSize(), pz,
                MemPriv.ALL_FLAG);
            final Lmr dst = peers.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(target), target.byteSize(),
                peerPz, MemPriv.ALL_FLAG);
            final EventDispatcher requests = mine.evdCreate(POSTERS * WINDOW + 8, null, EvdFlags.DTO_FLAG);
            final Endpoint[] eps = new Endpoint[POSTERS];
            for (int i = 0; i < POSTERS; i++)
            {
                final EpAttr attr = new EpAttr();
                attr.maxRequestDtos = WINDOW;
                attr.maxRecvDtos = 1;
                eps[i] = mine.epCreate(pz, mine.evdCreate(8, null, EvdFlags.DTO_FLAG), requests,
                    mine.evdCreate(8, null, EvdFlags.CONNECTION_FLAG), attr);
                final EventDispatcher peerConn = peers.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
                final EpAttr peerAttr = new EpAttr();
                peerAttr.maxRecvDtos = 1;
                final Endpoint peer = peers.epCreate(peerPz, peers.evdCreate(8, null, EvdFlags.DTO_FLAG),
                    peers.evdCreate(8, null, EvdFlags.DTO_FLAG), peerConn, peerAttr);
                connect(peers, eps[i], peer, peerConn);
            }
            final AtomicLongArray completed = new AtomicLongArray(POSTERS);
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            final Thread[] posters = new Thread[POSTERS];
            for (int i = 0; i < POSTERS; i++)
            {
                final int me = i;
                posters[i] = Thread.ofPlatform().daemon().name("poster-" + i).start(() -> guard(failed, () ->
                {
                    final LmrTriplet[] local = {LmrTriplet.of(src, me * SLOT, SLOT)};
                    final RmrTriplet remote = new RmrTriplet(dst.rmrContext(), dst.registeredAddress() + me * SLOT,
                        SLOT);
                    for (long posted = 0; posted < WRITES && failed.get() == null; )
                    {
                        if (posted - completed.get(me) < WINDOW)
                        {
                            eps[me].postRdmaWrite(1, local, ((long) me << SHIFT) + posted, remote,
                                CompletionFlags.DEFAULT_FLAG);
                            posted++;
                        }
                        else
                        {
                            assertTrue(System.nanoTime() < deadline, "poster " + me + " stuck at " + posted);
                            Thread.onSpinWait();
                        }
                    }
                }));
            }
            final DatEvent ev = new DatEvent();
            long total = 0;
            long lastEvent = System.nanoTime();
            while (total < (long) POSTERS * WRITES && failed.get() == null)
            {
                if (requests.dequeue(ev) != DatStatus.SUCCESS)
                {
                    final long quiet = System.nanoTime() - lastEvent;
                    final long done = total;
                    assertTrue(quiet < TimeUnit.SECONDS.toNanos(5), () -> "no completion for 5 s after " + done
                        + " (" + completed + "): one was lost");
                    Thread.onSpinWait();
                    continue;
                }
                lastEvent = System.nanoTime();
                assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
                final int ep = (int) (ev.dto.userCookie >>> SHIFT);
                assertTrue(ep >= 0 && ep < POSTERS, ev.toString());
                final long seq = ev.dto.userCookie & ((1L << SHIFT) - 1);
                assertEquals(completed.get(ep), seq, () -> "endpoint " + ep + "'s completions out of order: " + ev);
                completed.incrementAndGet(ep);
                total++;
            }
            for (final Thread t : posters)
            {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertNull(failed.get(), () -> "failed: " + failed.get());
            assertEquals((long) POSTERS * WRITES, total);
            assertEquals(DatStatus.QUEUE_EMPTY, requests.dequeue(ev), () -> "one more: " + ev);
        }
        finally
        {
            mine.close(CloseFlags.ABRUPT_FLAG);
            peers.close(CloseFlags.ABRUPT_FLAG);
            arena.close();
        }
    }

    /**
     * The part of the endpoint that claims as the consumer passes on when that endpoint no longer
     * completes its requests into the EVD: freed, or modified to another request EVD. Until then no
     * other endpoint takes it.
     */
    @Test
    void theConsumersClaimsPassOnWhenTheirEndpointLeavesTheEvd()
    {
        final String name = "loopback-perobject" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, false), "");
        final InterfaceAdapter ia = Dat.iaOpenv(name, 64, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        try
        {
            final ProtectionZone pz = ia.pzCreate();
            final EventDispatcher requests = ia.evdCreate(16, null, EvdFlags.DTO_FLAG);
            final EventDispatcher other = ia.evdCreate(16, null, EvdFlags.DTO_FLAG);
            final Endpoint a = endpoint(ia, pz, requests);
            final Endpoint b = endpoint(ia, pz, requests);
            final ConsumerClaims claims = ((EvdImpl) requests).consumerClaims;
            assertTrue(claims.mayClaim((EpImpl) a), "the first endpoint to post takes the part");
            assertFalse(claims.mayClaim((EpImpl) b), "a second endpoint took a part already held");
            assertTrue(claims.mayClaim((EpImpl) a));
            a.free();
            assertTrue(claims.mayClaim((EpImpl) b), "the part stayed with a freed endpoint");
            final Endpoint c = endpoint(ia, pz, requests);
            assertFalse(claims.mayClaim((EpImpl) c));
            final EpParam moved = new EpParam();
            moved.requestEvdHandle = other;
            b.modify(EpParam.FIELD_REQUEST_EVD_HANDLE, moved);
            assertTrue(claims.mayClaim((EpImpl) c), "the part stayed with an endpoint moved to another EVD");
            assertTrue(((EvdImpl) other).consumerClaims.mayClaim((EpImpl) b));
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    private static Endpoint endpoint(final InterfaceAdapter ia, final ProtectionZone pz, final EventDispatcher requests)
    {
        return ia.epCreate(pz, ia.evdCreate(8, null, EvdFlags.DTO_FLAG), requests,
            ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG), new EpAttr());
    }
}

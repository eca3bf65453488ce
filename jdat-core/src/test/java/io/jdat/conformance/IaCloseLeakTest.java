package io.jdat.conformance;

import static io.jdat.conformance.Connecting.state;
import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.ConnectionRequest;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.ReservedServicePoint;
import io.jdat.Rmr;
import io.jdat.RmrTriplet;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Closing an IA instance after heavy use (connections both ways with traffic, RMR binds, an SRQ,
 * listeners, pending requests in both directions, connect timers, blocked EVD and CNO waiters)
 * leaves no thread and no open resource: DESIGN.md "closing an IA ends every thread and releases
 * every resource it started". Both ways of closing: {@code DAT_CLOSE_GRACEFUL_FLAG} after an
 * orderly teardown (digest §1.1), and {@code DAT_CLOSE_ABRUPT_FLAG} with everything live.
 */
class IaCloseLeakTest
{
    private static final long QUAL = 9100;
    private static final int PAIRS = 4;
    private static final int ROUNDS = 10;
    private static final long MEM = 1 << 16;

    /** What heavy use made on the IA under test, in the order an orderly teardown frees it. */
    private static final class Made
    {
        final List<ConnectionRequest> pendingCrs = new ArrayList<>();
        final List<ReservedServicePoint> rsps = new ArrayList<>();
        final List<PublicServicePoint> psps = new ArrayList<>();
        final List<Endpoint> eps = new ArrayList<>();
        final List<Rmr> rmrs = new ArrayList<>();
        final List<Lmr> lmrs = new ArrayList<>();
        final List<SharedReceiveQueue> srqs = new ArrayList<>();
        final List<EventDispatcher> evds = new ArrayList<>();
        final List<Cno> cnos = new ArrayList<>();
        final List<ProtectionZone> pzs = new ArrayList<>();
        /** Peer endpoints connected to the IA under test, and the peer's own pending request. */
        final List<Fixture.Ep> peers = new ArrayList<>();
        Fixture.Ep peerConnecting;
        ConnectionRequest peerPendingCr;
        EventDispatcher waited;
        CompletableFuture<DatStatus> evdWaiter;
        CompletableFuture<DatStatus> cnoWaiter;
        final DatOut<EventDispatcher> cnoHint = new DatOut<>();
    }

    private static DatStatus status(final CompletableFuture<DatStatus> f)
    {
        try
        {
            return f.get(5, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException e)
        {
            if (e.getCause() instanceof DatException d)
            {
                return d.status();
            }
            throw new AssertionError(e.getCause());
        }
        catch (final InterruptedException | java.util.concurrent.TimeoutException e)
        {
            throw new AssertionError("a waiter was not released by the close", e);
        }
    }

    /** Threads of the application's thread groups (JVM service threads live in the system group). */
    private static Set<Thread> threads()
    {
        final ThreadGroup system = systemGroup();
        final Set<Thread> all = new java.util.HashSet<>();
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            if (t.isAlive() && t.getThreadGroup() != null && t.getThreadGroup() != system)
            {
                all.add(t);
            }
        }
        return all;
    }

    private static ThreadGroup systemGroup()
    {
        ThreadGroup g = Thread.currentThread().getThreadGroup();
        while (g.getParent() != null)
        {
            g = g.getParent();
        }
        return g;
    }

    /** Waits (at most 5 s) until no thread outside {@code before} whose name starts with {@code prefix} lives. */
    private static void assertThreadsEnd(final Set<Thread> before, final String prefix)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> left;
        do
        {
            left = new ArrayList<>();
            for (final Thread t : threads())
            {
                if (!before.contains(t) && t.getName().startsWith(prefix))
                {
                    left.add(t.getName() + " " + t.getState());
                }
            }
            if (left.isEmpty())
            {
                return;
            }
            Thread.onSpinWait();
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException e)
            {
                throw new AssertionError(e);
            }
        }
        while (System.nanoTime() < deadline);
        throw new AssertionError("threads left after close: " + left);
    }

    private static Fixture.Ep localEp(final InterfaceAdapter ia, final ProtectionZone pz, final EventDispatcher dto,
        final EventDispatcher conn, final Made m)
    {
        final Endpoint ep = ia.epCreate(pz, dto, dto, conn, null);
        m.eps.add(ep);
        return new Fixture.Ep(ep, dto, dto, conn);
    }

    /** Waits for {@code n} events on {@code evd}, each a successful completion. */
    private static void completions(final EventDispatcher evd, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final DatEvent ev = Fixture.next(evd);
            assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT) || ev.is(EventNumber.RMR_BIND_COMPLETION_EVENT),
                ev.toString());
            assertEquals(DtoStatus.SUCCESS,
                ev.is(EventNumber.DTO_COMPLETION_EVENT) ? ev.dto.status : ev.rmrBind.status);
        }
    }

    /** Uses {@code ia} hard, with {@code peer} (another IA) on the other end of its connections. */
    private static Made heavyUse(final InterfaceAdapter ia, final Fixture peer, final Arena arena)
    {
        final Made m = new Made();
        final io.jdat.IaAttr attr = new io.jdat.IaAttr();
        ia.query(io.jdat.IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);
        final ProtectionZone pz = ia.pzCreate();
        m.pzs.add(pz);
        final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(arena.allocate(MEM, 64)), MEM, pz,
            MemPriv.ALL_FLAG);
        m.lmrs.add(lmr);
        // many small objects
        for (int i = 0; i < 50; i++)
        {
            m.lmrs.add(ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(arena.allocate(256, 64)), 256, pz,
                MemPriv.LOCAL_WRITE_FLAG));
            m.evds.add(ia.evdCreate(4, null, EvdFlags.SOFTWARE_FLAG));
            m.eps.add(ia.epCreate(pz, null, null, null, null));
            m.rmrs.add(pz.rmrCreate());
        }
        final EventDispatcher dto = ia.evdCreate(2048, null, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
        final EventDispatcher conn = ia.evdCreate(64, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher cr = ia.evdCreate(64, null, EvdFlags.CR_FLAG);
        m.evds.add(dto);
        m.evds.add(conn);
        m.evds.add(cr);
        final PublicServicePoint psp = ia.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG);
        m.psps.add(psp);
        m.psps.add(ia.pspCreateAny(cr, PspFlags.PROVIDER_FLAG));
        final EventDispatcher peerCr = peer.evd(64, EvdFlags.CR_FLAG);
        final PublicServicePoint peerPsp = peer.ia.pspCreateAny(peerCr, PspFlags.CONSUMER_FLAG);
        final Lmr peerLmr = peer.lmr(MEM);

        // connections both ways, with Sends both ways, RDMA Writes and Reads
        final List<Fixture.Ep> locals = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++)
        {
            final Fixture.Ep local = localEp(ia, pz, dto, conn, m);
            final Fixture.Ep remote = peer.ep(null);
            if (i % 2 == 0)
            {
                remote.ep().connect(attr.iaAddress, QUAL, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
                Connecting.request(cr).crArrival.crHandle.accept(local.ep(), null);
            }
            else
            {
                local.ep().connect(peer.address, peerPsp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
                Connecting.request(peerCr).crArrival.crHandle.accept(remote.ep(), null);
            }
            Connecting.event(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            Connecting.connection(remote, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            locals.add(local);
            m.peers.add(remote);
        }
        for (int r = 0; r < ROUNDS; r++)
        {
            for (int i = 0; i < PAIRS; i++)
            {
                final Endpoint local = locals.get(i).ep();
                final Fixture.Ep remote = m.peers.get(i);
                final long at = (long) i * 4096 + r * 64;
                remote.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(peerLmr, at, 64)}, r, 0);
                local.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, at, 64)}, r, 0);
                local.postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, at + 32, 16)}, r, 0);
                remote.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(peerLmr, at + 32, 16)}, r, 0);
                local.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(lmr, at, 32)}, r,
                    new RmrTriplet(peerLmr.rmrContext(), peerLmr.registeredAddress() + at + 2048, 32), 0);
                local.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(lmr, at + 2048, 32)}, r,
                    new RmrTriplet(peerLmr.rmrContext(), peerLmr.registeredAddress() + at, 32), 0);
                // local: send, write, read and receive; remote: send and receive
                completions(dto, 4);
                completions(remote.recv(), 1);
                completions(remote.req(), 1);
            }
        }
        // a memory window bound through a connection, written by the peer
        final Rmr rmr = pz.rmrCreate();
        m.rmrs.add(rmr);
        final int window = rmr.bind(LmrTriplet.of(lmr, 0, 4096), MemPriv.REMOTE_WRITE_FLAG, locals.get(0).ep(), 7, 0);
        completions(dto, 1);
        m.peers.get(0).ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(peerLmr, 0, 8)}, 1,
            new RmrTriplet(window, lmr.registeredAddress(), 8), 0);
        completions(m.peers.get(0).req(), 1);

        // an SRQ serving a connection
        final SharedReceiveQueue srq = ia.srqCreate(pz, new SrqAttr(16, 1));
        m.srqs.add(srq);
        for (int i = 0; i < 8; i++)
        {
            srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 32768 + i * 64L, 64)}, i);
        }
        final Endpoint srqEp = ia.epCreateWithSrq(pz, dto, dto, conn, srq, new io.jdat.EpAttr());
        m.eps.add(srqEp);
        final Fixture.Ep toSrq = peer.ep(null);
        toSrq.ep().connect(attr.iaAddress, QUAL, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        Connecting.request(cr).crArrival.crHandle.accept(srqEp, null);
        Connecting.event(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        Connecting.connection(toSrq, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        m.peers.add(toSrq);
        for (int i = 0; i < 3; i++)
        {
            toSrq.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(peerLmr, 0, 8)}, i, 0);
        }
        completions(toSrq.req(), 3);
        completions(dto, 3);

        // a connect that timed out (the IA's timer ran), and one still pending with a timer armed
        final Fixture.Ep timedOut = localEp(ia, pz, dto, conn, m);
        timedOut.ep().connect(peer.address, peerPsp.connQual(), 1_000, null, Qos.BEST_EFFORT, 0);
        Connecting.event(conn, EventNumber.CONNECTION_EVENT_TIMED_OUT);
        Connecting.request(peerCr).crArrival.crHandle.reject();
        final Fixture.Ep pending = localEp(ia, pz, dto, conn, m);
        pending.ep().connect(peer.address, peerPsp.connQual(), 30 * SECOND, null, Qos.BEST_EFFORT, 0);
        m.peerPendingCr = Connecting.request(peerCr).crArrival.crHandle;
        // a request to the IA that it leaves unanswered
        m.peerConnecting = peer.ep(null);
        m.peerConnecting.ep().connect(attr.iaAddress, QUAL, 30 * SECOND, new byte[] {1}, Qos.BEST_EFFORT, 0);
        m.pendingCrs.add(Connecting.request(cr).crArrival.crHandle);
        // a reserved endpoint
        final Fixture.Ep reserved = localEp(ia, pz, dto, conn, m);
        m.rsps.add(ia.rspCreate(QUAL + 1, reserved.ep(), cr));

        // blocked waiters on an EVD and on a CNO
        final Cno cno = ia.cnoCreate(null);
        m.cnos.add(cno);
        m.waited = ia.evdCreate(8, cno, EvdFlags.SOFTWARE_FLAG);
        m.evds.add(m.waited);
        final Thread[] started = new Thread[2];
        m.evdWaiter = CompletableFuture.supplyAsync(() ->
        {
            started[0] = Thread.currentThread();
            return m.waited.wait(Dat.TIMEOUT_INFINITE, 1, new DatEvent(), new DatCount());
        }, Fixture.THREADS);
        m.cnoWaiter = CompletableFuture.supplyAsync(() ->
        {
            started[1] = Thread.currentThread();
            return cno.wait(Dat.TIMEOUT_INFINITE, m.cnoHint);
        }, Fixture.THREADS);
        for (final int i : new int[] {0, 1})
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (started[i] == null)
            {
                assertTrue(System.nanoTime() < deadline, "a waiter did not start");
                Thread.onSpinWait();
            }
            EvdTest.awaitBlocked(started[i]);
        }
        peerPsp.free();
        return m;
    }

    /** The consumer frees everything it made, in the order of digest §1.1, leaving only the IA. */
    private static void teardown(final Made m)
    {
        m.pendingCrs.forEach(ConnectionRequest::reject);
        m.rsps.forEach(ReservedServicePoint::free);
        m.psps.forEach(PublicServicePoint::free);
        m.waited.setUnwaitable();
        assertTrue(status(m.evdWaiter).is(DatReturnType.INVALID_STATE));
        m.eps.forEach(Endpoint::free);
        m.rmrs.forEach(Rmr::free);
        m.lmrs.forEach(Lmr::free);
        m.srqs.forEach(SharedReceiveQueue::free);
        m.evds.forEach(EventDispatcher::free);
        m.cnos.forEach(Cno::free);
        m.pzs.forEach(ProtectionZone::free);
    }

    /** What must hold once the IA {@code r} served is closed, seen from outside and from its peer. */
    private static void assertNothingLeft(final RegisteredLoopback r, final Made m, final Fixture peer,
        final Set<Thread> before, final boolean graceful)
    {
        assertThreadsEnd(before, "jdat-" + r.name() + "-");
        assertThreadsEnd(before, "test-waiter");
        assertEquals(0, r.provider().openInstances());
        assertEquals(List.of(), r.provider().liveThreads());
        // waiters were released
        assertTrue(m.cnoWaiter.isDone());
        assertNull(m.cnoHint.value);
        // no connection is left up: every peer endpoint saw its connection end
        for (final Fixture.Ep p : m.peers)
        {
            final DatEvent ev = Fixture.next(p.conn());
            assertTrue(ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED) || ev.is(EventNumber.CONNECTION_EVENT_BROKEN),
                ev.toString());
            assertEquals(EpState.DISCONNECTED, state(p.ep()));
        }
        // the request the IA left unanswered was refused (by the consumer's teardown, or by the
        // close itself); the one it made was withdrawn
        Connecting.connection(m.peerConnecting, graceful ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
            : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        final Fixture.Ep acceptor = peer.ep(null);
        m.peerPendingCr.accept(acceptor.ep(), null);
        Connecting.connection(acceptor, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        // its address is gone
        final Fixture.Ep late = peer.ep(null);
        late.ep().connect(io.jdat.IaAddress.named(r.name()), QUAL, SECOND, null, Qos.BEST_EFFORT, 0);
        Connecting.connection(late, EventNumber.CONNECTION_EVENT_UNREACHABLE);
        // its qualifiers are free: a new instance listens on all of them
        final InterfaceAdapter again = Dat.iaOpen(r.name(), 8, null);
        final EventDispatcher cr = again.evdCreate(8, null, EvdFlags.CR_FLAG);
        final List<PublicServicePoint> all = new ArrayList<>();
        all.add(again.pspCreate(QUAL, cr, PspFlags.CONSUMER_FLAG));
        all.add(again.pspCreate(QUAL + 1, cr, PspFlags.CONSUMER_FLAG));
        for (int i = 0; i < 4; i++)
        {
            all.add(again.pspCreateAny(cr, PspFlags.CONSUMER_FLAG));
        }
        all.forEach(PublicServicePoint::free);
        cr.free();
        again.close(CloseFlags.GRACEFUL_FLAG);
        // the registry holds no reference: the provider can be removed
        r.unregister();
    }

    private static void run(final boolean graceful)
    {
        final Set<Thread> before = threads();
        final RegisteredLoopback r = RegisteredLoopback.create("any_qual_range=600-603");
        final Made m;
        try (Fixture peer = new Fixture(Fixture.loopbackWith("")); Arena arena = Arena.ofShared())
        {
            final DatOut<EventDispatcher> async = new DatOut<>();
            final InterfaceAdapter ia = Dat.iaOpen(r.name(), 64, async);
            m = heavyUse(ia, peer, arena);
            // the IA's timer and the test's waiters are running now
            assertFalse(r.provider().liveThreads().isEmpty(), "the connect timer is one of the IA's threads");
            if (graceful)
            {
                teardown(m);
                ia.close(CloseFlags.GRACEFUL_FLAG);
            }
            else
            {
                ia.close(CloseFlags.ABRUPT_FLAG);
                assertTrue(status(m.evdWaiter).is(DatReturnType.ABORT));
            }
            expect(DatReturnType.INVALID_HANDLE, () -> ia.query(0, null, 0, null));
            expect(DatReturnType.INVALID_HANDLE, () -> async.value.dequeue(new DatEvent()));
            assertEquals(DatStatus.SUCCESS, status(m.cnoWaiter));
            assertNothingLeft(r, m, peer, before, graceful);
        }
        // and with the peer closed too, nothing started by the test's IAs is left at all
        assertThreadsEnd(before, "");
    }

    @Test
    void iaCloseGracefulAfterHeavyUseLeavesNoThreadAndNoResource()
    {
        run(true);
    }

    @Test
    void iaCloseAbruptAfterHeavyUseLeavesNoThreadAndNoResource()
    {
        run(false);
    }
}

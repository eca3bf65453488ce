package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoCompletionEventData;
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
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.loopback.LoopbackLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The receive EVD in direct mode ({@link EvdImpl}, {@link RecvRing}): it takes its events from
 * the receive queue's slots while it has the one endpoint behind it, with every DAT rule kept:
 * one event per receive, in order, with its cookie, length and status; and the moment anything
 * else reaches the EVD (a second stream and its event, a CNO, a resize, a wait with a threshold
 * above one, the connection's end and its flushed receives, more completions than the EVD holds)
 * the completed receives still waiting move into its ring, in order, before what came after.
 */
class EvdDirectTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long SECOND = 1_000_000L;
    private static final int QUEUE = 4;

    private InterfaceAdapter ia;
    private EventDispatcher async;
    private ProtectionZone pz;
    private final Arena arena = Arena.ofShared();
    private Lmr lmr;
    private MemorySegment memory;

    private Endpoint client;
    private Endpoint server;
    private EventDispatcher serverRecv;
    private EventDispatcher clientReq;
    private EventDispatcher serverConn;

    private void open(final boolean threadSafe, final int recvQlen)
    {
        open(threadSafe, recvQlen, "evd_direct");
    }

    private void open(final boolean threadSafe, final int recvQlen, final String instanceData)
    {
        final String name = "loopback-direct" + NAMES.incrementAndGet();
        new LoopbackLibrary().providerInit(ProviderInfo.of(name, threadSafe), instanceData);
        final DatOut<EventDispatcher> a = new DatOut<>();
        ia = Dat.iaOpenv(name, 64, a, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, threadSafe);
        async = a.value;
        pz = ia.pzCreate();
        memory = arena.allocate(64 * 1024, 64);
        lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(memory), memory.byteSize(), pz, MemPriv.ALL_FLAG);
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = QUEUE;
        attr.maxRequestDtos = 64;
        final EventDispatcher clientRecv = ia.evdCreate(64, null, EvdFlags.DTO_FLAG);
        clientReq = ia.evdCreate(64, null, EvdFlags.DTO_FLAG);
        final EventDispatcher clientConn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        serverRecv = ia.evdCreate(recvQlen, null, EvdFlags.DTO_FLAG);
        final EventDispatcher serverReq = ia.evdCreate(64, null, EvdFlags.DTO_FLAG);
        serverConn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        client = ia.epCreate(pz, clientRecv, clientReq, clientConn, attr);
        server = ia.epCreate(pz, serverRecv, serverReq, serverConn, attr);
        final EventDispatcher crEvd = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        client.connect(address(), psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        final DatEvent ev = next(crEvd);
        ev.crArrival.crHandle.accept(server, null);
        assertTrue(next(clientConn).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        assertTrue(next(serverConn).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        psp.free();
        crEvd.free();
    }

    private io.jdat.IaAddress address()
    {
        final io.jdat.IaAttr a = new io.jdat.IaAttr();
        ia.query(io.jdat.IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
        return a.iaAddress;
    }

    @AfterEach
    void close()
    {
        if (ia != null)
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        arena.close();
    }

    private static DatEvent next(final EventDispatcher evd)
    {
        final DatEvent e = new DatEvent();
        assertEquals(DatStatus.SUCCESS, evd.wait(5 * SECOND, 1, e, new DatCount()));
        return e;
    }

    private static boolean direct(final EventDispatcher evd)
    {
        return ((EvdImpl) evd).direct != null;
    }

    /** Posts receive {@code cookie} into its own 256 bytes of the server's memory. */
    private void postRecv(final long cookie)
    {
        server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 32 * 1024 + (cookie % 64) * 256, 256)}, cookie,
            CompletionFlags.DEFAULT_FLAG);
    }

    /** Sends {@code length} bytes and reaps the Send's completion. */
    private void send(final int length)
    {
        client.postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, length)}, length, CompletionFlags.DEFAULT_FLAG);
        final DatEvent e = next(clientReq);
        assertEquals(DtoStatus.SUCCESS, e.dto.status);
    }

    private static void expectRecv(final DatEvent e, final EventDispatcher evd, final Endpoint ep, final long cookie,
        final long length, final DtoStatus status)
    {
        assertTrue(e.is(EventNumber.DTO_COMPLETION_EVENT), e.toString());
        assertEquals(evd, e.evdHandle);
        assertEquals(ep, e.dto.epHandle);
        assertEquals(cookie, e.dto.userCookie, e.toString());
        assertEquals(status, e.dto.status, e.toString());
        if (status == DtoStatus.SUCCESS)
        {
            assertEquals(length, e.dto.transferredLength, e.toString());
        }
    }

    @ParameterizedTest(name = "threadSafe={0}")
    @ValueSource(booleans = {true, false})
    void pingPongDequeuesFromTheSlotsInOrder(final boolean threadSafe)
    {
        open(threadSafe, 64);
        assertTrue(direct(serverRecv), "the receive EVD of one endpoint takes direct mode");
        assertNull(((EvdImpl) clientReq).direct, "a request EVD does not");
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        long expect = 0;
        final DatEvent e = new DatEvent();
        final DatCount nmore = new DatCount();
        for (int i = 0; i < 2_000; i++)
        {
            final int length = 1 + i % 200;
            send(length);
            if (i % 3 == 0)
            {
                assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
            }
            else
            {
                assertEquals(DatStatus.SUCCESS, serverRecv.wait(5 * SECOND, 1, e, nmore));
                assertEquals(0, nmore.value);
            }
            expectRecv(e, serverRecv, server, expect, length, DtoStatus.SUCCESS);
            postRecv(expect + QUEUE);
            expect++;
        }
        assertEquals(DatStatus.QUEUE_EMPTY, serverRecv.dequeue(e));
        assertTrue(direct(serverRecv), "nothing ended direct mode");
    }

    /** The mode is the default: an IA without instance data takes it, {@code evd_direct=off} keeps it out. */
    @Test
    void theModeIsTheDefaultAndInstanceDataTurnsItOff()
    {
        open(true, 64, "");
        assertTrue(direct(serverRecv), "an IA without instance data did not take direct mode");
        postRecv(1);
        send(16);
        expectRecv(next(serverRecv), serverRecv, server, 1, 16, DtoStatus.SUCCESS);
        ia.close(CloseFlags.ABRUPT_FLAG);
        open(true, 64, "evd_direct=off");
        assertFalse(direct(serverRecv), "evd_direct=off did not keep the EVD on its ring");
    }

    /**
     * max_recv_dtos bounds the receives posted and not yet completed, in direct mode too: a post
     * beyond it is refused, a completion dequeued or only placed makes room for exactly one more.
     */
    @Test
    void aPostBeyondMaxRecvDtosIsRefusedUntilAReceiveCompletes()
    {
        open(true, 64);
        assertTrue(direct(serverRecv));
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        assertRecvRefused(QUEUE);
        // completed and dequeued: the consumers' position shows the room
        send(50);
        final DatEvent e = new DatEvent();
        assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
        expectRecv(e, serverRecv, server, 0, 50, DtoStatus.SUCCESS);
        postRecv(QUEUE);
        assertRecvRefused(QUEUE + 1);
        // completed and not dequeued: only the placer's position shows it
        send(51);
        postRecv(QUEUE + 1);
        assertRecvRefused(QUEUE + 2);
        assertTrue(direct(serverRecv), "the posts kept the EVD in direct mode");
    }

    private void assertRecvRefused(final long cookie)
    {
        try
        {
            postRecv(cookie);
        }
        catch (final DatException x)
        {
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, x.type(), x.toString());
            return;
        }
        throw new AssertionError("receive " + cookie + " was posted beyond max_recv_dtos " + QUEUE);
    }

    @Test
    void receivesCompletedAndNotDequeuedLeaveRoomForAsManyPosts()
    {
        open(true, 64);
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        for (int i = 0; i < QUEUE; i++)
        {
            send(10 + i);
        }
        // max_recv_dtos counts the receives posted, not the completions waiting on the EVD
        for (long c = QUEUE; c < 2 * QUEUE; c++)
        {
            postRecv(c);
        }
        for (int i = 0; i < QUEUE; i++)
        {
            send(20 + i);
        }
        // and again: the slots are full of completions, so the post moves them to the ring
        for (long c = 2 * QUEUE; c < 3 * QUEUE; c++)
        {
            postRecv(c);
        }
        send(30);
        final DatEvent e = new DatEvent();
        for (int i = 0; i < 2 * QUEUE; i++)
        {
            assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
            expectRecv(e, serverRecv, server, i, i < QUEUE ? 10 + i : 20 + i - QUEUE, DtoStatus.SUCCESS);
        }
        assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
        expectRecv(e, serverRecv, server, 2 * QUEUE, 30, DtoStatus.SUCCESS);
        assertEquals(DatStatus.QUEUE_EMPTY, serverRecv.dequeue(e));
    }

    /**
     * Three receives complete and wait in their slots; {@code second} brings something else to the
     * EVD (and may return an event expected after them); one more Send follows. The three come out
     * first, in order, then what the second source brought, then the fourth.
     */
    private void secondSource(final Consumer<EventDispatcher> second, final boolean fourth)
    {
        open(true, 64);
        assertTrue(direct(serverRecv));
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        for (int i = 0; i < 3; i++)
        {
            send(40 + i);
        }
        second.accept(serverRecv);
        assertTrue(!direct(serverRecv), "the second source ended direct mode");
        if (fourth)
        {
            send(43);
        }
        final DatEvent e = new DatEvent();
        for (int i = 0; i < 3; i++)
        {
            assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
            expectRecv(e, serverRecv, server, i, 40 + i, DtoStatus.SUCCESS);
        }
        if (fourth)
        {
            assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
            expectRecv(e, serverRecv, server, 3, 43, DtoStatus.SUCCESS);
        }
    }

    @Test
    void anotherEndpointsStreamAndItsEventComeAfterTheWaitingReceives()
    {
        final Endpoint[] other = new Endpoint[1];
        secondSource(evd ->
        {
            // a second endpoint's request stream on the same EVD, and one of its completions
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = QUEUE;
            other[0] = ia.epCreate(pz, null, evd, ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG), attr);
        }, true);
        assertEquals(DatStatus.QUEUE_EMPTY, serverRecv.dequeue(new DatEvent()));
    }

    @Test
    void aCnoEndsDirectMode()
    {
        secondSource(evd ->
        {
            final Cno cno = ia.cnoCreate(null);
            evd.modifyCno(cno);
        }, true);
    }

    @Test
    void aResizeEndsDirectMode()
    {
        secondSource(evd -> evd.resize(128), true);
    }

    @Test
    void aWaitForTwoEndsDirectModeAndCountsTheRest()
    {
        open(true, 64);
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        for (int i = 0; i < 3; i++)
        {
            send(50 + i);
        }
        final DatEvent e = new DatEvent();
        final DatCount nmore = new DatCount();
        assertEquals(DatStatus.SUCCESS, serverRecv.wait(SECOND, 2, e, nmore));
        expectRecv(e, serverRecv, server, 0, 50, DtoStatus.SUCCESS);
        assertEquals(2, nmore.value);
        assertTrue(!direct(serverRecv));
        for (int i = 1; i < 3; i++)
        {
            assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
            expectRecv(e, serverRecv, server, i, 50 + i, DtoStatus.SUCCESS);
        }
    }

    @Test
    void aWaitForOneCountsTheCompletedSlotsBehindIt()
    {
        open(true, 64);
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        for (int i = 0; i < 3; i++)
        {
            send(60 + i);
        }
        final DatEvent e = new DatEvent();
        final DatCount nmore = new DatCount();
        for (int i = 0; i < 3; i++)
        {
            assertEquals(DatStatus.SUCCESS, serverRecv.wait(SECOND, 1, e, nmore));
            expectRecv(e, serverRecv, server, i, 60 + i, DtoStatus.SUCCESS);
            assertEquals(2 - i, nmore.value);
        }
        // a wait that times out sets nmore itself: a value left from the last wait would hide it
        nmore.value = -1;
        assertEquals(DatStatus.TIMEOUT_EXPIRED, serverRecv.wait(0, 1, e, nmore));
        assertEquals(0, nmore.value);
        assertTrue(direct(serverRecv));
    }

    @Test
    void theConnectionsEndFlushesTheRestAfterTheWaitingReceives()
    {
        open(true, 64);
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        for (int i = 0; i < 2; i++)
        {
            send(70 + i);
        }
        server.disconnect(CloseFlags.ABRUPT_FLAG);
        assertTrue(next(serverConn).is(EventNumber.CONNECTION_EVENT_DISCONNECTED));
        final DatEvent e = new DatEvent();
        for (int i = 0; i < QUEUE; i++)
        {
            assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
            expectRecv(e, serverRecv, server, i, 70 + i, i < 2 ? DtoStatus.SUCCESS : DtoStatus.ERR_FLUSHED);
        }
        assertEquals(DatStatus.QUEUE_EMPTY, serverRecv.dequeue(e));
    }

    @Test
    void moreCompletionsThanTheEvdHoldsOverflowIt()
    {
        // the EVD holds QUEUE events; twice as many receives complete without a dequeue
        open(true, QUEUE);
        assertTrue(direct(serverRecv));
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        for (int i = 0; i < QUEUE; i++)
        {
            send(80 + i);
        }
        for (long c = QUEUE; c < 2 * QUEUE; c++)
        {
            postRecv(c);
        }
        send(90);
        final DatEvent a = next(async);
        assertEquals(EventNumber.ASYNC_ERROR_EVD_OVERFLOW.value(), a.eventNumber, a.toString());
        assertNotNull(a);
        assertTrue(!direct(serverRecv));
    }

    /**
     * A post whose triplets fail while a later post beside it already claimed the next slot leaves
     * a hole ({@link RecvRing#abandon}); here the failing poster is the test, holding its claim
     * while {@code dat_ep_post_recv} claims the slot after it. In the slots the hole completes with
     * no event: a take steps over it, {@code nmore} does not count it, and the move that ends the
     * mode copies only the receives around it.
     */
    @ParameterizedTest(name = "moved={0}")
    @ValueSource(booleans = {false, true})
    void aHoleInTheSlotsIsNoEventNorCounted(final boolean moved)
    {
        open(true, 64);
        final RecvRing r = ((EpImpl) server).recvs.ring();
        postRecv(1);
        final long hole = r.claimPost();
        postRecv(2);
        assertFalse(r.abandon(hole), "the claim behind a later one was undone, not left a hole");
        postRecv(3);
        send(11);
        send(12);
        send(13);
        final DatEvent e = new DatEvent();
        final DatCount nmore = new DatCount();
        if (moved)
        {
            serverRecv.resize(128);
            assertFalse(direct(serverRecv));
        }
        assertEquals(DatStatus.SUCCESS, serverRecv.wait(SECOND, 1, e, nmore));
        expectRecv(e, serverRecv, server, 1, 11, DtoStatus.SUCCESS);
        assertEquals(2, nmore.value, "the hole counted as an event");
        assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
        expectRecv(e, serverRecv, server, 2, 12, DtoStatus.SUCCESS);
        assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
        expectRecv(e, serverRecv, server, 3, 13, DtoStatus.SUCCESS);
        assertEquals(DatStatus.QUEUE_EMPTY, serverRecv.dequeue(e));
        assertEquals(!moved, direct(serverRecv));
    }

    /**
     * A placer that completed a receive in its slot and then finds the mode ended
     * ({@link EvdImpl#directLate}): if the move came after its completion, the move handed it on and
     * the placer posts nothing; if the move came before, the placer posts it itself. Either way the
     * receive comes out once. Here the placer is the test, taking the steps of
     * {@link RecvQueue#finish} around a move.
     */
    @ParameterizedTest(name = "moveFirst={0}")
    @ValueSource(booleans = {false, true})
    void aPlacerThatFindsTheModeEndedPostsWhatTheMoveDidNotTake(final boolean moveFirst)
    {
        open(true, 64);
        final EvdImpl evd = (EvdImpl) serverRecv;
        final RecvRing r = ((EpImpl) server).recvs.ring();
        postRecv(7);
        final RecvBuffer b = r.peek();
        assertNotNull(b);
        if (moveFirst)
        {
            evd.leaveDirect();
        }
        final long p = r.placeDirect(b, 33);
        if (!moveFirst)
        {
            evd.leaveDirect();
        }
        assertEquals(RecvRing.NORMAL, r.mode);
        evd.directLate(r, p, b, 33, true);
        final DatEvent e = new DatEvent();
        assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
        expectRecv(e, serverRecv, server, 7, 33, DtoStatus.SUCCESS);
        assertEquals(DatStatus.QUEUE_EMPTY, serverRecv.dequeue(e), "the receive came out twice");
        // the slot is free again: the placer goes on from the next position in the ordinary way
        postRecv(8);
        send(44);
        assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
        expectRecv(e, serverRecv, server, 8, 44, DtoStatus.SUCCESS);
    }

    /** Starts a thread blocked in dat_evd_wait on the server's receive EVD: its status or its exception. */
    private CompletableFuture<Object> blockedWaiter(final DatEvent into)
    {
        final CompletableFuture<Object> result = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("direct-waiter").start(() ->
        {
            try
            {
                result.complete(serverRecv.wait(Dat.TIMEOUT_INFINITE, 1, into, new DatCount()));
            }
            catch (final Throwable t)
            {
                result.complete(t);
            }
        });
        // blocked once dat_evd_dequeue refuses to run beside it (nothing is completed meanwhile)
        final long deadline = System.nanoTime() + 5_000_000_000L;
        final DatEvent probe = new DatEvent();
        while (catching(() -> serverRecv.dequeue(probe)) == null)
        {
            assertTrue(System.nanoTime() < deadline, "the waiter did not block");
            Thread.onSpinWait();
        }
        return result;
    }

    private static DatReturnSubtype subtypeOf(final Object thrown)
    {
        assertTrue(thrown instanceof DatException, String.valueOf(thrown));
        return ((DatException) thrown).subtype();
    }

    /**
     * Traps T-32 and T-33 in direct mode: beside a thread blocked in dat_evd_wait a dequeue and a
     * second wait are DAT_INVALID_STATE (EVD_WAITER) and take nothing; the Send wakes the waiter
     * with its receive. dat_evd_set_unwaitable wakes a blocked waiter with DAT_INVALID_STATE
     * (EVD_UNWAITABLE), a wait is refused while it lasts, and dequeue still takes from the slots.
     */
    @Test
    void aBlockedWaiterExcludesDequeueAndUnwaitableWakesIt() throws Exception
    {
        open(true, 64);
        postRecv(1);
        postRecv(2);
        final DatEvent got = new DatEvent();
        final CompletableFuture<Object> first = blockedWaiter(got);
        final DatEvent e = new DatEvent();
        assertEquals(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
            subtypeOf(catching(() -> serverRecv.dequeue(e))));
        assertEquals(DatReturnSubtype.INVALID_STATE_EVD_WAITER,
            subtypeOf(catching(() -> serverRecv.wait(0, 1, e, new DatCount()))));
        send(21);
        assertEquals(DatStatus.SUCCESS, first.get(5, TimeUnit.SECONDS));
        expectRecv(got, serverRecv, server, 1, 21, DtoStatus.SUCCESS);
        assertTrue(direct(serverRecv), "a blocked waiter ended direct mode");

        final CompletableFuture<Object> second = blockedWaiter(new DatEvent());
        serverRecv.setUnwaitable();
        assertEquals(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE,
            subtypeOf(second.get(5, TimeUnit.SECONDS)));
        send(22);
        assertEquals(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE,
            subtypeOf(catching(() -> serverRecv.wait(SECOND, 1, e, new DatCount()))));
        assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
        expectRecv(e, serverRecv, server, 2, 22, DtoStatus.SUCCESS);
        serverRecv.clearUnwaitable();
        postRecv(3);
        send(23);
        expectRecv(next(serverRecv), serverRecv, server, 3, 23, DtoStatus.SUCCESS);
    }

    /** A waiter blocked in direct mode when its IA closes (the EVD destroyed) returns DAT_ABORT. */
    @Test
    void aWaiterBlockedInDirectModeAbortsWhenTheIaCloses() throws Exception
    {
        open(true, 64);
        postRecv(1);
        final CompletableFuture<Object> w = blockedWaiter(new DatEvent());
        ia.close(CloseFlags.ABRUPT_FLAG);
        ia = null;
        final Object thrown = w.get(5, TimeUnit.SECONDS);
        assertTrue(thrown instanceof DatException, String.valueOf(thrown));
        assertEquals(DatReturnType.ABORT, ((DatException) thrown).type());
    }

    private static Throwable catching(final Runnable call)
    {
        try
        {
            call.run();
        }
        catch (final Throwable t)
        {
            return t;
        }
        return null;
    }

    /**
     * The same scenarios with the EVD in direct mode and on its ring, on a threadsafe and a
     * nonthreadsafe IA, give the same events: the order of completions and flushes after a
     * disconnect and a post after it, the events of a freed endpoint, nmore, and DAT_QUEUE_EMPTY
     * and DAT_TIMEOUT_EXPIRED once the EVD is empty.
     */
    @ParameterizedTest(name = "threadSafe={0}")
    @ValueSource(booleans = {true, false})
    void directModeGivesWhatTheRingGives(final boolean threadSafe)
    {
        for (int scenario = 0; scenario < 3; scenario++)
        {
            final String ringSide = run(threadSafe, "evd_direct=off", scenario);
            final String directSide = run(threadSafe, "evd_direct", scenario);
            assertEquals(ringSide, directSide, "scenario " + scenario);
        }
    }

    /** Runs scenario {@code n} on a fresh IA and returns what the consumer saw. */
    private String run(final boolean threadSafe, final String instanceData, final int n)
    {
        open(threadSafe, 64, instanceData);
        assertEquals(!instanceData.endsWith("=off"), direct(serverRecv));
        final StringBuilder seen = new StringBuilder();
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        send(100);
        send(101);
        final DatEvent e = new DatEvent();
        final DatCount nmore = new DatCount();
        switch (n)
        {
            case 0 ->
            {
                server.disconnect(CloseFlags.ABRUPT_FLAG);
                assertTrue(next(serverConn).is(EventNumber.CONNECTION_EVENT_DISCONNECTED));
                // posted after the end: flushed at once, behind the rest
                postRecv(9);
            }
            case 1 ->
            {
                send(102);
                server.free();
                server = null;
            }
            default ->
            {
                nmore.value = -1;
                final DatStatus s = serverRecv.wait(SECOND, 1, e, nmore);
                seen.append(s).append(' ').append(describe(e)).append(" nmore=").append(nmore.value).append('\n');
                send(102);
            }
        }
        DatStatus s;
        while ((s = serverRecv.wait(0, 1, e, nmore)) == DatStatus.SUCCESS)
        {
            seen.append(describe(e)).append(" nmore=").append(nmore.value).append('\n');
        }
        seen.append(s).append(" nmore=").append(nmore.value).append(' ').append(serverRecv.dequeue(e));
        ia.close(CloseFlags.ABRUPT_FLAG);
        ia = null;
        return seen.toString();
    }

    private String describe(final DatEvent e)
    {
        final DtoCompletionEventData d = e.dto;
        return "event=0x" + Integer.toHexString(e.eventNumber) + " cookie=" + d.userCookie + " " + d.status
            + " length=" + (d.status == DtoStatus.SUCCESS ? d.transferredLength : 0)
            + " evd=" + (e.evdHandle == serverRecv) + " ep=" + (server == null || d.epHandle == server);
    }

    /**
     * A consumer that read the EVD's direct ring before a move began, and takes while the move
     * runs (here: stopped between its close of the head and its copy) or after it, takes nothing
     * from the slots: the move alone hands those completions on, so none comes out twice or ahead
     * of one the move copied.
     */
    @Test
    void aConsumerThatLooksDuringTheMoveTakesNothingFromTheSlots()
    {
        open(true, 64);
        for (long c = 0; c < QUEUE; c++)
        {
            postRecv(c);
        }
        send(100);
        send(101);
        final EvdImpl evd = (EvdImpl) serverRecv;
        final RecvRing d = evd.direct;
        assertNotNull(d);
        final DatEvent e = new DatEvent();
        // the move's first step, as leaveDirect takes it under the EVD's lock
        assertEquals(0, d.closeDirect());
        assertEquals(RecvRing.MOVED, d.takeDirect(e, evd, evd.directEp()), "a take beside the move");
        assertTrue(d.readyDirect(), "a waiter looks again under the lock rather than park");
        // the move again, whole, under the lock: both completions reach the ring, once, in order
        evd.leaveDirect();
        assertEquals(RecvRing.MOVED, d.takeDirect(e, evd, evd.directEp()), "a take after the move");
        for (int i = 0; i < 2; i++)
        {
            assertEquals(DatStatus.SUCCESS, serverRecv.dequeue(e));
            expectRecv(e, serverRecv, server, i, 100 + i, DtoStatus.SUCCESS);
        }
        assertEquals(DatStatus.QUEUE_EMPTY, serverRecv.dequeue(e));
    }
}

package io.jdat.conformance;

import static io.jdat.conformance.Fixture.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Faults under load on loopback, each run 20 times: an SRQ drained to zero while Sends keep
 * coming, an IA closed while another thread waits and a third posts, an EVD that overflows
 * while its endpoint keeps completing. Each ends with nothing hung, every posted DTO accounted for
 * exactly once (success or an error status such as flushed), the data of every success intact,
 * and the failure reported by the spec's events.
 */
class FaultScenariosTest
{
    private static final int RUNS = 20;
    private static final int SLOT = 8;

    /**
     * The server's SRQ holds 16 buffers and nobody reposts; the client streams 200 Sends. The 17th
     * Send finds no buffer: the connection breaks. Every Send completes exactly once at the client;
     * those that completed successfully are exactly those whose data the server received, intact.
     */
    @RepeatedTest(RUNS)
    void anSrqDrainedToZeroUnderLoadBreaksTheConnectionAndLosesNothingSilently() throws Exception
    {
        final int buffers = 16;
        final int sends = 200;
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(buffers, 1));
            final Lmr slots = f.lmr((long) buffers * SLOT);
            for (int s = 0; s < buffers; s++)
            {
                srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(slots, (long) s * SLOT, SLOT)}, s);
            }
            final EventDispatcher serverRecv = f.evd(sends, EvdFlags.DTO_FLAG);
            final EventDispatcher serverConn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            final Fixture.Ep client = f.ep(deep());
            final var server = f.ia.epCreateWithSrq(f.pz, serverRecv, null, serverConn, srq, new EpAttr());
            connect(f, client, server, serverConn);

            final Lmr numbers = f.lmr((long) sends * SLOT);
            final EventDispatcher req = client.req();
            final BitSet succeeded = new BitSet();
            final BitSet completed = new BitSet();
            int posted = 0;
            int done = 0;
            final DatEvent ev = new DatEvent();
            while (done < posted || posted < sends)
            {
                if (posted < sends && posted - done < 64)
                {
                    numbers.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, (long) posted * SLOT, 1000 + posted);
                    try
                    {
                        client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(numbers, (long) posted * SLOT, SLOT)},
                            posted, CompletionFlags.DEFAULT_FLAG);
                        posted++;
                    }
                    catch (final DatException e)
                    {
                        // the endpoint left CONNECTED: posting stops, what was posted still completes
                        assertEquals(DatReturnType.INVALID_STATE, e.type(), e.getMessage());
                        break;
                    }
                    continue;
                }
                assertEquals(DatStatus.SUCCESS, req.wait(5 * SECOND, 1, ev, new DatCount()), "a Send never completed");
                done += account(ev, succeeded, completed);
            }
            while (done < posted)
            {
                assertEquals(DatStatus.SUCCESS, req.wait(5 * SECOND, 1, ev, new DatCount()), "a Send never completed");
                done += account(ev, succeeded, completed);
            }
            assertEquals(posted, completed.cardinality(), "every posted Send completes exactly once");

            // the server received exactly the Sends that succeeded, every byte intact
            final BitSet received = new BitSet();
            while (serverRecv.dequeue(ev) == DatStatus.SUCCESS)
            {
                if (ev.dto.status == DtoStatus.SUCCESS)
                {
                    final long slot = ev.dto.userCookie;
                    final long value = slots.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, slot * SLOT);
                    final int i = (int) (value - 1000);
                    assertTrue(i >= 0 && i < sends && !received.get(i), "received " + value);
                    received.set(i);
                }
            }
            assertEquals(succeeded, received, "Sends reported successful vs Sends received");
            assertEquals(buffers, received.cardinality(), "one Send per SRQ buffer arrived");
            assertTrue(posted > buffers, "the SRQ was never drained");

            // both sides see the break
            assertTrue(Fixture.next(client.conn()).is(EventNumber.CONNECTION_EVENT_BROKEN));
            assertTrue(Fixture.next(serverConn).is(EventNumber.CONNECTION_EVENT_BROKEN));
        }
    }

    /**
     * One thread waits on a receive EVD of a client IA and another streams Sends on it while the
     * main thread closes that IA abruptly. The waiter ends with ABORT, the poster with an error
     * (never a hang); at the peer, every posted receive completes exactly once, successes carry
     * intact data in order, the rest are flushed, and the connection is reported broken or
     * disconnected.
     */
    @RepeatedTest(RUNS)
    void anIaClosedWhileAnotherThreadWaitsAndAThirdPostsEndsEverythingCleanly() throws Exception
    {
        final int recvs = 256;
        try (Fixture server = new Fixture())
        {
            final Fixture client = new Fixture();
            final Fixture.Ep s = server.ep(deep());
            final Lmr sink = server.lmr((long) recvs * SLOT);
            for (int i = 0; i < recvs; i++)
            {
                s.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, (long) i * SLOT, SLOT)}, i,
                    CompletionFlags.DEFAULT_FLAG);
            }
            final Fixture.Ep c = client.ep(deep());
            final EventDispatcher crEvd = server.evd(4, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            c.ep().connect(server.address, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            Fixture.next(crEvd).crArrival.crHandle.accept(s.ep(), null);
            assertTrue(Fixture.next(s.conn()).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
            assertTrue(Fixture.next(c.conn()).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));

            final Lmr src = client.lmr((long) recvs * SLOT);
            final CountDownLatch running = new CountDownLatch(2);
            final java.util.concurrent.atomic.AtomicReference<Thread> waiting =
                new java.util.concurrent.atomic.AtomicReference<>();
            final CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() ->
            {
                waiting.set(Thread.currentThread());
                running.countDown();
                try
                {
                    c.recv().wait(30 * SECOND, 1, new DatEvent(), new DatCount());
                    return new AssertionError("the wait returned instead of ending with ABORT");
                }
                catch (final DatException e)
                {
                    return e.type() == DatReturnType.ABORT ? null : e;
                }
            }, Fixture.THREADS);
            final CompletableFuture<Integer> poster = CompletableFuture.supplyAsync(() ->
            {
                running.countDown();
                int sent = 0;
                try
                {
                    for (int i = 0; i < recvs; i++)
                    {
                        src.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, (long) i * SLOT, 5000 + i);
                        c.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, (long) i * SLOT, SLOT)}, i,
                            CompletionFlags.SUPPRESS_FLAG);
                        sent++;
                        if (i % 16 == 15)
                        {
                            Thread.yield();
                        }
                    }
                }
                catch (final DatException | IllegalStateException e)
                {
                    // the IA went away under the poster: the way it must end
                }
                return sent;
            }, Fixture.THREADS);
            assertTrue(running.await(5, TimeUnit.SECONDS));
            // close only once the waiter is blocked in dat_evd_wait (parked after its spin)
            final long blockedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (waiting.get().getState() != Thread.State.WAITING
                && waiting.get().getState() != Thread.State.TIMED_WAITING)
            {
                assertTrue(System.nanoTime() - blockedBy < 0, "the waiter never blocked");
                Thread.onSpinWait();
            }
            client.ia.close(CloseFlags.ABRUPT_FLAG);
            final Throwable w = waiter.get(10, TimeUnit.SECONDS);
            assertEquals(null, w, () -> "the waiter: " + w);
            final int sent = poster.get(10, TimeUnit.SECONDS);

            // the peer: BROKEN or DISCONNECTED, and every receive accounted for once
            final DatEvent end = Fixture.next(s.conn());
            assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN) || end.is(EventNumber.CONNECTION_EVENT_DISCONNECTED),
                end.toString());
            final BitSet completed = new BitSet();
            int successes = 0;
            boolean flushedSeen = false;
            final DatEvent ev = new DatEvent();
            for (int k = 0; k < recvs; k++)
            {
                assertEquals(DatStatus.SUCCESS, s.recv().wait(5 * SECOND, 1, ev, new DatCount()),
                    "receive " + k + " never completed");
                final int i = (int) ev.dto.userCookie;
                assertFalse(completed.get(i), "receive " + i + " completed twice");
                completed.set(i);
                if (ev.dto.status == DtoStatus.SUCCESS)
                {
                    // Sends are placed in order: success after a flush would be a reordering
                    assertFalse(flushedSeen, "receive " + i + " succeeded after a flushed one");
                    assertEquals(i, successes, "receives complete in order");
                    assertEquals(5000 + i, sink.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, (long) i * SLOT));
                    successes++;
                }
                else
                {
                    assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status, ev.toString());
                    flushedSeen = true;
                }
            }
            assertTrue(successes <= sent, successes + " received, " + sent + " posted");
            assertEquals(DatStatus.QUEUE_EMPTY, s.recv().dequeue(ev), "an extra completion");
        }
    }

    /**
     * A request EVD of 8 entries that nobody reaps while its endpoint completes 64 signalled
     * Sends: the EVD overflows, the IA's async EVD reports it once, waits on the EVD are refused,
     * and the transfers themselves are unharmed: the peer receives every message intact, in order.
     */
    @RepeatedTest(RUNS)
    void anEvdOverflowUnderLoadIsReportedAndHarmsNoTransfer() throws Exception
    {
        final int sends = 64;
        try (Fixture f = new Fixture())
        {
            final EventDispatcher smallReq = f.evd(8, EvdFlags.DTO_FLAG);
            final EventDispatcher clientConn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            final Fixture.Ep client = new Fixture.Ep(f.ia.epCreate(f.pz, null, smallReq, clientConn, deep()), null,
                smallReq, clientConn);
            final Fixture.Ep server = f.ep(deep());
            final Lmr sink = f.lmr((long) sends * SLOT);
            for (int i = 0; i < sends; i++)
            {
                server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, (long) i * SLOT, SLOT)}, i,
                    CompletionFlags.DEFAULT_FLAG);
            }
            connect(f, client, server.ep(), server.conn());
            final Lmr src = f.lmr((long) sends * SLOT);
            for (int i = 0; i < sends; i++)
            {
                src.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, (long) i * SLOT, 7000 + i);
                client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, (long) i * SLOT, SLOT)}, i,
                    CompletionFlags.DEFAULT_FLAG);
            }
            for (int i = 0; i < sends; i++)
            {
                final DatEvent ev = Fixture.next(server.recv());
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
                assertEquals(i, ev.dto.userCookie, "in order");
                assertEquals(7000 + i, sink.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, (long) i * SLOT));
            }
            final DatEvent async = Fixture.next(f.asyncEvd);
            assertTrue(async.is(EventNumber.ASYNC_ERROR_EVD_OVERFLOW), async.toString());
            assertEquals(smallReq, async.asyncError.datHandle, "the overflowed EVD is named");
            final DatException refused = Fixture.expect(DatReturnType.INVALID_STATE,
                () -> smallReq.wait(SECOND, 1, new DatEvent(), new DatCount()));
            assertNotEquals(null, refused.getMessage());
            assertEquals(DatStatus.TIMEOUT_EXPIRED, f.asyncEvd.wait(100_000, 1, new DatEvent(), new DatCount()),
                "the overflow is reported once");
        }
    }

    /** Room for the 256 requests or receives a scenario posts. */
    private static EpAttr deep()
    {
        final EpAttr a = new EpAttr();
        a.maxRecvDtos = 256;
        a.maxRequestDtos = 256;
        return a;
    }

    private static int account(final DatEvent ev, final BitSet succeeded, final BitSet completed)
    {
        assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
        final int i = (int) ev.dto.userCookie;
        assertFalse(completed.get(i), "Send " + i + " completed twice");
        completed.set(i);
        if (ev.dto.status == DtoStatus.SUCCESS)
        {
            succeeded.set(i);
        }
        return 1;
    }

    private static void connect(final Fixture f, final Fixture.Ep client, final io.jdat.Endpoint server,
        final EventDispatcher serverConn)
    {
        final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        client.ep().connect(f.address, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        Fixture.next(crEvd).crArrival.crHandle.accept(server, null);
        assertTrue(Fixture.next(serverConn).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        assertTrue(Fixture.next(client.conn()).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        psp.free();
        crEvd.free();
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While consumers poll their EVDs, their rounds move the rings and the IAs' I/O threads stay
 * parked instead of spinning beside them; when a consumer waits instead, the I/O thread carries
 * the traffic again. A consumer whose {@code dat_evd_wait} spin ended moves the rings itself.
 */
class ShmInlineProgressTest
{
    private static final int ROUND_TRIPS = 10_000;
    /**
     * Round trips before the count starts: until the threads run and the I/O thread has seen the
     * first polls, it spins as configured, for as long as starting threads takes on a busy machine.
     */
    private static final int WARM_UP = 100;
    /** How long a ping-pong may run before it stops short of {@link #ROUND_TRIPS}. */
    private static final long BUDGET_NANOS = 30_000_000_000L;

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    /**
     * Runs a polled Send ping-pong of {@link #ROUND_TRIPS} between two IAs; returns the client
     * IA's progress rounds on its I/O thread and on the polling thread after the first
     * {@link #WARM_UP} round trips.
     */
    private long[] roundsWhilePolling(final String instanceData) throws Exception
    {
        return roundTrips(instanceData, false);
    }

    /**
     * Runs a Send ping-pong of {@link #ROUND_TRIPS} (fewer if {@link #BUDGET_NANOS} runs out)
     * between two IAs, both sides polling with {@code dat_evd_dequeue} or, if {@code waiting},
     * waiting in {@code dat_evd_wait}; returns the client IA's progress rounds on its I/O thread
     * and on the consumer's thread (with the records it read from its own connection's ring) after
     * the first {@link #WARM_UP} round trips, and the number of round trips after those.
     */
    private long[] roundTrips(final String instanceData, final boolean waiting) throws Exception
    {
        try (ShmNode server = ShmNode.open(dir, "srv", instanceData);
            ShmNode client = ShmNode.open(dir, "cli", instanceData))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final ShmNode.Ep c = pair[0];
            final ShmNode.Ep s = pair[1];
            final Lmr cm = client.lmr(8192);
            final Lmr sm = server.lmr(8192);
            final LmrTriplet[] ping = {LmrTriplet.of(cm, 0, 64)};
            final LmrTriplet[] pingRecv = {LmrTriplet.of(cm, 4096, 64)};
            final LmrTriplet[] pong = {LmrTriplet.of(sm, 0, 64)};
            final LmrTriplet[] pongRecv = {LmrTriplet.of(sm, 4096, 64)};
            for (int i = 0; i < 8; i++)
            {
                c.ep().postRecv(1, pingRecv, 0, 0);
                s.ep().postRecv(1, pongRecv, 0, 0);
            }
            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicReference<String> failure = new AtomicReference<>();
            final AtomicReference<long[]> before = new AtomicReference<>();
            final AtomicInteger done = new AtomicInteger();
            final Thread echo = new Thread(() ->
            {
                final DatEvent ev = new DatEvent();
                while (running.get())
                {
                    if ((waiting ? s.recv().wait(100_000, 1, ev, new DatCount()) : s.recv().dequeue(ev))
                        == DatStatus.SUCCESS)
                    {
                        if (ev.dto.status != DtoStatus.SUCCESS)
                        {
                            failure.set("echo: " + ev);
                            return;
                        }
                        s.ep().postRecv(1, pongRecv, 0, 0);
                        s.ep().postSend(1, pong, 0, CompletionFlags.SUPPRESS_FLAG);
                    }
                }
            }, "test-echo");
            final Thread pinger = new Thread(() ->
            {
                final DatEvent ev = new DatEvent();
                // a control run whose I/O threads spin beside both pollers has four busy threads on
                // this machine's cores: it stops at a time budget rather than at a test timeout
                final long budget = System.nanoTime() + BUDGET_NANOS;
                for (int i = 0; i < ROUND_TRIPS && (i <= WARM_UP || System.nanoTime() < budget); i++)
                {
                    if (i == WARM_UP)
                    {
                        before.set(rounds(client));
                    }
                    c.ep().postSend(1, ping, 0, CompletionFlags.SUPPRESS_FLAG);
                    final long deadline = System.nanoTime() + 2_000_000_000L;
                    while ((waiting ? c.recv().wait(100_000, 1, ev, new DatCount()) : c.recv().dequeue(ev))
                        != DatStatus.SUCCESS)
                    {
                        if (System.nanoTime() > deadline)
                        {
                            failure.set("no answer within 2 s");
                            return;
                        }
                    }
                    c.ep().postRecv(1, pingRecv, 0, 0);
                    done.set(i + 1);
                }
            }, "test-ping");
            final Thread.UncaughtExceptionHandler died = (t, e) -> failure.compareAndSet(null, t.getName() + ": " + e);
            echo.setUncaughtExceptionHandler(died);
            pinger.setUncaughtExceptionHandler(died);
            echo.start();
            pinger.start();
            pinger.join(BUDGET_NANOS / 1_000_000 + 30_000);
            final boolean pingerEnded = !pinger.isAlive();
            final long[] after = rounds(client);
            running.set(false);
            echo.join(5000);
            assertEquals(null, failure.get());
            assertTrue(pingerEnded, "the ping-pong did not end");
            assertFalse(echo.isAlive(), "the echo thread did not end");
            assertTrue(done.get() > WARM_UP, "round trips done: " + done.get());
            final long[] from = before.get();
            final long[] rounds = {after[0] - from[0], after[1] - from[1], done.get() - WARM_UP};

            // a consumer that waits past its spin parks and hands the rings back to the I/O thread
            // at once, however long poll_grace_ns is: a Send posted then arrives without delay. (It
            // proves the hand-back where the waiter parks, wait_polls=false, and the I/O thread
            // stepped aside for a second at a time, poll_grace_ns=1000000000: nothing else brings
            // the I/O thread back within the bound. A waiter that moves the rings itself gets the
            // Send on its own.)
            final long[] arrived = new long[1];
            final Thread waiter = new Thread(() ->
            {
                final DatEvent got = next(s.recv(), EventNumber.DTO_COMPLETION_EVENT);
                arrived[0] = got.dto.status == DtoStatus.SUCCESS ? System.nanoTime() : -1;
            }, "test-waiter");
            waiter.start();
            Thread.sleep(50);
            final long posted = System.nanoTime();
            c.ep().postSend(1, ping, 0, CompletionFlags.SUPPRESS_FLAG);
            waiter.join(10_000);
            assertTrue(arrived[0] > 0, "the waiter got the Send");
            assertTrue(arrived[0] - posted < 300_000_000L, "the Send took " + (arrived[0] - posted) / 1000
                + " us to reach the waiting consumer");
            return rounds;
        }
    }

    /** The IA's progress rounds so far: on its I/O thread, inline. */
    private static long[] rounds(final ShmNode node)
    {
        final IaAttr attr = new IaAttr();
        node.ia.query(IaAttr.FIELD_ALL, attr, 0, null);
        // a polling consumer moves the rings in its rounds, or reads its own connection's ring
        return new long[] {Long.parseLong(attr.transportAttr("jdat.shm.rounds_io_thread")),
            Long.parseLong(attr.transportAttr("jdat.shm.rounds_inline"))
                + Long.parseLong(attr.transportAttr("jdat.shm.records_read_own"))};
    }

    @Test
    void ioThreadStaysParkedWhileConsumersPoll() throws Exception
    {
        // an I/O thread that spins for a whole second after its last work before it backs off,
        // and (stepping aside) waits for a poller silent for a whole second
        final String spinning = "idle_spin_ns=1000000000";
        // (the consumers poll; the waiter after the ping-pong parks: see roundTrips's hand-back)
        final long[] aside = roundsWhilePolling(spinning + " poll_grace_ns=1000000000 wait_polls=false");
        final long[] beside = roundsWhilePolling(spinning + " poll_grace_ns=0");
        System.out.println("rounds on the I/O thread / on the polling thread: stepping aside " + aside[0] + " / "
            + aside[1] + ", never stepping aside " + beside[0] + " / " + beside[1] + " (during the ping-pong)");
        assertTrue(aside[1] >= aside[2], "the polling thread moved the rings: " + aside[1] + " rounds for "
            + aside[2] + " round trips");
        // the control: an I/O thread that never steps aside spins beside the pollers
        assertTrue(aside[0] * 10 < beside[0], "the I/O thread ran " + aside[0] + " rounds beside polling consumers, "
            + beside[0] + " when it never steps aside");
    }

    @Test
    void waiterWhoseSpinEndedMovesTheRingsItself() throws Exception
    {
        // dat_evd_wait with no spin at all, beside an I/O thread that spins for a whole second
        final String waiting = "evd_spin_us=0 idle_spin_ns=1000000000 poll_grace_ns=1000000000";
        final long[] inTransport = roundTrips(waiting, true);
        final long[] parked = roundTrips(waiting + " wait_polls=false", true);
        System.out.println("rounds on the I/O thread / on the waiting thread: waiter moves the rings "
            + inTransport[0] + " / " + inTransport[1] + ", waiter parks " + parked[0] + " / " + parked[1]);
        // (not every message: the I/O thread, woken for a look by a post that found the rings'
        // lock taken, places some, the more the busier the machine)
        assertTrue(inTransport[1] >= inTransport[2] / 10, "the waiting thread moved the rings: " + inTransport[1]
            + " rounds for " + inTransport[2] + " round trips");
        // the control: a waiter that parks leaves the rounds to the I/O thread (how many the I/O
        // thread runs beside a waiter that moves the rings depends on the machine's load: each
        // post that finds the rings' lock taken wakes it for a look)
        assertTrue(parked[1] < parked[2] + WARM_UP, "a parking waiter moved the rings: " + parked[1] + " rounds for "
            + parked[2] + " round trips");
    }
}

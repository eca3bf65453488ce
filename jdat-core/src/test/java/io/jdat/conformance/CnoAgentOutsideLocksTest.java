package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.EpStatus;
import io.jdat.EventDispatcher;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.OsWaitProxyAgent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A CNO's proxy agent is consumer code and never runs under an engine lock: here, never under the
 * sending endpoint's lock, though on loopback the sender's thread places its own Send and posts
 * the receiver's completion. The CNO is attached to the receive EVD and detached again on another
 * thread all the while, so some attachments land while a Send is being placed. The agent looks
 * for the sender's lock from another thread ({@code dat_ep_get_status} takes it); a lock held by
 * the agent's thread keeps that call from returning.
 */
class CnoAgentOutsideLocksTest
{
    private static final int MESSAGES = 200_000;
    /**
     * Agent calls to see before the verdict: how many land in {@link #MESSAGES} Sends depends on
     * scheduling (on the receive side 3 to 6,000 on two idle cores, none on a loaded one), so the
     * Sends go on until this many were seen, within {@link #LIMIT_SECONDS}.
     */
    private static final int MIN_CALLS = 10;
    private static final long LIMIT_SECONDS = 60;

    @Test
    void anAgentOfACnoAttachedWhileASendIsPlacedRunsOutsideTheSendersLock() throws Exception
    {
        run(false);
    }

    /**
     * The request side: the Send's own completion, which the sender's thread posts to its request
     * EVD once the Send is placed (under its lock: requests retire in posting order). The CNO stays
     * attached: every completion posted while the agent is armed calls it.
     */
    @Test
    void anAgentOfACnoOnTheRequestEvdRunsOutsideTheSendersLock() throws Exception
    {
        run(true);
    }

    private static void run(final boolean requestSide) throws Exception
    {
        final ExecutorService checker = Executors.newSingleThreadExecutor(r ->
            Thread.ofPlatform().daemon().name("lock-checker").unstarted(r));
        try (Fixture f = new Fixture())
        {
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = 4;
            if (!requestSide)
            {
                attr.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            }
            final Fixture.Ep[] p = f.connectedPair(attr);
            final Lmr lmr = f.lmr(128);
            final LmrTriplet[] out = {LmrTriplet.of(lmr, 0, 64)};
            final LmrTriplet[] in = {LmrTriplet.of(lmr, 64, 64)};
            final AtomicInteger calls = new AtomicInteger();
            final AtomicInteger underLock = new AtomicInteger();
            final Cno[] cno = new Cno[1];
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Exception> failure = new AtomicReference<>();
            final OsWaitProxyAgent[] agent = new OsWaitProxyAgent[1];
            agent[0] = new OsWaitProxyAgent(null, (data, evd) ->
            {
                if (stop.get())
                {
                    return;
                }
                if (evd == null)
                {
                    // released: the EVD let go of the CNO; arm the agent again
                    cno[0].modifyAgent(agent[0]);
                    return;
                }
                calls.incrementAndGet();
                try
                {
                    CompletableFuture.runAsync(() -> p[0].ep().getStatus(new EpStatus()), checker)
                        .get(2, TimeUnit.SECONDS);
                }
                catch (final TimeoutException e)
                {
                    underLock.incrementAndGet();
                }
                catch (final Exception e)
                {
                    failure.compareAndSet(null, e);
                }
                // an agent is called once; arm it again
                cno[0].modifyAgent(agent[0]);
            });
            cno[0] = f.ia.cnoCreate(agent[0]);
            final EventDispatcher watched = requestSide ? p[0].req() : p[1].recv();
            final int sendFlags = requestSide ? CompletionFlags.DEFAULT_FLAG
                : CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG;
            // the receive side places inline only while no CNO is attached, so attachments must
            // land during a placement; the request side posts every completion under the
            // sender's lock, so the CNO simply stays attached and every arming is tried
            final Thread toggler = Thread.ofPlatform().daemon().name("cno-toggler").unstarted(() ->
            {
                while (!stop.get())
                {
                    watched.modifyCno(cno[0]);
                    Thread.onSpinWait();
                    watched.modifyCno(null);
                }
            });
            if (requestSide)
            {
                watched.modifyCno(cno[0]);
            }
            else
            {
                toggler.start();
            }
            final DatEvent ev = new DatEvent();
            try
            {
                final long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
                for (int i = 0; (i < MESSAGES || calls.get() < MIN_CALLS) && underLock.get() == 0
                    && System.nanoTime() < limit; i++)
                {
                    p[1].ep().postRecv(1, in, i, 0);
                    p[0].ep().postSend(1, out, i, sendFlags);
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (p[1].recv().dequeue(ev) != DatStatus.SUCCESS)
                    {
                        assertTrue(System.nanoTime() < deadline, "receive " + i + " never completed");
                        Thread.onSpinWait();
                    }
                    assertEquals(i, ev.dto.userCookie);
                    if (requestSide)
                    {
                        while (p[0].req().dequeue(ev) != DatStatus.SUCCESS)
                        {
                            assertTrue(System.nanoTime() < deadline, "send " + i + " never completed");
                            Thread.onSpinWait();
                        }
                        assertEquals(i, ev.dto.userCookie);
                    }
                }
            }
            finally
            {
                stop.set(true);
                if (!requestSide)
                {
                    toggler.join();
                }
            }
            watched.modifyCno(null);
            assertEquals(null, failure.get());
            assertEquals(0, underLock.get(), "agent calls under the sender's endpoint lock, of " + calls.get());
            assertTrue(calls.get() >= MIN_CALLS, "the agent was called " + calls.get()
                + " times, where the Sends went on until " + MIN_CALLS + " or " + LIMIT_SECONDS + " s");
        }
        finally
        {
            checker.shutdownNow();
        }
    }
}

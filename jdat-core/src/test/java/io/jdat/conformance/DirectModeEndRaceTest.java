package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.OsWaitProxyAgent;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A receive EVD leaves direct mode (its completions in the receive slots) on another thread while
 * the sender's thread places Sends into its endpoint: attaching a CNO ends the mode. A placement
 * that runs while the move is under way must not be undone by it, nor pass completions the move
 * has still to give the EVD: every receive completes once, in the order posted. Each round starts
 * the attachment at a random point of a fresh connection's traffic, so that some attachments land
 * in the middle of a placement; a placement whose advance the move undid had the next Send fill
 * the same receive again, and its cookie came back twice.
 */
class DirectModeEndRaceTest
{
    private static final int ROUNDS = 150;
    private static final int MESSAGES = 400;

    @Test
    void everyReceiveCompletesOnceInOrderWhileDirectModeEnds() throws Exception
    {
        for (int round = 0; round < ROUNDS; round++)
        {
            round(round);
        }
    }

    private static void round(final int round) throws Exception
    {
        try (Fixture f = new Fixture())
        {
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = 4;
            attr.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            final Fixture.Ep[] p = f.connectedPair(attr);
            final Lmr lmr = f.lmr(128);
            final LmrTriplet[] out = {LmrTriplet.of(lmr, 0, 64)};
            final LmrTriplet[] in = {LmrTriplet.of(lmr, 64, 64)};
            final Cno cno = f.ia.cnoCreate(new OsWaitProxyAgent(null, (data, evd) ->
            {
                // only the attachment matters here
            }));
            final EventDispatcher recv = p[1].recv();
            final int delay = ThreadLocalRandom.current().nextInt(20_000);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread attacher = Thread.ofPlatform().daemon().name("cno-attacher").start(() ->
            {
                try
                {
                    for (int i = 0; i < delay; i++)
                    {
                        Thread.onSpinWait();
                    }
                    recv.modifyCno(cno);
                }
                catch (final Throwable t)
                {
                    failure.set(t);
                }
            });
            final DatEvent ev = new DatEvent();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            for (int i = 0; i < MESSAGES; i++)
            {
                p[1].ep().postRecv(1, in, i, 0);
                p[0].ep().postSend(1, out, i, CompletionFlags.SUPPRESS_FLAG | CompletionFlags.UNSIGNALLED_FLAG);
                while (recv.dequeue(ev) != DatStatus.SUCCESS)
                {
                    assertTrue(System.nanoTime() < deadline, "round " + round + ": receive " + i + " never completed");
                    Thread.onSpinWait();
                }
                assertEquals(i, ev.dto.userCookie, "round " + round + ": the receive completed");
            }
            attacher.join();
            assertEquals(null, failure.get());
            assertEquals(DatStatus.QUEUE_EMPTY, recv.dequeue(ev), "round " + round + ": an event left over");
            recv.modifyCno(null);
        }
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends reported sent by the port's I/O thread while the posting thread holds the endpoint's lock
 * (a poster the scheduler took off its core inside a post): the I/O thread never waits for that
 * lock, it leaves its reports for the holder, and the holder's post must count them. Else a
 * sender whose window is sized by what its peer received (the message-rate benchmark: a window
 * of 64 receives, 128 requests) is refused with "max_request_dtos requests are outstanding" for
 * requests that were all sent.
 */
class ShmSentReportsTest
{
    private static final int LEN = 64;
    /** The client's I/O thread wakes as soon as the server consumes (futex); the server's sleeps. */
    private static final String SLEEPY = "idle_spin_ns=0 idle_yield_ns=0 idle_park_min_ns=5000000000"
        + " idle_park_max_ns=5000000000 futex=false";

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void aPostCountsTheSendsReportedWhileItsThreadHeldTheLock() throws InterruptedException
    {
        try (ShmNode server = ShmNode.open(dir, "srv", SLEEPY);
            ShmNode client = ShmNode.open(dir, "cli", "complete_written=false"))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final int depth = new EpAttr().maxRequestDtos;
            final Lmr source = client.lmr(LEN);
            final Lmr sink = server.lmr((depth + 1) * LEN);
            for (int i = 0; i < depth; i++)
            {
                receive(pair[1], sink, i);
            }
            // the server's I/O thread asleep: its receives are placed only when this thread polls
            Thread.sleep(200);
            final LmrTriplet[] send = {LmrTriplet.of(source, 0, LEN)};
            EndpointInside.lock(pair[0].ep());
            try
            {
                for (int i = 0; i < depth; i++)
                {
                    pair[0].ep().postSend(1, send, i, CompletionFlags.SUPPRESS_FLAG);
                }
                for (int i = 0; i < depth; i++)
                {
                    final DatEvent recv = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
                    assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
                }
                receive(pair[1], sink, depth);
                // the server consumed every record: the client's I/O thread reports each Send sent
                // and, finding the lock held here, leaves the reports to this thread
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (EndpointInside.reportedNotRetired(pair[0].ep()) < depth && System.nanoTime() < deadline)
                {
                    Thread.sleep(1);
                }
                assertEquals(depth, EndpointInside.reportedNotRetired(pair[0].ep()), "Sends reported, not completed");
                // the ring looks full from its head, but every request in it was sent
                pair[0].ep().postSend(1, send, depth, CompletionFlags.SUPPRESS_FLAG);
            }
            finally
            {
                EndpointInside.unlock(pair[0].ep());
            }
            final DatEvent last = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, last.dto.status, last.toString());
            assertEquals(depth, last.dto.userCookie);
        }
    }

    private static void receive(final ShmNode.Ep ep, final Lmr sink, final int i)
    {
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, (long) i * LEN, LEN)}, i, 0);
    }
}

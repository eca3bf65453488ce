package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CloseFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An abrupt dat_ep_disconnect with Sends in flight: a Send the peer placed completes SUCCESS; with
 * {@code complete_written=false}, one it did not is FLUSHED and never placed afterwards; with
 * {@code complete_written=true} (the default) a Send of one record completed SUCCESS once written
 * into the ring, whichever thread wrote it, and the disconnect leaves it there: the peer places
 * every one of them, then sees the disconnect and flushes the receives left. One side's I/O thread
 * sleeps whenever it finds
 * nothing to do, so that only the test's own calls move that IA: the Sends wait, placed, for a
 * report that only the disconnect gives, or wait, written, for a peer that only looks after it.
 * That IA parks rather than sleeping on the rings' futex words ({@code futex=false}): else the
 * peer's records would wake it.
 */
class ShmAbruptDisconnectTest
{
    /** As many as the default endpoint attributes let be outstanding. */
    private static final int SENDS = 16;
    private static final int LEN = 64;
    /** An I/O thread that parks 5 s at a time when idle, and that the peer cannot wake. */
    private static final String SLEEPY = "idle_spin_ns=0 idle_yield_ns=0 idle_park_min_ns=5000000000"
        + " idle_park_max_ns=5000000000 futex=false";

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void sendsThePeerPlacedCompleteSuccessfully()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", "");
            ShmNode client = ShmNode.open(dir, "cli", SLEEPY))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final Lmr source = client.lmr(SENDS * LEN);
            final Lmr sink = server.lmr(SENDS * LEN);
            post(pair, source, sink);
            for (int i = 0; i < SENDS; i++)
            {
                final DatEvent recv = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
                assertEquals(i, recv.dto.userCookie);
            }
            // every Send is placed; nobody polls the client's EVDs, and its I/O thread sleeps
            pair[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            for (int i = 0; i < SENDS; i++)
            {
                final DatEvent sent = next(pair[0].req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(i, sent.dto.userCookie);
                assertEquals(DtoStatus.SUCCESS, sent.dto.status, "Send " + i + ", which the peer placed: " + sent);
            }
            next(pair[0].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(-1, sink.memory().mismatch(source.memory()), "the bytes of the Sends");
        }
    }

    @Test
    void sendsThePeerNeverTookAreFlushedAndNeverPlaced() throws InterruptedException
    {
        try (ShmNode server = ShmNode.open(dir, "srv", SLEEPY);
            ShmNode client = ShmNode.open(dir, "cli", "complete_written=false"))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final Lmr source = client.lmr(SENDS * LEN);
            final Lmr sink = server.lmr(SENDS * LEN);
            // let the server's I/O thread go to sleep: then the Sends wait in the ring
            Thread.sleep(200);
            post(pair, source, sink);
            pair[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            for (int i = 0; i < SENDS; i++)
            {
                final DatEvent sent = next(pair[0].req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(i, sent.dto.userCookie);
                assertEquals(DtoStatus.ERR_FLUSHED, sent.dto.status, "Send " + i + ", which the peer never took: "
                    + sent);
            }
            next(pair[0].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);

            // the server wakes, sees the disconnect, and places none of the flushed Sends
            next(pair[1].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (int i = 0; i < SENDS; i++)
            {
                final DatEvent recv = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, "receive " + i + ": " + recv);
            }
            assertEquals(-1, sink.memory().mismatch(MemorySegment.ofArray(new byte[SENDS * LEN])),
                "the receive buffers are untouched");
        }
    }

    @Test
    void sendsCompletedOnceWrittenAreReceivedAfterTheAbort() throws InterruptedException
    {
        try (ShmNode server = ShmNode.open(dir, "srv", SLEEPY);
            ShmNode client = ShmNode.open(dir, "cli", SLEEPY + " complete_written=true"))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final Lmr source = client.lmr(SENDS * LEN);
            final Lmr sink = server.lmr(SENDS * LEN);
            // the server's I/O thread asleep: nothing of the server's runs while the client's Sends
            // are written
            Thread.sleep(200);
            // one receive more than Sends: the disconnect flushes it
            receives(pair, sink);
            sends(pair, source, SENDS - 1);
            // each Send completed once its record was written, by its post or, when a round of
            // the client's I/O thread held the lock, by a round: before the server took any
            for (int i = 0; i < SENDS - 1; i++)
            {
                final DatEvent sent = next(pair[0].req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(i, sent.dto.userCookie);
                assertEquals(DtoStatus.SUCCESS, sent.dto.status, sent.toString());
            }
            final DatEvent sent = new DatEvent();
            pair[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            next(pair[0].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(DatStatus.QUEUE_EMPTY, pair[0].req().dequeue(sent), "a completion too many");

            // the server wakes, places every Send the client reported complete, then sees the
            // disconnect and flushes the receive left over
            next(pair[1].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (int i = 0; i < SENDS - 1; i++)
            {
                final DatEvent recv = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(i, recv.dto.userCookie);
                assertEquals(DtoStatus.SUCCESS, recv.dto.status, "receive " + i + ": " + recv);
            }
            final DatEvent spare = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(SENDS - 1, spare.dto.userCookie);
            assertEquals(DtoStatus.ERR_FLUSHED, spare.dto.status, spare.toString());
            final long placed = (SENDS - 1) * LEN;
            assertEquals(-1, sink.memory().asSlice(0, placed).mismatch(source.memory().asSlice(0, placed)),
                "the bytes of the Sends");
        }
    }

    /** Posts a receive per Send at the server, then the Sends, each of a pattern of its own. */
    private static void post(final ShmNode.Ep[] pair, final Lmr source, final Lmr sink)
    {
        receives(pair, sink);
        sends(pair, source, SENDS);
    }

    private static void receives(final ShmNode.Ep[] pair, final Lmr sink)
    {
        for (int i = 0; i < SENDS; i++)
        {
            pair[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, (long) i * LEN, LEN)}, i, 0);
        }
    }

    private static void sends(final ShmNode.Ep[] pair, final Lmr source, final int count)
    {
        for (int i = 0; i < SENDS * LEN; i++)
        {
            source.memory().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + i / LEN));
        }
        for (int i = 0; i < count; i++)
        {
            pair[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(source, (long) i * LEN, LEN)}, i, 0);
        }
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.testkit.StoppedReader;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A connected peer that stops reading its ring (it consumes three records, then none): Sends and
 * RDMA Writes posted towards it fill the ring and then wait in the endpoint's request queue, a
 * post beyond {@code max_request_dtos} is refused with DAT_INSUFFICIENT_RESOURCES, and the
 * connection breaks once the peer consumed nothing for {@code stall_ms}; every posted DTO
 * completes exactly once, in posting order: the three consumed with success, the others flushed,
 * and those the peer had not claimed are withdrawn, so that it can never deliver them afterwards.
 * Meanwhile a second endpoint of the same IA connects to an honest peer and Sends.
 */
class ShmStoppedReaderTest
{
    private static final int QUEUE = 32;
    private static final int SIZE = 4096;
    private static final int CONSUMED = 3;
    private static final long STALL_MS = 1000;

    private Path dir;
    private ShmNode victim;

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        if (victim != null)
        {
            victim.close();
        }
        TestFiles.delete(dir);
    }

    @Test
    void postsAreBoundedByTheRequestQueueAndTheConnectionBreaksAtTheStallBound() throws Exception
    {
        victim = ShmNode.open(dir, "victim", "ring_size=65536 complete_written=false stall_ms=" + STALL_MS);
        final IaAttr ia = new IaAttr();
        victim.ia.query(IaAttr.FIELD_ALL, ia, 0, null);
        assertEquals(Long.toString(STALL_MS), ia.transportAttr("jdat.shm.stall_ms"));
        final EventDispatcher crEvd = victim.evd(8, EvdFlags.CR_FLAG);
        victim.ia.pspCreate(7000, crEvd, PspFlags.CONSUMER_FLAG);
        final EpAttr attr = new EpAttr();
        attr.maxRequestDtos = QUEUE;
        final ShmNode.Ep ep = victim.ep(attr);
        final Lmr mem = victim.lmr(SIZE);
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, 900, 0);

        try (Hostile peer = Hostile.request(dir.resolve("victim"), 7000, f ->
        {
        }))
        {
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
            peer.establish();
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);

            final long heapBefore = StoppedReader.heapAfterGc();
            // Sends and Writes alternately, 32 x 4 KiB: the 64 KiB ring takes about half
            final LmrTriplet[] iov = {LmrTriplet.of(mem, 0, SIZE)};
            long posted = 0;
            for (; posted < QUEUE; posted++)
            {
                StoppedReader.post(ep, iov, posted);
            }
            final long cookie = posted;
            final DatException full = assertThrows(DatException.class, () -> StoppedReader.post(ep, iov, cookie));
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, full.type(), full.toString());

            // the peer reads three records, delivering them as the provider does, then stops
            for (int i = 0; i < CONSUMED; i++)
            {
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (peer.rx.available() == 0)
                {
                    assertTrue(System.nanoTime() < deadline, "the victim wrote nothing into its ring");
                    Hostile.pause();
                }
                final long at = peer.rx.readIndex();
                final int length = peer.rx.data().get(ValueLayout.JAVA_INT, at + Frame.LENGTH);
                final int type = Frame.typeAt(peer.rx.data(), at);
                assertEquals(i % 2 == 0 ? RdmapOpcode.SEND : RdmapOpcode.RDMA_WRITE, type, "record " + i);
                assertTrue(peer.rx.beginDelivery(SpscRing.aligned(length)));
                peer.rx.consume(SpscRing.aligned(length));
            }
            final long stoppedAt = System.nanoTime();
            final long heapDuring = StoppedReader.heapAfterGc();
            // while the stopped reader holds the queue, an honest peer on the same IA
            final CompletableFuture<Long> honest = StoppedReader.meanwhile(this::honestExchange);
            // what it consumed completes, and the queue refills to its bound, never beyond
            for (int i = 0; i < CONSUMED; i++)
            {
                final DatEvent ev = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(i, ev.dto.userCookie);
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
                StoppedReader.post(ep, iov, posted++);
            }
            final long more = posted;
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES,
                assertThrows(DatException.class, () -> StoppedReader.post(ep, iov, more)).type());

            final DatEvent end = next(ep.conn());
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
            assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN), end.toString());
            // the bound counts from when the victim saw the last consumption, a little after it
            assertTrue(ms >= STALL_MS / 2 && ms < STALL_MS + 2000, "broken " + ms + " ms after the peer stopped");

            // every other DTO exactly once, in order, flushed; then nothing more
            for (long c = CONSUMED; c < posted; c++)
            {
                final DatEvent ev = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(c, ev.dto.userCookie, "completions in posting order");
                assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status, ev.toString());
            }
            final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
            assertEquals(DatStatus.QUEUE_EMPTY, ep.req().dequeue(new DatEvent()), "a completion too many");

            // the records the peer had not claimed were taken back: it can deliver none of them
            assertTrue(peer.rx.available() > 0);
            final long at = peer.rx.readIndex();
            final int length = peer.rx.data().get(ValueLayout.JAVA_INT, at + Frame.LENGTH);
            assertFalse(peer.rx.beginDelivery(SpscRing.aligned(length)), "a flushed record could still be delivered");
            final long honestMs = honest.get(30, TimeUnit.SECONDS);
            final long heapAfter = StoppedReader.heapAfterGc();
            StoppedReader.assertNotCopied(heapBefore, heapDuring);
            System.out.println("ShmStoppedReaderTest: " + StoppedReader.summary("the peer stopped", ms, honestMs,
                heapBefore, heapDuring, heapAfter));
        }
    }

    /**
     * A Send of one record completed once written into the ring ({@code complete_written=true}),
     * so nothing of the endpoint's waits for the peer; the record does, and a peer that never
     * reads it breaks the connection at the stall bound all the same; the break withdraws
     * nothing the Send reported, so a peer that read again would still deliver it.
     */
    @Test
    void aRecordWrittenByItsPostCountsForTheStallBound() throws Exception
    {
        victim = ShmNode.open(dir, "victim", "complete_written=true stall_ms=" + STALL_MS);
        final EventDispatcher crEvd = victim.evd(8, EvdFlags.CR_FLAG);
        victim.ia.pspCreate(7000, crEvd, PspFlags.CONSUMER_FLAG);
        final ShmNode.Ep ep = victim.ep(new EpAttr());
        final Lmr mem = victim.lmr(64);
        try (Hostile peer = Hostile.request(dir.resolve("victim"), 7000, f ->
        {
        }))
        {
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
            peer.establish();
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, 1, 0);
            // complete once written, by its post or by a round (whichever found the port's
            // progress lock free), though the peer reads nothing
            final DatEvent sent = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, sent.dto.status, sent.toString());
            final long postedAt = System.nanoTime();
            final DatEvent end = next(ep.conn());
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - postedAt);
            assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN), end.toString());
            assertTrue(ms >= STALL_MS / 2 && ms < STALL_MS + 2000, "broken " + ms + " ms after the post");
            assertTrue(peer.rx.available() > 0, "the record is still in the ring");
            // and it stays there for the peer: the break took back nothing the Send reported
            final int length = peer.rx.data().get(ValueLayout.JAVA_INT, peer.rx.readIndex() + Frame.LENGTH);
            assertTrue(peer.rx.beginDelivery(SpscRing.aligned(length)), "a completed Send's record was taken back");
        }
    }

    /**
     * Connects a second endpoint of the victim's IA to a peer of its own and Sends 64 bytes: the
     * milliseconds from {@code dat_ep_connect} to the peer's receive completion.
     */
    private long honestExchange()
    {
        try (ShmNode other = ShmNode.open(dir, "other", ""))
        {
            final long t0 = System.nanoTime();
            final ShmNode.Ep[] pair = ShmNode.connect(victim, other, 7001);
            pair[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(other.lmr(64), 0, 64)}, 1, 0);
            pair[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(victim.lmr(64), 0, 64)}, 1, 0);
            final DatEvent r = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, r.dto.status, r.toString());
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        }
    }
}

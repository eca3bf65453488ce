package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.jdat.tcp.Mpa;
import io.jdat.testkit.StoppedReader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A connected peer that stops reading its socket (its kernel still acknowledges and advertises a
 * shut window): Sends and RDMA Writes posted towards it fill the kernels' buffers and then wait in
 * the endpoint's request queue, a post beyond {@code max_request_dtos} is refused with
 * DAT_INSUFFICIENT_RESOURCES, and the connection breaks once the send made no progress for
 * {@code liveness_ms}; every posted DTO completes exactly once, in posting order: those the kernel
 * took with success, the others flushed. Meanwhile a second endpoint of the same IA connects to an
 * honest peer and Sends.
 */
class TcpStoppedReaderTest
{
    private static final int QUEUE = 64;
    private static final int SIZE = 256 << 10;
    private static final long LIVENESS_MS = 2000;

    @Test
    void postsAreBoundedByTheRequestQueueAndTheConnectionBreaksAtTheLivenessBound() throws Exception
    {
        try (TcpNode node = TcpNode.open("liveness_ms=" + LIVENESS_MS))
        {
            final EventDispatcher crEvd = node.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final EpAttr attr = new EpAttr();
            attr.maxRequestDtos = QUEUE;
            final TcpNode.Ep ep = node.ep(attr);
            final Lmr mem = node.lmr(SIZE);
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, 900, 0);
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(mem, 0, 64)}, 901, 0);
            try (RawPeer raw = RawPeer.connect(psp.connQual()))
            {
                raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(4, 4), null));
                next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
                next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                raw.readFrame(false);
                // the initiator speaks first; from here on it reads nothing
                raw.send(RawMessage.send(1, new byte[8]));
                assertEquals(DtoStatus.SUCCESS, next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT).dto.status);

                final LmrTriplet[] iov = {LmrTriplet.of(mem, 0, SIZE)};
                final DatEvent ev = new DatEvent();
                final long heapBefore = StoppedReader.heapAfterGc();
                long heapDuring = 0;
                long posted = 0;
                long done = 0;
                long ok = 0;
                long lastOkAt = System.nanoTime();
                boolean refusedFull = false;
                long flushedFirst = -1;
                CompletableFuture<Long> honest = null;
                final long start = System.nanoTime();
                while (done < posted || posted == 0)
                {
                    // keep the request queue full while the connection lasts: posting goes on
                    // until the engine refuses, which it does only with the queue full (completions
                    // not dequeued yet have left it); once the peer's window is shut, at exactly
                    // max_request_dtos outstanding
                    while (flushedFirst < 0)
                    {
                        try
                        {
                            StoppedReader.post(ep, iov, posted);
                        }
                        catch (final DatException e)
                        {
                            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type(), e.toString());
                            assertTrue(posted - done >= QUEUE, "refused with " + (posted - done) + " outstanding");
                            refusedFull |= posted - done == QUEUE;
                            break;
                        }
                        posted++;
                    }
                    if (refusedFull && honest == null)
                    {
                        heapDuring = StoppedReader.heapAfterGc();
                        // while the stopped reader holds the queue, an honest peer on the same IA
                        honest = StoppedReader.meanwhile(() -> honestExchange(node));
                    }
                    final DatStatus s = ep.req().wait(LIVENESS_MS * 3 * 1000, 1, ev, new DatCount());
                    assertEquals(DatStatus.SUCCESS, s, "a posted DTO never completed");
                    assertEquals(done, ev.dto.userCookie, "each DTO once, in posting order");
                    done++;
                    if (ev.dto.status == DtoStatus.SUCCESS)
                    {
                        assertTrue(flushedFirst < 0, "a success after a flush: " + ev);
                        ok++;
                        lastOkAt = System.nanoTime();
                    }
                    else
                    {
                        assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status, ev.toString());
                        if (flushedFirst < 0)
                        {
                            flushedFirst = System.nanoTime();
                        }
                    }
                    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the stream took too long");
                }
                assertTrue(refusedFull, "no post was refused with exactly the queue outstanding");
                assertTrue(flushedFirst > 0, "nothing was flushed: " + ok + " of " + posted + " sent");
                assertTrue(ok < posted - QUEUE / 2, "the kernels took almost everything: " + ok + " of " + posted);
                final DatEvent end = next(ep.conn());
                assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN), end.toString());
                // the bound counts from the last bytes the kernel took, which may follow the last
                // message it took whole; this thread may dequeue that message's completion late
                // (under load, by a second), so only half the bound is a safe lower limit
                final long ms = TimeUnit.NANOSECONDS.toMillis(flushedFirst - lastOkAt);
                assertTrue(ms >= LIVENESS_MS / 2 && ms < LIVENESS_MS + 3000, "broken " + ms + " ms after the "
                    + "last completion");
                assertEquals(DatStatus.QUEUE_EMPTY, ep.req().dequeue(new DatEvent()), "a completion too many");
                final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
                assertEquals(901, recv.dto.userCookie);
                final long honestMs = honest.get(30, TimeUnit.SECONDS);
                final long heapAfter = StoppedReader.heapAfterGc();
                // 64 of 256 KiB copied would be 16 MiB
                StoppedReader.assertNotCopied(heapBefore, heapDuring);
                System.out.println("TcpStoppedReaderTest: " + StoppedReader.summary("the last completion", ms,
                    honestMs, heapBefore, heapDuring, heapAfter));
            }
        }
    }

    /**
     * Connects a second endpoint of {@code node} to a peer of its own and Sends 64 bytes: the
     * milliseconds from {@code dat_ep_connect} to the peer's receive completion.
     */
    private static long honestExchange(final TcpNode node)
    {
        try (TcpNode other = TcpNode.open())
        {
            final EventDispatcher crEvd = other.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = other.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep server = other.ep(null);
            server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(other.lmr(64), 0, 64)}, 1, 0);
            final TcpNode.Ep client = node.ep(null);
            final Lmr msg = node.lmr(64);
            final long t0 = System.nanoTime();
            client.ep().connect(other.address, psp.connQual(), 10 * TcpNode.SECOND, null, Qos.BEST_EFFORT, 0);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(server.ep(), null);
            next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(msg, 0, 64)}, 1, 0);
            final DatEvent r = next(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, r.dto.status, r.toString());
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        }
    }
}

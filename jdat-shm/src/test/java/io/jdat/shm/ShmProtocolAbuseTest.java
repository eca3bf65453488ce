package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EpParam;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Protocol abuse from a connected peer, in the rings: more RDMA Read Requests in flight than the
 * IRD granted, a Send longer than the posted receive, a Send with no receive posted, an MSN from
 * the future, and a Terminate in the middle of a message. Each ends as on tcp: the Terminate the
 * RFCs name (RFC 5040 §6.1 and §7, RFC 5041 §7; none in answer to the peer's own), the victim's
 * CONNECTION_EVENT_BROKEN, the DTOs' error or flush statuses, and no byte placed that the abuse
 * carried.
 */
class ShmProtocolAbuseTest
{
    private static final int RECV = 4096;
    private static final int MEM = 4 * RECV;
    private static final byte UNTOUCHED = (byte) 0xEE;

    private Path dir;
    private ShmNode victim;
    private EventDispatcher crEvd;
    private ShmNode.Ep ep;
    private Lmr lmr;

    @BeforeEach
    void victim()
    {
        dir = TestFiles.freshDir();
        victim = ShmNode.open(dir, "victim", "ring_size=65536");
        crEvd = victim.evd(8, EvdFlags.CR_FLAG);
        victim.ia.pspCreate(7000, crEvd, PspFlags.CONSUMER_FLAG);
        ep = victim.ep(null);
        lmr = victim.lmr(MEM);
        lmr.memory().fill(UNTOUCHED);
    }

    @AfterEach
    void clean()
    {
        victim.close();
        TestFiles.delete(dir);
    }

    private Hostile connected() throws InterruptedException
    {
        final Hostile h = Hostile.request(dir.resolve("victim"), 7000, f ->
        {
        });
        next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
        h.establish();
        next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return h;
    }

    private void postRecv(final long cookie, final long at)
    {
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, at, RECV)}, cookie, 0);
    }

    private static void send(final Hostile h, final int msn, final int mo, final boolean last, final int length)
    {
        final byte[] payload = new byte[length];
        Arrays.fill(payload, (byte) 0x42);
        h.record(RdmapOpcode.SEND, last ? Frame.FLAG_LAST : 0, msn, 0, mo, 0, payload);
    }

    /** The victim's Terminate, after the Read Responses it wrote before (consumed here); waits up to 5 s. */
    private static TerminateInfo terminate(final Hostile h) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            if (h.rx.available() == 0)
            {
                Hostile.pause();
                continue;
            }
            final long at = h.rx.readIndex();
            final int type = Frame.typeAt(h.rx.data(), at);
            final int size = SpscRing.aligned(h.rx.data().get(ValueLayout.JAVA_INT, at + Frame.LENGTH));
            if (type == RdmapOpcode.TERMINATE)
            {
                return Frame.terminateInfo(h.rx.data(), at);
            }
            if (type == Frame.PAD)
            {
                h.rx.consume(h.rx.toEnd());
                continue;
            }
            assertEquals(RdmapOpcode.RDMA_READ_RESPONSE, type, "only Read Responses before the Terminate");
            assertTrue(h.rx.beginDelivery(size));
            h.rx.consume(size);
        }
        throw new AssertionError("no Terminate within 5 s");
    }

    private static void assertUntagged(final TerminateInfo t, final int code, final int queue, final int msn)
    {
        assertEquals(TerminateCodes.LAYER_DDP, t.layer(), t.toString());
        assertEquals(TerminateCodes.DDP_UNTAGGED_BUFFER, t.etype(), t.toString());
        assertEquals(code, t.code(), t.toString());
        assertEquals(queue, t.queue(), t.toString());
        assertEquals(msn, t.msn(), t.toString());
    }

    private DatEvent nextRecv(final long cookie)
    {
        final DatEvent ev = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(cookie, ev.dto.userCookie, ev.toString());
        return ev;
    }

    /** No byte of the victim's memory from {@code from} on changed. */
    private void untouchedFrom(final long from)
    {
        final byte[] now = lmr.memory().asSlice(from).toArray(ValueLayout.JAVA_BYTE);
        final byte[] before = new byte[now.length];
        Arrays.fill(before, UNTOUCHED);
        assertEquals(-1, Arrays.mismatch(before, now), "a byte changed at " + (from + Arrays.mismatch(before, now)));
    }

    @Test
    void moreReadRequestsThanTheIrdGrantedEarnANoBufferTerminateOnQueueOne() throws Exception
    {
        try (Hostile h = connected())
        {
            postRecv(7, 0);
            final EpParam p = new EpParam();
            ep.ep().query(EpParam.FIELD_ALL, p);
            final int ird = p.epAttr.maxRdmaReadIn;
            assertTrue(ird >= 1, p.toString());
            // IRD + 1 Requests; the peer consumes no Response before the last Request, so all are in flight
            for (int msn = 1; msn <= ird + 1; msn++)
            {
                final long at = h.tx.claim(Frame.HEADER);
                Frame.header(h.tx.data(), at, RdmapOpcode.RDMA_READ_REQUEST, Frame.FLAG_LAST);
                Frame.readRequest(h.tx.data(), at, msn, 0x77, 0, RECV, lmr.rmrContext(), lmr.registeredAddress());
                h.tx.commit();
            }
            // the peer reads nothing until the victim broke: a Response consumed earlier would
            // return its credit before the last Request is seen
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            assertUntagged(terminate(h), TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, 1, ird + 1);
            assertEquals(DtoStatus.ERR_FLUSHED, nextRecv(7).dto.status);
            untouchedFrom(0);
        }
    }

    @Test
    void aSendLongerThanThePostedReceiveIsTooLongAndPlacesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            postRecv(7, 0);
            postRecv(8, RECV);
            send(h, 1, 0, true, RECV + 1);
            assertUntagged(terminate(h), TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG, 0, 1);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(DtoStatus.ERR_LOCAL_LENGTH, nextRecv(7).dto.status);
            assertEquals(DtoStatus.ERR_FLUSHED, nextRecv(8).dto.status);
            untouchedFrom(0);
        }
    }

    @Test
    void aSendWithNoReceivePostedEarnsANoBufferTerminate() throws Exception
    {
        try (Hostile h = connected())
        {
            send(h, 1, 0, true, 100);
            assertUntagged(terminate(h), TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, 0, 1);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            untouchedFrom(0);
        }
    }

    @Test
    void anMsnFromTheFutureIsOutOfRangeAndPlacesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            postRecv(7, 0);
            postRecv(8, RECV);
            send(h, 1, 0, true, 100);
            assertEquals(DtoStatus.SUCCESS, nextRecv(7).dto.status);
            // MSN 2 is next; 5 skips three messages that never came
            send(h, 5, 0, true, 100);
            assertUntagged(terminate(h), TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, 0, 5);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(DtoStatus.ERR_FLUSHED, nextRecv(8).dto.status);
            untouchedFrom(100);
        }
    }

    @Test
    void aTerminateInTheMiddleOfASendBreaksTheConnectionWithoutAnAnswer() throws Exception
    {
        try (Hostile h = connected())
        {
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, MEM)}, 7, 0);
            // the first segment of a Send, then the peer's Terminate
            send(h, 1, 0, false, 1000);
            final long at = h.tx.claim(Frame.HEADER);
            Frame.header(h.tx.data(), at, RdmapOpcode.TERMINATE, Frame.FLAG_LAST);
            Frame.terminate(h.tx.data(), at, TerminateInfo.of(TerminateCodes.LAYER_RDMAP,
                TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_CATASTROPHIC_STREAM));
            h.tx.commit();
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent recv = nextRecv(7);
            assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, "half a Send never completes: " + recv);
            // a Terminate is not answered with one (RFC 5040 §7.2)
            assertEquals(-1, h.awaitVictimRecord(), "the victim wrote a record after the peer's Terminate");
            untouchedFrom(1000);
        }
    }
}

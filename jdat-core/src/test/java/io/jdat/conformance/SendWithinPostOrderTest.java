package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A Send that the poster places at once completes in posting order behind a request still
 * outstanding. The queue skips its ring only for a Send placed while nothing is outstanding; here
 * an RDMA Read is: its Read Response waits behind a delivery the peer's other thread is held in
 * ({@link StalledDelivery}), while the loopback channel lets the poster place its Send into the
 * peer at once. The Send is placed, but its completion must wait for the Read's.
 */
class SendWithinPostOrderTest
{
    private static final int LEN = 64;

    private static LmrTriplet[] iov(final Lmr lmr, final long offset, final long length)
    {
        return new LmrTriplet[] {LmrTriplet.of(lmr, offset, length)};
    }

    private static DatEvent dto(final EventDispatcher evd, final long cookie, final DtoStatus status)
    {
        final DatEvent ev = Connecting.event(evd, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(cookie, ev.dto.userCookie, ev::toString);
        assertEquals(status, ev.dto.status, ev::toString);
        return ev;
    }

    @Test
    void aSendPlacedInItsPostCompletesAfterAnOutstandingRead()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final EventDispatcher recv = s.recvEvd(f);
            final EventDispatcher req = f.evd(256, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
            final EventDispatcher conn = f.evd(16, EvdFlags.CONNECTION_FLAG);
            final Fixture.Ep a = new Fixture.Ep(f.ia.epCreate(f.pz, recv, req, conn, null), recv, req, conn);
            final Fixture.Ep b = f.ep(null);
            EpTest.connect(f, a, b);
            final Lmr lmr = f.lmr(8 * LEN);
            final Lmr src = f.lmr(LEN);
            src.memory().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            a.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 200, 0);
            // b's thread delivers its Send into a, and a's CNO holds it there: b's queue stays
            // with that thread
            s.stall(() -> b.ep().postSend(1, iov(lmr, 2 * LEN, 8), 1, 0));
            // the Read Request reaches b; its Response waits in b's queue behind the held thread
            a.ep().postRdmaRead(1, iov(lmr, 3 * LEN, 8),
                2, new RmrTriplet(src.rmrContext(), src.registeredAddress(), 8), 0);
            // nothing is queued at a's end: the Send is placed into b at once, within the post
            a.ep().postSend(1, iov(lmr, 4 * LEN, 8), 3, 0);
            dto(b.recv(), 200, DtoStatus.SUCCESS);
            // but the Read before it has not completed, so neither has the Send
            assertEmpty(a.req());
            s.release();
            dto(a.req(), 2, DtoStatus.SUCCESS);
            dto(a.req(), 3, DtoStatus.SUCCESS);
            assertEquals(0x1122334455667788L, lmr.memory().get(ValueLayout.JAVA_LONG, 3 * LEN));
            dto(a.recv(), 100, DtoStatus.SUCCESS);
            dto(b.req(), 1, DtoStatus.SUCCESS);
        }
    }
}

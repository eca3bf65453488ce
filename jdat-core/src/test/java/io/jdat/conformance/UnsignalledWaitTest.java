package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request stream configured UNSIGNALLED: a Send posted with DAT_COMPLETION_UNSIGNALLED_FLAG is
 * queued on the request EVD but is no notification event, so {@code dat_evd_wait} does not return
 * for it; a signalled Send after it is, and the wait then returns the events in order with nmore
 * counting the rest. On a threadsafe IA and on a {@code nonthreadsafe} one, whose consumer counts
 * its own notifications apart from other producers' (the digest, "Notification vs. arrival").
 */
class UnsignalledWaitTest
{
    private static final int LEN = 64;

    @ParameterizedTest(name = "threadSafe={0}")
    @ValueSource(booleans = {true, false})
    void anUnsignalledCompletionIsQueuedButWakesNoWaiter(final boolean threadSafe)
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("", threadSafe), threadSafe))
        {
            final EpAttr attr = new EpAttr();
            attr.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG;
            final Fixture.Ep[] p = f.connectedPair(attr);
            final Lmr lmr = f.lmr(4 * LEN);
            final LmrTriplet[] src = {LmrTriplet.of(lmr, 0, LEN)};
            p[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, LEN, LEN)}, 11, 0);
            p[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 2 * LEN, LEN)}, 12, 0);

            p[0].ep().postSend(1, src, 1, CompletionFlags.UNSIGNALLED_FLAG);
            Fixture.next(p[1].recv());
            final DatEvent ev = new DatEvent();
            final DatCount nmore = new DatCount(-1);
            assertSame(DatStatus.TIMEOUT_EXPIRED, p[0].req().wait(20_000, 1, ev, nmore),
                "an unsignalled completion is no notification");

            p[0].ep().postSend(1, src, 2, 0);
            Fixture.next(p[1].recv());
            assertSame(DatStatus.SUCCESS, p[0].req().wait(5 * Fixture.SECOND, 1, ev, nmore));
            assertEquals(EventNumber.DTO_COMPLETION_EVENT.value(), ev.eventNumber);
            assertEquals(1, ev.dto.userCookie, "the events in order: the unsignalled one first");
            assertEquals(1, nmore.value);
            assertSame(DatStatus.SUCCESS, p[0].req().dequeue(ev));
            assertEquals(2, ev.dto.userCookie);
            assertSame(DatStatus.TIMEOUT_EXPIRED, p[0].req().wait(20_000, 1, ev, nmore), "nothing left");
        }
    }
}

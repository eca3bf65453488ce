package io.jdat.conformance;

import static io.jdat.conformance.Fixture.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Qos;

/** Steps of connection setup shared by the service point, CR and SRQ tests. */
final class Connecting
{
    private Connecting()
    {
    }

    /** The endpoint's state, as {@code dat_ep_query} reports it. */
    static EpState state(final Endpoint ep)
    {
        final EpParam p = new EpParam();
        ep.query(EpParam.FIELD_EP_STATE, p);
        return p.epState;
    }

    /** {@code dat_ep_connect} to {@code qual} on the fixture's own address, 5 s timeout. */
    static void connect(final Fixture f, final Fixture.Ep ep, final long qual, final byte[] privateData)
    {
        ep.ep().connect(f.address, qual, 5 * SECOND, privateData, Qos.BEST_EFFORT, 0);
    }

    /** The next event of {@code evd}, which must have number {@code n}. */
    static DatEvent event(final EventDispatcher evd, final EventNumber n)
    {
        final DatEvent ev = Fixture.next(evd);
        assertTrue(ev.is(n), () -> "expected " + n + " but got " + ev);
        return ev;
    }

    /** The next connection request on {@code crEvd}. */
    static DatEvent request(final EventDispatcher crEvd)
    {
        return event(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
    }

    /** The next connection event of an endpoint's connect EVD, which must be {@code n} for that endpoint. */
    static DatEvent connection(final Fixture.Ep ep, final EventNumber n)
    {
        final DatEvent ev = event(ep.conn(), n);
        assertSame(ep.ep(), ev.connection.epHandle);
        return ev;
    }

    /** Asserts that nothing is queued on {@code evd}. */
    static void assertEmpty(final EventDispatcher evd)
    {
        assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(new DatEvent()), "no event expected");
    }
}

package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.NamedAttr;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A connect storm: {@value #STORM} connection requests at once to a PSP whose consumer does not
 * dequeue. Its CR EVD holds what it can hold and no more; every other request is refused at once
 * (its initiator sees DAT_CONNECTION_EVENT_NON_PEER_REJECTED), the IA counts them (vendor attribute
 * {@code jdat.cr_refused}), nothing overflows (no async event, the CR EVD still waits and
 * dequeues), the queued requests are accepted and established, and the next connect is served
 * at once. On every provider.
 */
class ConnectStormTest
{
    private static final long SECOND = 1_000_000L;
    private static final int STORM = 100;
    private static final int CR_QLEN = 8;

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void requestsBeyondTheCrEvdAreRefusedCountedAndNothingOverflows(final String provider)
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        final InterfaceAdapter ia = Dat.iaOpen(provider, 64, async);
        try
        {
            final ProtectionZone pz = ia.pzCreate();
            final EventDispatcher crEvd = ia.evdCreate(CR_QLEN, null, EvdFlags.CR_FLAG);
            final EvdParam p = new EvdParam();
            crEvd.query(EvdParam.FIELD_EVD_QLEN, p);
            final int room = p.evdQlen;
            assertTrue(room >= CR_QLEN && room < STORM / 2, "CR EVD queue length " + room);
            final EventDispatcher dto = ia.evdCreate(4 * STORM, null, EvdFlags.DTO_FLAG);
            final EventDispatcher clientConn = ia.evdCreate(2 * STORM, null, EvdFlags.CONNECTION_FLAG);
            final EventDispatcher serverConn = ia.evdCreate(2 * STORM, null, EvdFlags.CONNECTION_FLAG);
            final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final IaAttr attr = new IaAttr();
            ia.query(IaAttr.FIELD_ALL, attr, 0, null);
            final long refusedBefore = refused(ia);

            final List<Endpoint> clients = new ArrayList<>();
            final long start = System.nanoTime();
            for (int i = 0; i < STORM; i++)
            {
                final Endpoint c = ia.epCreate(pz, dto, dto, clientConn, null);
                clients.add(c);
                c.connect(attr.iaAddress, psp.connQual(), 30 * SECOND, null, Qos.BEST_EFFORT,
                    ConnectFlags.DEFAULT_FLAG);
            }
            // every refused initiator hears so at once; the queued ones wait
            final Map<Endpoint, Integer> events = new HashMap<>();
            for (int i = 0; i < STORM - room; i++)
            {
                final DatEvent ev = next(clientConn, 10);
                assertTrue(ev.is(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED), provider + ": " + ev);
                events.merge(ev.connection.epHandle, 1, Integer::sum);
            }
            final long refusedMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(STORM - room, events.size(), "one event per refused initiator");
            assertEquals(STORM - room, refused(ia) - refusedBefore, "jdat.cr_refused counts the refusals");
            assertTrue(quiet(clientConn, 200), "no more refusals than the CR EVD could not hold");
            assertTrue(quiet(async.value, 0), "no overflow or other async event");

            // the CR EVD holds exactly what it can, intact, and they are accepted
            final List<Endpoint> servers = new ArrayList<>();
            for (int i = 0; i < room; i++)
            {
                final DatEvent cr = next(crEvd, 5);
                assertTrue(cr.is(EventNumber.CONNECTION_REQUEST_EVENT), cr.toString());
                final Endpoint s = ia.epCreate(pz, dto, dto, serverConn, null);
                servers.add(s);
                cr.crArrival.crHandle.accept(s, null);
            }
            assertTrue(quiet(crEvd, 200), "nothing queued beyond the CR EVD");
            for (int i = 0; i < room; i++)
            {
                final DatEvent ev = next(clientConn, 10);
                assertTrue(ev.is(EventNumber.CONNECTION_EVENT_ESTABLISHED), provider + ": " + ev);
                assertEquals(null, events.put(ev.connection.epHandle, 1), "an initiator refused and established");
                assertTrue(next(serverConn, 10).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
            }

            // and the next one is served at once
            final Endpoint late = ia.epCreate(pz, dto, dto, clientConn, null);
            final long t = System.nanoTime();
            late.connect(attr.iaAddress, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT_FLAG);
            final DatEvent cr = next(crEvd, 5);
            final Endpoint s = ia.epCreate(pz, dto, dto, serverConn, null);
            cr.crArrival.crHandle.accept(s, null);
            assertTrue(next(clientConn, 5).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
            final long lateMillis = (System.nanoTime() - t) / 1_000_000;
            assertTrue(next(serverConn, 5).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
            assertEquals(STORM - room, refused(ia) - refusedBefore, "no refusal since");
            System.out.printf("STRANGERS connect storm %s: %d requests, CR EVD of %d: %d refused (all heard within"
                + " %d ms), %d established, async EVD empty; the next connect established in %d ms%n", provider,
                STORM, room, STORM - room, refusedMillis, room, lateMillis);
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    private static long refused(final InterfaceAdapter ia)
    {
        final IaAttr a = new IaAttr();
        ia.query(IaAttr.FIELD_ALL, a, 0, null);
        for (final NamedAttr v : a.vendorAttr)
        {
            if (v.name().equals("jdat.cr_refused"))
            {
                return Long.parseLong(v.value());
            }
        }
        throw new AssertionError("no jdat.cr_refused among the vendor attributes");
    }

    private static DatEvent next(final EventDispatcher evd, final int seconds)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(seconds * SECOND, 1, ev, new DatCount());
        assertEquals(DatStatus.SUCCESS, s, "no event within " + seconds + " s");
        return ev;
    }

    private static boolean quiet(final EventDispatcher evd, final long millis)
    {
        if (millis == 0)
        {
            return evd.dequeue(new DatEvent()) == DatStatus.QUEUE_EMPTY;
        }
        return evd.wait(millis * 1000, 1, new DatEvent(), new DatCount()) == DatStatus.TIMEOUT_EXPIRED;
    }
}

package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.util.concurrent.atomic.AtomicReference;

/** What the engine's stress tests share: a connection made through a PSP, and a thread's first failure kept. */
final class StressRig
{
    /** A second in DAT's microseconds. */
    private static final long SECOND = 1_000_000L;

    private StressRig()
    {
    }

    /**
     * Connects {@code client} to {@code server}, an endpoint of {@code receiving}, through a PSP of
     * {@code receiving}, and waits until {@code serverConn} says ESTABLISHED.
     */
    static void connect(final InterfaceAdapter receiving, final Endpoint client, final Endpoint server,
        final EventDispatcher serverConn)
    {
        final IaAttr a = new IaAttr();
        receiving.query(IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
        final EventDispatcher crEvd = receiving.evdCreate(8, null, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = receiving.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        client.connect(a.iaAddress, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        final DatEvent ev = new DatEvent();
        assertEquals(DatStatus.SUCCESS, crEvd.wait(5 * SECOND, 1, ev, new DatCount()));
        ev.crArrival.crHandle.accept(server, null);
        final DatEvent est = new DatEvent();
        assertEquals(DatStatus.SUCCESS, serverConn.wait(5 * SECOND, 1, est, new DatCount()));
        assertTrue(est.is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
        psp.free();
        crEvd.free();
    }

    /** Runs {@code r}, keeping the first failure of any thread in {@code failed}. */
    static void guard(final AtomicReference<Throwable> failed, final Runnable r)
    {
        try
        {
            r.run();
        }
        catch (final Throwable t)
        {
            failed.compareAndSet(null, t);
        }
    }
}

package io.jdat.tcp.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * DAT calls other than the waits are no interruption points: a consumer whose thread's interrupt
 * status is set creates a PSP, connects, accepts, posts and polls over tcp (whose sockets are
 * non-blocking channels, which an interrupt does not close), and the status is still set after.
 */
class TcpInterruptedCallerTest
{
    @AfterEach
    void clear()
    {
        Thread.interrupted();
    }

    private static <T> T interrupted(final String what, final Supplier<T> call)
    {
        Thread.currentThread().interrupt();
        final T result = call.get();
        assertTrue(Thread.interrupted(), what + " cleared the caller's interrupt status");
        return result;
    }

    @Test
    void aConnectionIsMadeAndUsedFromInterruptedThreads()
    {
        try (TcpNode c = TcpNode.open(); TcpNode s = TcpNode.open())
        {
            final Lmr cm = c.lmr(8192);
            final Lmr sm = s.lmr(8192);
            final EventDispatcher crEvd = s.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = interrupted("dat_psp_create_any",
                () -> s.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG));
            final TcpNode.Ep client = c.ep(null);
            final TcpNode.Ep server = s.ep(null);
            interrupted("dat_ep_connect", () ->
            {
                client.ep().connect(s.address, psp.connQual(), 5 * TcpNode.SECOND, null, Qos.BEST_EFFORT, 0);
                return null;
            });
            final DatEvent cr = interrupted("dat_evd_dequeue", () -> poll(crEvd));
            assertTrue(cr.is(EventNumber.CONNECTION_REQUEST_EVENT), cr.toString());
            interrupted("dat_cr_accept", () ->
            {
                cr.crArrival.crHandle.accept(server.ep(), null);
                return null;
            });
            TcpNode.next(server.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            TcpNode.next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);

            server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 64)}, 2, CompletionFlags.DEFAULT_FLAG);
            cm.memory().asSlice(0, 64).fill((byte) 0x5A);
            interrupted("dat_ep_post_send", () ->
            {
                client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 64)}, 3, CompletionFlags.DEFAULT_FLAG);
                return null;
            });
            final DatEvent recv = interrupted("dat_evd_dequeue", () -> poll(server.recv()));
            assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
            assertEquals(-1, sm.memory().asSlice(0, 64).mismatch(cm.memory().asSlice(0, 64)), "the bytes of the Send");
            final DatEvent sent = interrupted("dat_evd_dequeue", () -> poll(client.req()));
            assertEquals(DtoStatus.SUCCESS, sent.dto.status, sent.toString());
        }
    }

    private static DatEvent poll(final EventDispatcher evd)
    {
        final DatEvent ev = new DatEvent();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (evd.dequeue(ev) != DatStatus.SUCCESS)
        {
            assertTrue(System.nanoTime() < deadline, "nothing within 5 s");
            Thread.onSpinWait();
        }
        return ev;
    }
}

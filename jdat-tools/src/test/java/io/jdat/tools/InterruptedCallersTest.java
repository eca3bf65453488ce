package io.jdat.tools;

import static io.jdat.testkit.ProviderNode.polled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DAT calls other than the waits are no interruption points: a consumer whose thread's interrupt
 * status is set (a cancelled task, an executor shutting down) still creates a PSP, connects,
 * accepts, posts and polls, on every provider, and the status is still set afterwards. The shm
 * provider's file operations are interruptible file channels underneath; before they were made
 * uninterruptible, dat_psp_create there threw a raw UncheckedIOException.
 */
class InterruptedCallersTest
{
    private static final long SECOND = 1_000_000L;

    @AfterEach
    void clear()
    {
        Thread.interrupted();
    }

    /** Runs {@code call} with this thread's interrupt status set, and checks the status survived it. */
    private static <T> T interrupted(final String what, final Supplier<T> call)
    {
        Thread.currentThread().interrupt();
        final T result = call.get();
        assertTrue(Thread.interrupted(), what + " cleared the caller's interrupt status");
        return result;
    }

    private static void interrupted(final String what, final Runnable call)
    {
        interrupted(what, () ->
        {
            call.run();
            return null;
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void aConnectionIsMadeAndUsedFromInterruptedThreads(final String provider)
    {
        final InterfaceAdapter ia = Dat.iaOpen(provider, 64, null);
        try (Arena arena = Arena.ofShared())
        {
            final ProtectionZone pz = ia.pzCreate();
            final Lmr memory = interrupted("dat_lmr_create", () -> ia.lmrCreate(MemType.VIRTUAL,
                RegionDescription.forVa(arena.allocate(8192)), 8192, pz, MemPriv.ALL_FLAG));
            final EventDispatcher crEvd = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
            final EventDispatcher dto = ia.evdCreate(16, null, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            final PublicServicePoint psp = interrupted("dat_psp_create_any",
                () -> ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG));
            final IaAttr attr = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);
            final Endpoint client = ia.epCreate(pz, dto, dto, conn, null);
            final Endpoint server = ia.epCreate(pz, dto, dto, conn, null);
            interrupted("dat_ep_connect", () -> client.connect(attr.iaAddress, psp.connQual(), 5 * SECOND, null,
                Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG));
            // the request arrives while an interrupted consumer polls for it
            final DatEvent cr = interrupted("dat_evd_dequeue", () -> polled(crEvd));
            assertTrue(cr.is(EventNumber.CONNECTION_REQUEST_EVENT), cr.toString());
            server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(memory, 4096, 64)}, 1, CompletionFlags.DEFAULT_FLAG);
            interrupted("dat_cr_accept", () -> cr.crArrival.crHandle.accept(server, null));
            assertTrue(interrupted("dat_evd_dequeue", () -> polled(conn)).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
            assertTrue(interrupted("dat_evd_dequeue", () -> polled(conn)).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));

            memory.memory().asSlice(0, 64).fill((byte) 0x5A);
            interrupted("dat_ep_post_send", () -> client.postSend(1, new LmrTriplet[] {LmrTriplet.of(memory, 0, 64)},
                2, CompletionFlags.DEFAULT_FLAG));
            for (int i = 0; i < 2; i++)
            {
                // the Send's completion and the receive's, in either order
                final DatEvent ev = interrupted("dat_evd_dequeue", () -> polled(dto));
                assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
            }
            assertEquals(-1, memory.memory().asSlice(4096, 64).mismatch(memory.memory().asSlice(0, 64)),
                "the bytes of the Send");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }
}

package io.jdat.shm;

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
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DAT calls other than the waits are no interruption points: a consumer whose thread's interrupt
 * status is set (a cancelled task, an executor shutting down) still creates a PSP, connects,
 * accepts, registers shared memory, posts and polls, and the status is still set afterwards. The
 * shm provider's file operations are interruptible file channels underneath; before they were
 * made uninterruptible, dat_psp_create threw a raw UncheckedIOException (FileLockInterruptionException).
 */
class ShmInterruptedCallerTest
{
    private Path dir;

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void delete()
    {
        Thread.interrupted();
        TestFiles.delete(dir);
    }

    /** Runs {@code call} with this thread's interrupt status set, and checks the status survived it. */
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
        try (ShmNode c = ShmNode.open(dir, "c", ""); ShmNode s = ShmNode.open(dir, "s", "");
            ShmMemory shared = ShmMemory.allocate(dir, 1 << 16))
        {
            final Lmr cm = c.lmr(8192);
            final MemorySegment part = shared.memory().asSlice(0, 8192);
            final Lmr sm = interrupted("dat_lmr_create of shared memory", () -> s.ia.lmrCreate(
                MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(part, shared.cookie()), 8192, s.pz,
                MemPriv.ALL_FLAG));
            final EventDispatcher crEvd = s.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = interrupted("dat_psp_create",
                () -> s.ia.pspCreate(7700, crEvd, PspFlags.CONSUMER_FLAG));
            final ShmNode.Ep client = c.ep(null);
            final ShmNode.Ep server = s.ep(null);
            interrupted("dat_ep_connect", () ->
            {
                client.ep().connect(s.address, 7700, 5 * ShmNode.SECOND, null, Qos.BEST_EFFORT, 0);
                return null;
            });
            // the request arrives while an interrupted consumer polls for it
            final DatEvent cr = interrupted("dat_evd_dequeue", () -> poll(crEvd));
            assertTrue(cr.is(EventNumber.CONNECTION_REQUEST_EVENT), cr.toString());
            interrupted("dat_cr_accept", () ->
            {
                cr.crArrival.crHandle.accept(server.ep(), null);
                return null;
            });
            ShmNode.next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            ShmNode.next(server.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            psp.free();

            server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 64)}, 2, CompletionFlags.DEFAULT_FLAG);
            cm.memory().asSlice(0, 64).fill((byte) 0x5A);
            interrupted("dat_ep_post_send", () ->
            {
                client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 64)}, 3, CompletionFlags.DEFAULT_FLAG);
                return null;
            });
            final DatEvent recv = interrupted("dat_evd_dequeue", () -> poll(server.recv()));
            assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
            assertEquals(64, recv.dto.transferredLength);
            assertEquals(-1, part.asSlice(0, 64).mismatch(cm.memory().asSlice(0, 64)), "the bytes of the Send");
        }
    }

    /** Polls {@code evd} with dat_evd_dequeue for up to 5 s. */
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

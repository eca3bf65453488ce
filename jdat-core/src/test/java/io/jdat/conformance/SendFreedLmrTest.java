package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Send slot remembers the region of its last post, so that a repost of the same buffer skips
 * the STag table (the loopback Send is then placed on the poster's thread). That memory must never
 * outlive the LMR: once {@code dat_lmr_free} returned, a Send naming the freed context fails with a
 * DAT error and copies nothing, also into a slot whose last post used that very LMR, and also
 * when the same memory was registered again under a new context.
 */
class SendFreedLmrTest
{
    private static final int SIZE = 64;

    private Fixture f;
    private Fixture.Ep sender;
    private Fixture.Ep receiver;
    private Lmr sink;

    @BeforeEach
    void connect()
    {
        f = new Fixture();
        final EpAttr attr = new EpAttr();
        // one request slot: every Send reuses slot 0 and its remembered region
        attr.maxRequestDtos = 1;
        final Fixture.Ep[] pair = f.connectedPair(attr);
        sender = pair[0];
        receiver = pair[1];
        sink = f.lmr(SIZE);
    }

    @AfterEach
    void close()
    {
        f.close();
    }

    @Test
    void aSendNamingAFreedLmrFailsAndCopiesNothing()
    {
        final MemorySegment mem = f.memory(SIZE);
        final Lmr source = f.lmr(mem, MemPriv.ALL_FLAG);
        final LmrTriplet[] iov = {LmrTriplet.of(source, 0, SIZE)};
        mem.fill((byte) 1);
        sendAndReceive(iov, (byte) 1);
        sendAndReceive(iov, (byte) 1);

        source.free();
        mem.fill((byte) 2);
        sink.memory().fill((byte) 0);
        receiver.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, SIZE)}, 99, 0);
        refused(() -> sender.ep().postSend(1, iov, 7, 0));
        Connecting.assertEmpty(receiver.recv());
        Connecting.assertEmpty(sender.req());
        assertEquals((byte) 0, sink.memory().get(ValueLayout.JAVA_BYTE, 0), "a freed LMR's bytes were copied");

        // the same memory registered again has a new context; the old one stays dead
        final Lmr again = f.lmr(mem, MemPriv.ALL_FLAG);
        assertTrue(again.lmrContext() != iov[0].lmrContext, "a new registration reused the freed context");
        refused(() -> sender.ep().postSend(1, iov, 8, 0));
        Connecting.assertEmpty(receiver.recv());
        assertEquals((byte) 0, sink.memory().get(ValueLayout.JAVA_BYTE, 0), "a freed context's bytes were copied");

        // the receive posted above takes the Send of the new registration
        sender.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(again, 0, SIZE)}, 9, 0);
        final DatEvent recv = Fixture.next(receiver.recv());
        assertEquals(DtoStatus.SUCCESS, recv.dto.status);
        assertEquals(99, recv.dto.userCookie);
        assertEquals((byte) 2, sink.memory().get(ValueLayout.JAVA_BYTE, SIZE - 1));
        assertEquals(DtoStatus.SUCCESS, Fixture.next(sender.req()).dto.status);
    }

    private void sendAndReceive(final LmrTriplet[] iov, final byte expected)
    {
        sink.memory().fill((byte) 0);
        receiver.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, SIZE)}, 1, 0);
        sender.ep().postSend(1, iov, 2, 0);
        assertEquals(DtoStatus.SUCCESS, Fixture.next(receiver.recv()).dto.status);
        assertEquals(DtoStatus.SUCCESS, Fixture.next(sender.req()).dto.status);
        assertEquals(expected, sink.memory().get(ValueLayout.JAVA_BYTE, SIZE - 1));
    }

    /** A post naming a dead context: a handle, protection or privileges error, nothing else. */
    private static void refused(final Runnable post)
    {
        try
        {
            post.run();
        }
        catch (final DatException e)
        {
            final DatReturnType t = e.type();
            assertTrue(t == DatReturnType.INVALID_HANDLE || t == DatReturnType.PROTECTION_VIOLATION
                || t == DatReturnType.PRIVILEGES_VIOLATION, () -> "wrong error: " + e.getMessage());
            return;
        }
        throw new AssertionError("a Send naming a freed LMR was accepted");
    }
}

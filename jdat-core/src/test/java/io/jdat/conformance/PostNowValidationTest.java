package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.ProtectionZone;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Send of one segment posted to an idle request queue is validated and placed on the poster's
 * thread before anything is written into its request slot. Every DAT check of the general path
 * holds there too, right after a good Send from the same slot (whose region the slot keeps as its
 * first guess): the zone, the local read right, the bounds, {@code max_message_size}; a refused
 * Send places nothing, and the receive it would have taken is the next good Send's, with the
 * bytes of exactly the segment named (its offset in the LMR is what the placement copies from).
 */
class PostNowValidationTest
{
    private static final int SIZE = 64;

    private Fixture f;
    private Fixture.Ep sender;
    private Fixture.Ep receiver;
    private MemorySegment mem;
    private Lmr source;
    private Lmr sink;

    @BeforeEach
    void connect()
    {
        f = new Fixture();
        final EpAttr attr = new EpAttr();
        attr.maxRequestDtos = 1;
        attr.maxMessageSize = 2 * SIZE;
        final Fixture.Ep[] pair = f.connectedPair(attr);
        sender = pair[0];
        receiver = pair[1];
        mem = f.memory(8 * SIZE);
        for (int i = 0; i < 8 * SIZE; i++)
        {
            mem.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        source = f.lmr(mem, MemPriv.LOCAL_READ_FLAG);
        sink = f.lmr(4 * SIZE);
    }

    @AfterEach
    void close()
    {
        f.close();
    }

    /** Posts one receive of 3 * SIZE, sends {@code len} bytes from {@code off} of the source; checks them. */
    private void sendAndCheck(final long off, final int len, final long cookie)
    {
        receiver.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, 3 * SIZE)}, cookie, 0);
        sender.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(source, off, len)}, cookie, 0);
        final DatEvent ev = Fixture.next(receiver.recv());
        assertEquals(DtoStatus.SUCCESS, ev.dto.status);
        assertEquals(cookie, ev.dto.userCookie);
        assertEquals(len, ev.dto.transferredLength);
        for (int i = 0; i < len; i++)
        {
            assertEquals((byte) (off + i), sink.memory().get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
        assertEquals(DtoStatus.SUCCESS, Fixture.next(sender.req()).dto.status);
    }

    /** The receive posted before {@code refused} is still there: the next good Send lands in it. */
    private void refusedPlacesNothing(final Runnable refused)
    {
        receiver.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, 3 * SIZE)}, 77, 0);
        refused.run();
        assertEquals(DatStatus.QUEUE_EMPTY, receiver.recv().dequeue(new DatEvent()));
        sender.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(source, 5, SIZE)}, 78, 0);
        final DatEvent ev = Fixture.next(receiver.recv());
        assertEquals(77, ev.dto.userCookie);
        assertEquals(SIZE, ev.dto.transferredLength);
        assertEquals((byte) 5, sink.memory().get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(78, Fixture.next(sender.req()).dto.userCookie);
    }

    @Test
    void eachSendCopiesTheSegmentItNames()
    {
        // a source with the local read right alone is enough for a Send
        sendAndCheck(0, SIZE, 1);
        sendAndCheck(3, SIZE, 2);
        sendAndCheck(7 * SIZE, SIZE, 3);
        sendAndCheck(SIZE + 1, 2 * SIZE, 4);
        sendAndCheck(100, 1, 5);
    }

    @Test
    void anLmrOfAnotherZoneIsAProtectionViolation()
    {
        sendAndCheck(0, SIZE, 1);
        final ProtectionZone other = f.ia.pzCreate();
        final Lmr foreign = f.ia.lmrCreate(io.jdat.MemType.VIRTUAL, io.jdat.RegionDescription.forVa(mem),
            mem.byteSize(), other, MemPriv.ALL_FLAG);
        refusedPlacesNothing(() -> assertEquals(DatReturnSubtype.PROTECTION_READ,
            Fixture.expect(DatReturnType.PROTECTION_VIOLATION, () -> sender.ep().postSend(1,
                new LmrTriplet[] {LmrTriplet.of(foreign, 0, SIZE)}, 9, 0)).subtype()));
        foreign.free();
        other.free();
    }

    @Test
    void anLmrWithoutLocalReadIsAPrivilegesViolation()
    {
        sendAndCheck(0, SIZE, 1);
        final Lmr writeOnly = f.lmr(f.memory(SIZE), MemPriv.LOCAL_WRITE_FLAG);
        refusedPlacesNothing(() -> assertEquals(DatReturnSubtype.PRIVILEGES_READ,
            Fixture.expect(DatReturnType.PRIVILEGES_VIOLATION, () -> sender.ep().postSend(1,
                new LmrTriplet[] {LmrTriplet.of(writeOnly, 0, SIZE)}, 9, 0)).subtype()));
    }

    @Test
    void aSegmentOutsideItsLmrIsAnInvalidParameter()
    {
        sendAndCheck(0, SIZE, 1);
        // the same LMR as the slot's last post: its region is the slot's first guess
        refusedPlacesNothing(() -> Fixture.expect(DatReturnType.INVALID_PARAMETER, () -> sender.ep().postSend(1,
            new LmrTriplet[] {LmrTriplet.of(source, 7 * SIZE + 1, SIZE)}, 9, 0)));
        refusedPlacesNothing(() -> Fixture.expect(DatReturnType.INVALID_PARAMETER, () -> sender.ep().postSend(1,
            new LmrTriplet[] {new LmrTriplet(source.lmrContext(), source.registeredAddress() - 1, SIZE)}, 9, 0)));
    }

    @Test
    void aSendOverMaxMessageSizeIsAnInvalidParameter()
    {
        sendAndCheck(0, SIZE, 1);
        refusedPlacesNothing(() -> Fixture.expect(DatReturnType.INVALID_PARAMETER, () -> sender.ep().postSend(1,
            new LmrTriplet[] {LmrTriplet.of(source, 0, 2 * SIZE + 1)}, 9, 0)));
    }
}

package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Dat;
import io.jdat.DatOut;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A receive slot holds its first segment in its own fields and the others in arrays
 * ({@link Segments}): every segment reads back as posted, wherever it lives, through a refill of
 * the same slot with other regions, a copy into another slot (a ring's regrow, an SRQ handing a
 * buffer on) and the scatter of a message across all of them.
 */
class RecvSlotLayoutTest
{
    private InterfaceAdapter ia;
    private Arena arena;
    private PzImpl pz;
    private final Lmr[] lmrs = new Lmr[3];

    @BeforeEach
    void open()
    {
        ia = Dat.iaOpen("loopback", 64, new DatOut<EventDispatcher>());
        arena = Arena.ofShared();
        pz = (PzImpl) ia.pzCreate();
        for (int i = 0; i < lmrs.length; i++)
        {
            final MemorySegment m = arena.allocate(256, 64);
            lmrs[i] = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz, MemPriv.ALL_FLAG);
        }
    }

    @AfterEach
    void close()
    {
        ia.close(io.jdat.CloseFlags.ABRUPT_FLAG);
        arena.close();
    }

    private MemoryTable table()
    {
        return ((IaImpl) ia).memory;
    }

    private void fill(final Segments s, final LmrTriplet... iov)
    {
        s.fill(table(), iov.length, iov, s.capacity(), pz, true, 3);
    }

    /** Checks segment {@code i} of {@code s} against the LMR and range it was posted with. */
    private void assertSegment(final Segments s, final int i, final Lmr lmr, final long offset, final long length)
    {
        assertEquals(lmr.lmrContext(), s.region(i).stag, "segment " + i + "'s region");
        assertEquals(offset, s.offset(i), "segment " + i + "'s offset");
        assertEquals(length, s.length(i), "segment " + i + "'s length");
    }

    @Test
    void everySegmentReadsBackAsPostedThroughRefillsOfTheSameSlot()
    {
        final RecvBuffer b = new RecvBuffer(4);
        assertEquals(4, b.capacity());
        fill(b, LmrTriplet.of(lmrs[0], 8, 16), LmrTriplet.of(lmrs[1], 0, 0), LmrTriplet.of(lmrs[1], 32, 24),
            LmrTriplet.of(lmrs[2], 100, 50));
        // the empty triplet is dropped
        assertEquals(3, b.count);
        assertEquals(90, b.total);
        assertSegment(b, 0, lmrs[0], 8, 16);
        assertSegment(b, 1, lmrs[1], 32, 24);
        assertSegment(b, 2, lmrs[2], 100, 50);

        // the same slot again, each position with another region than last time
        b.clear();
        fill(b, LmrTriplet.of(lmrs[2], 1, 2), LmrTriplet.of(lmrs[0], 3, 4));
        assertEquals(2, b.count);
        assertEquals(6, b.total);
        assertSegment(b, 0, lmrs[2], 1, 2);
        assertSegment(b, 1, lmrs[0], 3, 4);
    }

    @Test
    void aSlotOfOneSegmentNeedsNoArraysAndRefusesASecond()
    {
        final RecvBuffer b = new RecvBuffer(1);
        assertEquals(1, b.capacity());
        fill(b, LmrTriplet.of(lmrs[1], 64, 64));
        assertEquals(1, b.count);
        assertSegment(b, 0, lmrs[1], 64, 64);
        final io.jdat.DatException e = org.junit.jupiter.api.Assertions.assertThrows(io.jdat.DatException.class,
            () -> b.fill(table(), 2, new LmrTriplet[] {LmrTriplet.of(lmrs[0], 0, 8), LmrTriplet.of(lmrs[0], 8, 8)},
                1, pz, true, 3));
        assertEquals(io.jdat.DatReturnType.INVALID_PARAMETER, e.type());
    }

    @Test
    void aCopyTakesEverySegmentCookieAndFlags()
    {
        final RecvBuffer from = new RecvBuffer(3);
        fill(from, LmrTriplet.of(lmrs[1], 4, 12), LmrTriplet.of(lmrs[2], 40, 20), LmrTriplet.of(lmrs[0], 0, 1));
        from.cookie(77);
        from.flags = 5;
        final RecvBuffer to = new RecvBuffer(3);
        // what the copy must replace: another post's segments in the target
        fill(to, LmrTriplet.of(lmrs[0], 200, 56), LmrTriplet.of(lmrs[0], 0, 8));
        to.copyFrom(from);
        assertEquals(3, to.count);
        assertEquals(33, to.total);
        assertEquals(77, to.cookie());
        assertEquals(5, to.flags);
        assertSegment(to, 0, lmrs[1], 4, 12);
        assertSegment(to, 1, lmrs[2], 40, 20);
        assertSegment(to, 2, lmrs[0], 0, 1);
    }

    @Test
    void aScatterFillsTheInlineSegmentAndThoseInTheArraysInOrder()
    {
        final RecvBuffer b = new RecvBuffer(3);
        fill(b, LmrTriplet.of(lmrs[2], 10, 3), LmrTriplet.of(lmrs[0], 20, 4), LmrTriplet.of(lmrs[1], 30, 5));
        final MemorySegment src = arena.allocate(12);
        for (int i = 0; i < 12; i++)
        {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
        }
        // from byte 1 of the list: 2 bytes into the first segment, 4 into the second, 5 into the third
        assertTrue(b.scatter(1, src, 0, 11));
        assertBytes(lmrs[2], 10, 0, 1, 2);
        assertBytes(lmrs[0], 20, 3, 4, 5, 6);
        assertBytes(lmrs[1], 30, 7, 8, 9, 10, 11);
        // one byte too many does not fit
        assertFalse(b.scatter(0, src, 0, 13));
        assertSame(((IaImpl) ia).memory.lookup(lmrs[2].lmrContext()), b.region(0));
    }

    private static void assertBytes(final Lmr lmr, final long at, final int... expected)
    {
        for (int i = 0; i < expected.length; i++)
        {
            assertEquals((byte) expected[i], lmr.memory().get(ValueLayout.JAVA_BYTE, at + i),
                "byte " + (at + i) + " of LMR 0x" + Integer.toHexString(lmr.lmrContext()));
        }
    }
}

package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A completion in a direct-mode receive ring ({@link RecvRing#placeDirect}) writes one line of the
 * ring's slot array, wherever the collector puts the array: a {@code long[]} lies at any 8-byte
 * boundary, so the words each completion changes are found by watching the array, and every one of
 * the eight placements in a 64-byte line is checked. The completion word keeps every length and
 * tells its lap from the next.
 */
class RecvCompletionLayoutTest
{
    private static final int LINE = 64;
    /** Where an array's data starts: after its 16-byte header. */
    private static final int HEADER = 16;

    /** The indices of {@code after} that differ from {@code before}. */
    private static List<Integer> changed(final long[] before, final long[] after)
    {
        final List<Integer> c = new ArrayList<>();
        for (int i = 0; i < after.length; i++)
        {
            if (before[i] != after[i])
            {
                c.add(i);
            }
        }
        return c;
    }

    @Test
    void everyCompletionWritesOneLineInEveryPlacement()
    {
        final int capacity = 8;
        final RecvRing r = RecvRing.direct(capacity, 1, false);
        final List<String> straddled = new ArrayList<>();
        final DatEvent e = new DatEvent();
        // two laps of every slot: each slot completed after a post, its words watched
        for (long p = 0; p < 4L * capacity; p++)
        {
            assertEquals(p, r.claim());
            final RecvBuffer b = r.slot(p);
            b.setCookieAndFlags(p, 0);
            r.publish(p);
            final long[] before = b.lines().clone();
            assertEquals(p, r.placeDirect(b, 64));
            final List<Integer> words = changed(before, b.lines());
            assertFalse(words.isEmpty(), "the completion of " + p + " wrote nothing");
            for (long placement = 0; placement < LINE; placement += Long.BYTES)
            {
                final long first = (placement + HEADER + (long) words.getFirst() * Long.BYTES) / LINE;
                final long last = (placement + HEADER + (long) words.getLast() * Long.BYTES + Long.BYTES - 1) / LINE;
                if (first != last)
                {
                    straddled.add("position " + p + " (words " + words + ") at placement " + placement);
                }
            }
            assertEquals(p, r.takeDirect(e, null, null));
        }
        assertEquals(List.of(), straddled, "completions written across two lines");
    }

    @Test
    void theCompletionWordKeepsEveryLengthAndItsLap()
    {
        final RecvRing r = RecvRing.direct(4, 1, false);
        final DatEvent e = new DatEvent();
        final long[] lengths = {0, 1, 64, Integer.MAX_VALUE, 0xFFFF_FFFDL, 0xFFFF_FFFEL, 0xFFFF_FFFFL, 1L << 40,
            -1, 7};
        long expect = 0;
        for (int i = 0; i < lengths.length; i++)
        {
            final long p = r.claim();
            r.slot(p).setCookieAndFlags(100 + i, 0);
            r.publish(p);
            r.placeDirect(r.slot(p), lengths[i]);
            assertTrue(r.completedAt(p), "position " + p + " complete");
            assertEquals(lengths[i], r.slot(p).completedLength(), "the length of position " + p);
            if (lengths[i] < 0)
            {
                // a hole: no event, the next take moves the head over it
                expect = p + 1;
                continue;
            }
            assertEquals(expect, r.takeDirect(e, null, null), "the position taken");
            assertEquals(lengths[i], e.dto.transferredLength, "the length taken at position " + p);
            assertEquals(100 + i, e.dto.userCookie);
            expect = p + 1;
        }
        assertEquals(RecvRing.EMPTY, r.takeDirect(e, null, null));
    }

    @Test
    void aWordOfAnotherLapIsNotThisPositionsCompletion()
    {
        final int slots = 8;
        for (final long p : new long[] {0, 5, (1L << 31) - 3, (1L << 31) + 2, 1L << 40, Long.MAX_VALUE / 4})
        {
            final RecvBuffer b = new RecvBuffer(1, new long[RecvBuffer.PACKED_STRIDE], 0, new long[1], 0);
            b.complete(p, 99);
            final long w = b.lines()[0];
            assertTrue(RecvBuffer.completes(w, p), "the completion of " + p);
            assertEquals(99, b.lengthIn(w));
            assertFalse(RecvBuffer.completesLater(w, p), p + " is not later than itself");
            if (p >= slots)
            {
                assertFalse(RecvBuffer.completes(w, p - slots), "one lap before " + p);
                assertTrue(RecvBuffer.completesLater(w, p - slots), p + " completes a lap after " + (p - slots));
            }
            assertFalse(RecvBuffer.completes(w, p + slots), "one lap after " + p);
            assertFalse(RecvBuffer.completesLater(w, p + slots), p + " is before " + (p + slots));
            // a posted sequence is never a completion
            assertFalse(RecvBuffer.completes(p + 1, p));
        }
    }
}

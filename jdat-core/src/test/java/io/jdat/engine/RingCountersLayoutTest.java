package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The receive ring's counters ({@link ClaimedRing}, {@link RecvRing}) keep each thread's words off
 * the lines of the other threads' words, of the array's header and of the next object on the
 * heap, wherever the collector puts the array: a {@code long[]} lies at any 8-byte boundary, so
 * every one of the eight placements in a 64-byte line is checked.
 */
class RingCountersLayoutTest
{
    private static final int LINE = 64;
    /** The array's length word: the 4 bytes before its first element (a 16-byte array header). */
    private static final int LENGTH_AT = -4;

    private record Word(String name, int index, String writer)
    {
    }

    /** Every word a ring's owner, its placer or a closer stores into on the data path, with its writer. */
    private static List<Word> words()
    {
        final List<Word> w = new ArrayList<>();
        w.add(new Word("head", ClaimedRing.HEAD, "consumer"));
        w.add(new Word("taken", RecvRing.TAKEN, "consumer"));
        w.add(new Word("tail", ClaimedRing.TAIL, "poster"));
        w.add(new Word("head cache", ClaimedRing.HEAD_CACHE, "poster"));
        w.add(new Word("shut", RecvRing.SHUT, "poster"));
        w.add(new Word("place cache", RecvRing.PLACE_CACHE, "poster"));
        w.add(new Word("place", RecvRing.PLACE, "placer"));
        w.add(new Word("placer's head", RecvRing.PLACER_HEAD, "placer"));
        return w;
    }

    private static long line(final int placement, final long byteOffset)
    {
        return Math.floorDiv(placement + byteOffset, LINE);
    }

    @Test
    void noWordSharesALineWithTheArraysLengthInAnyPlacement()
    {
        final List<String> shared = new ArrayList<>();
        for (int placement = 0; placement < LINE; placement += Long.BYTES)
        {
            for (final Word w : words())
            {
                if (line(placement, (long) w.index * Long.BYTES + Long.BYTES - 1) == line(placement, LENGTH_AT))
                {
                    shared.add(w.name + " at placement " + placement);
                }
            }
        }
        assertEquals(List.of(), shared, "words on the line of the length, which every access reads");
    }

    @Test
    void noWordSharesALineWithTheNextObjectInAnyPlacement()
    {
        final long end = (long) ClaimedRing.COUNTER_LONGS * Long.BYTES;
        for (int placement = 0; placement < LINE; placement += Long.BYTES)
        {
            for (final Word w : words())
            {
                assertTrue(line(placement, (long) w.index * Long.BYTES) < line(placement, end),
                    w.name + " shares a line with the object after the array at placement " + placement);
            }
        }
    }

    @Test
    void wordsOfDifferentWritersNeverShareALine()
    {
        final List<String> shared = new ArrayList<>();
        for (int placement = 0; placement < LINE; placement += Long.BYTES)
        {
            for (final Word a : words())
            {
                for (final Word b : words())
                {
                    if (a.index < b.index && !a.writer.equals(b.writer)
                        && line(placement, (long) a.index * Long.BYTES) == line(placement, (long) b.index * Long.BYTES))
                    {
                        shared.add(a.name + " and " + b.name + " at placement " + placement);
                    }
                }
            }
        }
        assertEquals(List.of(), shared);
    }

    @Test
    void everyWordLiesInsideTheArray()
    {
        for (final Word w : words())
        {
            assertTrue(w.index >= 0 && w.index < ClaimedRing.COUNTER_LONGS, w.name + " at " + w.index);
        }
    }
}

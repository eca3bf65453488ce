package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The number, range and yes/no options transports read from instance data. */
class EngineConfigOptionsTest
{
    /**
     * {@code -Djdat.evd.direct} is read as instance data's booleans are: off and its spellings turn
     * direct mode off, on and its spellings keep it, and anything else is refused by name instead of
     * taken silently as on; instance data's {@code evd_direct} still decides when given.
     */
    @Test
    void theDirectModePropertyIsABooleanSpelledAsInstanceDataAndAnythingElseIsRefused()
    {
        final String was = System.getProperty("jdat.evd.direct");
        try
        {
            System.setProperty("jdat.evd.direct", "OFF");
            assertFalse(EngineConfig.parse("").evdDirect);
            assertTrue(EngineConfig.parse("evd_direct=on").evdDirect);
            System.setProperty("jdat.evd.direct", "no");
            assertFalse(EngineConfig.parse(null).evdDirect);
            System.setProperty("jdat.evd.direct", "yes");
            assertTrue(EngineConfig.parse("").evdDirect);
            System.setProperty("jdat.evd.direct", "maybe");
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.parse(""));
            assertTrue(e.getMessage().contains("-Djdat.evd.direct=maybe"), e.getMessage());
        }
        finally
        {
            if (was == null)
            {
                System.clearProperty("jdat.evd.direct");
            }
            else
            {
                System.setProperty("jdat.evd.direct", was);
            }
        }
    }

    @Test
    void aNumberIsTheFallbackWhenAbsentOrEmptyAndDecodedOtherwise()
    {
        final EngineConfig c = EngineConfig.parse("a=0x10 b= c=12");
        assertEquals(16, c.bounded("a", 1, 0, 100));
        assertEquals(7, c.bounded("b", 7, 0, 100));
        assertEquals(12, c.bounded("c", 7, 12, 12));
        assertEquals(5, c.bounded("missing", 5, 0, 100));
    }

    @Test
    void aNumberOutsideItsRangeOrNotANumberIsRefusedByName()
    {
        final EngineConfig c = EngineConfig.parse("ring=3 low=-1 word=many");
        final IllegalArgumentException high = assertThrows(IllegalArgumentException.class,
            () -> c.bounded("ring", 4, 4, 8));
        assertEquals("instance data: ring=3 is outside 4..8", high.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.bounded("low", 0, 0, 8));
        final IllegalArgumentException word = assertThrows(IllegalArgumentException.class,
            () -> c.bounded("word", 0, 0, 8));
        assertEquals("instance data: word=many is not a number", word.getMessage());
    }

    @Test
    void aRangeIsTwoNumbersInOrderWithinItsBounds()
    {
        final EngineConfig c = EngineConfig.parse("r=100-103 one=7-7 hex=0x10-0x20 empty=");
        assertArrayEquals(new long[] {100, 103}, c.range("r", 1, 2, 0, 1000));
        assertArrayEquals(new long[] {7, 7}, c.range("one", 1, 2, 0, 1000));
        assertArrayEquals(new long[] {16, 32}, c.range("hex", 1, 2, 0, 1000));
        assertArrayEquals(new long[] {1, 2}, c.range("empty", 1, 2, 0, 1000));
        assertArrayEquals(new long[] {1, 2}, c.range("missing", 1, 2, 0, 1000));
    }

    @Test
    void aRangeThatIsNotOneIsRefusedByName()
    {
        final EngineConfig c = EngineConfig.parse(
            "down=5-3 word=many half=5- dash=- neg=-5-3 big=1-1001 plus=+1-2 two=1-2-3");
        for (final String key : new String[] {"down", "word", "half", "dash", "neg", "big", "two"})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.range(key, 0, 1, 0, 1000), key);
            assertTrue(e.getMessage().startsWith("instance data: " + key + "=" + c.get(key) + " is not a range"),
                e.getMessage());
        }
        assertEquals("instance data: down=5-3 is not a range within 0..1000 with LO <= HI",
            assertThrows(IllegalArgumentException.class, () -> c.range("down", 0, 1, 0, 1000)).getMessage());
        // Long.decode takes a sign: "+1" is 1, as a number option reads it
        assertArrayEquals(new long[] {1, 2}, c.range("plus", 0, 1, 0, 1000));
    }

    @Test
    void aFlagGivenAloneIsOnAndOnlyKnownWordsCount()
    {
        final EngineConfig c = EngineConfig.parse("crc p2p=OFF x=Yes y=0 z=maybe");
        assertTrue(c.flag("crc", false));
        assertFalse(c.flag("p2p", true));
        assertTrue(c.flag("x", false));
        assertFalse(c.flag("y", true));
        assertTrue(c.flag("missing", true));
        assertThrows(IllegalArgumentException.class, () -> c.flag("z", false));
    }

    @Test
    void theEvdSpinNeverYieldsUnlessTheInstanceDataSaysSo()
    {
        assertEquals(0, EngineConfig.parse("").evdSpinYieldNanos);
        // a library's defaults come first, the entry's own instance data after them: the last wins
        assertEquals(2000, EngineConfig.parse("evd_spin_yield_ns=1000 evd_spin_yield_ns=2000").evdSpinYieldNanos);
        assertEquals(0, EngineConfig.parse("evd_spin_yield_ns=0").evdSpinYieldNanos);
        assertEquals(5000, EngineConfig.parse("evd_spin_yield_ns=5000").evdSpinYieldNanos);
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.parse("evd_spin_yield_ns=soon"));
    }
}

package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The number and yes/no options transports read from instance data. */
class EngineConfigOptionsTest
{
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

package io.jdat.engine.channel;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SentLogTest
{
    private static OutboundMessage send(final int msn)
    {
        return new OutboundMessage(0).describeSend(msn, false);
    }

    @Test
    void messagesComeBackInOrderOnlyOnceTheirLastByteIsTaken()
    {
        final SentLog log = new SentLog();
        final OutboundMessage a = send(1);
        final OutboundMessage b = send(2);
        log.add(a, 100);
        log.add(b, 250);
        assertNull(log.takeReached(99));
        assertSame(a, log.takeReached(100));
        assertNull(log.takeReached(249));
        assertSame(b, log.takeReached(1000));
        assertNull(log.takeReached(1000));
        assertTrue(log.isEmpty());
    }

    @Test
    void growingWhileWrappedKeepsTheOrder()
    {
        final SentLog log = new SentLog();
        final List<OutboundMessage> posted = new ArrayList<>();
        long end = 0;
        // wrap the ring's start around first, then fill it past its size several times
        for (int i = 0; i < 40; i++)
        {
            log.add(send(i), ++end);
        }
        for (int i = 0; i < 40; i++)
        {
            assertTrue(log.takeReached(end) != null);
        }
        final long from = end;
        for (int i = 0; i < 500; i++)
        {
            final OutboundMessage m = send(i);
            posted.add(m);
            log.add(m, ++end);
        }
        for (int i = 0; i < posted.size(); i++)
        {
            assertSame(posted.get(i), log.takeReached(from + i + 1), "message " + i);
        }
        assertTrue(log.isEmpty());
    }

    @Test
    void positionsCompareAsRunningCountersAcrossTheWrapOfALong()
    {
        final SentLog log = new SentLog();
        final OutboundMessage m = send(1);
        log.add(m, Long.MIN_VALUE + 5);
        assertNull(log.takeReached(Long.MAX_VALUE - 5), "not reached: the position is 11 bytes short");
        assertSame(m, log.takeReached(Long.MIN_VALUE + 5));
    }

    @Test
    void clearForgetsEverything()
    {
        final SentLog log = new SentLog();
        log.add(send(1), 1);
        log.add(send(2), 2);
        log.clear();
        assertTrue(log.isEmpty());
        assertNull(log.takeReached(Long.MAX_VALUE));
        final OutboundMessage m = send(3);
        log.add(m, 3);
        assertSame(m, log.takeReached(3));
    }
}

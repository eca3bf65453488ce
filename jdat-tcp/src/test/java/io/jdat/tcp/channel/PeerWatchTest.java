package io.jdat.tcp.channel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link PeerWatch} driven as a {@link TcpChannel}'s ticks drive it (every 100 ms, and a look at
 * the kernel's queue whenever it asks), on a clock of its own: a live peer that was silent for a
 * while is never taken for dead, a vanished one is within the bound.
 */
class PeerWatchTest
{
    private static final long MS = 1_000_000L;
    private static final long LIVENESS = 5_000 * MS;
    private static final long TICK = 100 * MS;

    private final PeerWatch watch = new PeerWatch(LIVENESS, new String[] {"key"});
    private long now;
    private long written;
    /** Of {@link #written}, what the peer's kernel has acknowledged. */
    private long acked;

    /** Ticks until {@code until}; true (and stops) if the watch took the peer for dead. */
    private boolean ticks(final long until)
    {
        while (now < until)
        {
            now += TICK;
            if (watch.dead(now, false, written))
            {
                return true;
            }
            if (watch.wantsLook(now, written) && watch.kernelQueue(written - acked, now, written))
            {
                return true;
            }
        }
        return false;
    }

    @Test
    void aConnectionIdleForLongerThanTheBoundIsNotDeadBecauseAnAcknowledgementIsLate()
    {
        watch.started(now);
        // a message out and answered, then both sides silent for 9 s (an idle DAT connection)
        written = 100;
        acked = 100;
        watch.received(100);
        assertFalse(ticks(3_000 * MS));
        written = 200;
        acked = 200;
        assertFalse(ticks(12_000 * MS), "nothing in flight: the look finds the queue empty");
        // then a message whose acknowledgement the peer delays (TCP's delayed ACK, 40 ms and more):
        // the next look sees it in flight
        written = 264;
        assertFalse(ticks(12_100 * MS), "64 bytes handed to the kernel a tick ago are no sign of a dead peer");
        acked = 264;
        assertFalse(ticks(20_000 * MS));
    }

    @Test
    void aPeerThatVanishesAfterALongSilenceIsDeadOnceOurBytesWaitedTheBound()
    {
        watch.started(now);
        written = 100;
        acked = 100;
        assertFalse(ticks(12_000 * MS));
        // the peer is gone: nothing more is ever acknowledged
        written = 164;
        final long sent = now;
        assertFalse(ticks(sent + LIVENESS - TICK), "not before the bound");
        assertTrue(ticks(sent + LIVENESS + LIVENESS / 8 + 3 * TICK), "within the bound and one sample");
    }

    @Test
    void aPeerThatVanishesMidStreamIsDeadWithinTheBound()
    {
        watch.started(now);
        // a stream: the peer answers and acknowledges every tick
        for (int i = 0; i < 100; i++)
        {
            written += 4096;
            acked = written - 1024;
            watch.received(64);
            assertFalse(ticks(now + TICK));
        }
        // the peer is gone with our last bytes in flight, and we keep sending
        final long cut = now;
        for (int i = 0; i < 60; i++)
        {
            written += 4096;
            if (ticks(now + TICK))
            {
                break;
            }
        }
        assertTrue(now > cut + LIVENESS && now <= cut + LIVENESS + LIVENESS / 8 + 3 * TICK,
            "taken for dead " + (now - cut) / MS + " ms after it vanished");
    }
}

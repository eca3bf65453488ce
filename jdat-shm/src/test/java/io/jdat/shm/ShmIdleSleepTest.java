package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.engine.EngineConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How an idle I/O thread waits where the peer wakes it ({@link Backoff#newWokenState}): it goes
 * to sleep on its futex words after its spin, without a yielding phase and without sleeps that
 * start at a microsecond. A yielding thread stays runnable, and where spinning threads outnumber
 * the cores (a target spinning on its memory for an RDMA Write) it waits for a spinner's slice
 * to end, milliseconds, before it places the Write; a sleeping one is given a core by the peer's
 * wake-up.
 */
class ShmIdleSleepTest
{
    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void aWokenSleeperSleepsTheLongestParkAtOnce()
    {
        final List<Long> asked = new ArrayList<>();
        final Backoff.State idle = new Backoff(0, 0, 1000, 1_000_000).newWokenState(nanos ->
        {
            asked.add(nanos);
            return true;
        });
        idle.idle(0);
        idle.idle(0);
        idle.idle(0, 300_000);
        idle.idle(1);
        idle.idle(0);
        assertEquals(List.of(1_000_000L, 1_000_000L, 300_000L, 1_000_000L), asked,
            "each sleep of a thread the peer wakes lasts the longest park (or the caller's bound)");
    }

    @Test
    void aSleeperThePeerDoesNotWakeStillDoubles()
    {
        final List<Long> asked = new ArrayList<>();
        final Backoff.State idle = new Backoff(0, 0, 1000, 1_000_000).newState(nanos ->
        {
            asked.add(nanos);
            return true;
        });
        idle.idle(0);
        idle.idle(0);
        idle.idle(0);
        assertEquals(List.of(1000L, 2000L, 4000L), asked, "the waiter's sleeps double from the shortest");
    }

    @Test
    void theIoThreadDoesNotYieldWhereThePeerWakesIt()
    {
        final ShmTransport woken = new ShmTransport("idle", EngineConfig.parse("dir=" + dir));
        assertTrue(Futex.SUPPORTED, "futexes here (Linux, native access)");
        assertEquals(0, woken.backoff.yieldNanos(), "the I/O thread goes to sleep after its spin");
        assertEquals(20_000, woken.backoff.spinNanos(), "it spins as before");
        assertEquals(200_000, woken.waitBackoff.yieldNanos(), "a waiter in dat_evd_wait yields as before");
        assertEquals(200_000, woken.parkBackoff.yieldNanos(), "where futexes turn out unavailable it yields as before");

        final ShmTransport parking = new ShmTransport("idle", EngineConfig.parse("dir=" + dir + " futex=false"));
        assertEquals(200_000, parking.backoff.yieldNanos(), "a thread nobody else wakes yields before it parks");

        final ShmTransport given = new ShmTransport("idle", EngineConfig.parse("dir=" + dir + " idle_yield_ns=5000"));
        assertEquals(5000, given.backoff.yieldNanos(), "a yield given is kept");
        assertEquals(5000, given.waitBackoff.yieldNanos(), "for the waiter too");
    }
}

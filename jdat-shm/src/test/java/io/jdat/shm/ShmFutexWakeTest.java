package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An I/O thread asleep on its futex bells is woken by the peer at once: with I/O threads that,
 * once idle, sleep 400 ms at a time, a Send posted while both consumers wait arrives, and its
 * completion returns, well before that (the receiving I/O thread wakes on the send ring's tail
 * bell, the sending one on its head bell when the peer consumed).
 */
class ShmFutexWakeTest
{
    private static final String SLEEPY = "idle_spin_ns=0 idle_yield_ns=0 idle_park_min_ns=400000000"
        + " idle_park_max_ns=400000000";
    private static final long PROMPT_NANOS = 150_000_000L;

    private Path dir;

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        TestFiles.delete(dir);
    }

    @Test
    void aPeerThatPublishesOrConsumesWakesTheSleepingIoThread() throws Exception
    {
        assertTrue(Futex.AVAILABLE, "futexes need Linux 5.16 and --enable-native-access for this module");
        try (ShmNode server = ShmNode.open(dir, "srv", SLEEPY); ShmNode client = ShmNode.open(dir, "cli", SLEEPY))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final Lmr cm = client.lmr(4096);
            final Lmr sm = server.lmr(4096);
            for (int round = 0; round < 3; round++)
            {
                pair[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 64)}, round, 0);
                final long[] arrived = new long[1];
                final Thread waiter = new Thread(() ->
                {
                    final DatEvent got = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
                    arrived[0] = got.dto.status == DtoStatus.SUCCESS ? System.nanoTime() : -1;
                }, "test-waiter");
                waiter.start();
                // long enough for both consumers' spins to end and both I/O threads to fall asleep
                Thread.sleep(100);
                final long posted = System.nanoTime();
                pair[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(cm, 0, 64)}, round,
                    CompletionFlags.DEFAULT_FLAG);
                final DatEvent sent = next(pair[0].req(), EventNumber.DTO_COMPLETION_EVENT);
                final long completed = System.nanoTime();
                waiter.join(5000);
                assertEquals(DtoStatus.SUCCESS, sent.dto.status);
                assertTrue(arrived[0] > 0, "the Send arrived");
                assertTrue(arrived[0] - posted < PROMPT_NANOS, "round " + round + ": the Send took "
                    + (arrived[0] - posted) / 1000 + " us to reach the waiting consumer");
                assertTrue(completed - posted < PROMPT_NANOS, "round " + round + ": the Send took "
                    + (completed - posted) / 1000 + " us to complete");
            }
        }
    }
}

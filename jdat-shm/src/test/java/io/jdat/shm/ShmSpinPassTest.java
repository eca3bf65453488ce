package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatStatus;
import io.jdat.IaAttr;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a pass of a polling consumer's loop reads must be read often enough, whatever a shorter
 * pass leaves out of some passes: a {@code dat_evd_wait} that spins polling the rings still ends at
 * its timeout and at a {@code dat_evd_set_unwaitable} within its spin, not after it (the clock and
 * the flags, which the spin reads between its polls), and a consumer that polls an EVD with nothing
 * coming still keeps the I/O thread aside (the poll count the I/O thread watches, which polls that
 * find nothing move too). Each was seen to fail on a build that read the clock and the flags once
 * in 2^30 polls, and on one whose polls moved the count only when they found work.
 */
class ShmSpinPassTest
{
    /** A wait's spin far longer than any bound below: what ends the wait is not the spin's end. */
    private static final String LONG_SPIN = "evd_spin_us=30000000";

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
    void spinningWaitEndsAtItsTimeout()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", LONG_SPIN);
            ShmNode client = ShmNode.open(dir, "cli", LONG_SPIN))
        {
            final ShmNode.Ep c = ShmNode.connect(client, server, 4720)[0];
            final long start = System.nanoTime();
            final DatCount nmore = new DatCount();
            final DatStatus st = c.recv().wait(50_000, 1, new DatEvent(), nmore);
            final long took = System.nanoTime() - start;
            assertEquals(DatStatus.TIMEOUT_EXPIRED, st);
            assertTrue(took >= 50_000_000L, "returned after " + took / 1000 + " us, before its 50 ms timeout");
            // a wait that read the clock only when its spin ended would return after 30 s
            assertTrue(took < 5_000_000_000L, "a 50 ms wait returned after " + took / 1_000_000 + " ms");
        }
    }

    @Test
    void spinningWaitSeesSetUnwaitable() throws Exception
    {
        try (ShmNode server = ShmNode.open(dir, "srv", LONG_SPIN);
            ShmNode client = ShmNode.open(dir, "cli", LONG_SPIN))
        {
            final ShmNode.Ep c = ShmNode.connect(client, server, 4721)[0];
            final AtomicReference<Object> outcome = new AtomicReference<>();
            final long[] ended = new long[1];
            final Thread waiter = new Thread(() ->
            {
                try
                {
                    outcome.set(c.recv().wait(Dat.TIMEOUT_INFINITE, 1, new DatEvent(), new DatCount()));
                }
                catch (final DatException e)
                {
                    outcome.set(e.subtype());
                }
                ended[0] = System.nanoTime();
            }, "test-spinning-waiter");
            waiter.start();
            Thread.sleep(200);
            final long set = System.nanoTime();
            c.recv().setUnwaitable();
            waiter.join(10_000);
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, outcome.get());
            // a wait that read its flags only when its spin ended would see it after 30 s
            assertTrue(ended[0] - set < 5_000_000_000L, "the spinning wait saw dat_evd_set_unwaitable after "
                + (ended[0] - set) / 1_000_000 + " ms");
        }
    }

    /** Rounds on the I/O thread while this thread polls {@code ep}'s empty receive EVD for {@code millis}. */
    private static long ioRoundsWhileIdlePolling(final ShmNode node, final ShmNode.Ep ep, final long millis)
    {
        final DatEvent ev = new DatEvent();
        // long enough for the I/O thread to see the polls and step aside
        final long warm = System.nanoTime() + 100_000_000L;
        while (System.nanoTime() < warm)
        {
            assertEquals(DatStatus.QUEUE_EMPTY, ep.recv().dequeue(ev));
        }
        final long before = ioRounds(node);
        final long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end)
        {
            assertEquals(DatStatus.QUEUE_EMPTY, ep.recv().dequeue(ev));
        }
        return ioRounds(node) - before;
    }

    private static long ioRounds(final ShmNode node)
    {
        final IaAttr attr = new IaAttr();
        node.ia.query(IaAttr.FIELD_ALL, attr, 0, null);
        return Long.parseLong(attr.transportAttr("jdat.shm.rounds_io_thread"));
    }

    @Test
    void idlePollerKeepsTheIoThreadAside()
    {
        // the client's I/O thread spins a whole second after its last work before it backs off:
        // left to itself beside a poller, it runs rounds all the time (the server's backs off as
        // usual, so that the poller and that I/O thread have the machine's two cores)
        final String spinning = "idle_spin_ns=1000000000";
        final long beside;
        try (ShmNode server = ShmNode.open(dir, "srv", "");
            ShmNode client = ShmNode.open(dir, "cli", spinning + " poll_grace_ns=0"))
        {
            beside = ioRoundsWhileIdlePolling(client, ShmNode.connect(client, server, 4723)[0], 300);
        }
        // the control: an I/O thread that never steps aside runs rounds beside the poller
        assertTrue(beside > 1000, "the I/O thread ran only " + beside + " rounds when it never steps aside");
        // polls that find nothing still tell the I/O thread someone polls; a poller descheduled
        // for a while under a loaded machine rightly lets the I/O thread run in that while, so the
        // best of three tries is kept (a thread that never steps aside runs as many rounds in each)
        long aside = -1;
        for (int attempt = 0; attempt < 3 && (aside < 0 || aside * 10 >= beside); attempt++)
        {
            TestFiles.delete(dir);
            dir = TestFiles.freshDir();
            try (ShmNode server = ShmNode.open(dir, "srv", "");
                ShmNode client = ShmNode.open(dir, "cli", spinning))
            {
                final long rounds = ioRoundsWhileIdlePolling(client, ShmNode.connect(client, server, 4722)[0], 300);
                aside = aside < 0 ? rounds : Math.min(aside, rounds);
            }
        }
        System.out.println("rounds on the I/O thread while a consumer polls an empty EVD for 300 ms: stepping aside "
            + aside + ", never stepping aside " + beside);
        assertTrue(aside * 10 < beside, "the I/O thread ran " + aside + " rounds beside a consumer polling an empty "
            + "EVD (the fewest of three tries), " + beside + " when it never steps aside");
    }
}

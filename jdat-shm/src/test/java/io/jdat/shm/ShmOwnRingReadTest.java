package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer that polls its endpoint's receive EVD reads that connection's inbound ring itself,
 * while the port's I/O thread, kept spinning, runs its rounds over the same ring: the two race
 * for the ring's claim on every record. Each Send is placed exactly once and in order, and the
 * RDMA Write before each (which the consumer's own read leaves to a round) is placed before it.
 */
class ShmOwnRingReadTest
{
    private static final int MESSAGES = 20_000;
    private static final int BATCH = 4;
    private static final int SLOT = 8;

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void everySendIsPlacedOnceAndInOrderWhileTheRoundRaces() throws Exception
    {
        // the receiver's I/O thread never steps aside for the polling consumer, and spins
        try (ShmNode server = ShmNode.open(dir, "srv", "poll_grace_ns=0 idle_spin_ns=1000000000");
            ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final ShmNode.Ep c = pair[0];
            final ShmNode.Ep s = pair[1];
            final Lmr cm = client.lmr(4096);
            final Lmr sm = server.lmr(4096);
            // server: receive buffers at 0, Write targets at 1024, the ack's source at 2048;
            // client: Send sources at 0, Write sources at 1024, the ack's receive buffer at 2048
            for (int i = 0; i < BATCH; i++)
            {
                s.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, (long) i * SLOT, SLOT)}, i, 0);
            }
            final LmrTriplet[] ackRecv = {LmrTriplet.of(cm, 2048, SLOT)};
            c.ep().postRecv(1, ackRecv, 0, 0);
            final AtomicReference<String> failure = new AtomicReference<>();
            final Thread receiver = new Thread(() -> receive(s, sm, failure), "test-own-reader");
            receiver.setUncaughtExceptionHandler((t, e) -> failure.compareAndSet(null, t.getName() + ": " + e));
            receiver.start();
            final DatEvent ev = new DatEvent();
            for (int k = 0; k < MESSAGES && failure.get() == null; k += BATCH)
            {
                for (int i = 0; i < BATCH; i++)
                {
                    final long v = k + i;
                    cm.memory().set(ValueLayout.JAVA_LONG, (long) i * SLOT, v);
                    cm.memory().set(ValueLayout.JAVA_LONG, 1024 + (long) i * SLOT, v);
                    c.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(cm, 1024 + (long) i * SLOT, SLOT)}, v,
                        new RmrTriplet(sm.rmrContext(), sm.registeredAddress() + 1024 + (long) i * SLOT, SLOT),
                        CompletionFlags.SUPPRESS_FLAG);
                    c.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(cm, (long) i * SLOT, SLOT)}, v,
                        CompletionFlags.SUPPRESS_FLAG);
                }
                // the receiver acknowledges each batch once it took it in: its buffers are posted again
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (c.recv().dequeue(ev) != DatStatus.SUCCESS && failure.get() == null)
                {
                    if (System.nanoTime() > deadline)
                    {
                        failure.compareAndSet(null, "no acknowledgement of the batch from " + k + " within 10 s");
                    }
                }
                if (failure.get() == null && ev.dto.status != DtoStatus.SUCCESS)
                {
                    failure.compareAndSet(null, "the acknowledgement of " + k + ": " + ev.dto.status);
                }
                c.ep().postRecv(1, ackRecv, 0, 0);
            }
            receiver.join(30_000);
            assertEquals(null, failure.get());
            assertTrue(!receiver.isAlive(), "the receiver did not end");
            assertTrue(ShmNode.quiet(c.req(), 0), "a Send or Write of the client completed in error");
            final IaAttr attr = new IaAttr();
            server.ia.query(IaAttr.FIELD_ALL, attr, 0, null);
            final long own = Long.parseLong(attr.transportAttr("jdat.shm.records_read_own"));
            // both consumers took Sends from the ring: the consumer's own reads and the rounds
            assertTrue(own > 0 && own < MESSAGES, "Sends read by the consumer itself: " + own + " of " + MESSAGES);
        }
    }

    /** The receiving consumer: polls its receive EVD, checks each Send and the Write before it. */
    private static void receive(final ShmNode.Ep s, final Lmr sm, final AtomicReference<String> failure)
    {
        final DatEvent ev = new DatEvent();
        final LmrTriplet[] ack = {LmrTriplet.of(sm, 2048, SLOT)};
        for (long expected = 0; expected < MESSAGES && failure.get() == null; expected++)
        {
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (s.recv().dequeue(ev) != DatStatus.SUCCESS)
            {
                if (System.nanoTime() > deadline || failure.get() != null)
                {
                    failure.compareAndSet(null, "Send " + expected + " did not arrive within 10 s");
                    return;
                }
            }
            final int slot = (int) (expected % BATCH);
            if (ev.eventNumber != EventNumber.DTO_COMPLETION_EVENT.value() || ev.dto.status != DtoStatus.SUCCESS
                || ev.dto.transferredLength != SLOT || ev.dto.userCookie != slot)
            {
                failure.compareAndSet(null, "Send " + expected + ": " + ev);
                return;
            }
            final long got = sm.memory().get(ValueLayout.JAVA_LONG, (long) slot * SLOT);
            final long written = sm.memory().get(ValueLayout.JAVA_LONG, 1024 + (long) slot * SLOT);
            if (got != expected || written != expected)
            {
                failure.compareAndSet(null, "Send " + expected + " carried " + got + ", its Write " + written);
                return;
            }
            s.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, (long) slot * SLOT, SLOT)}, slot, 0);
            if (slot == BATCH - 1)
            {
                s.ep().postSend(1, ack, 0, CompletionFlags.SUPPRESS_FLAG);
            }
        }
    }
}

package io.jdat.tcp.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Sends and RDMA Writes over a real connection on 127.0.0.1, posted and waited for
 * ({@code dat_evd_wait}) by one thread that also runs the I/O (tcp's inline progress): once warm,
 * the JVM's count of the bytes this thread allocated stays flat. At 64 bytes nothing is allocated
 * (0-2 B/op measured; the bound leaves 8 B/op for a lock's queue node when the I/O thread holds
 * the progress lock; a selected-key set's node and iterator per wake-up made 80 B/op). From
 * 64 KiB on, the payload goes between the socket and the registered memory in gathering and
 * scattering calls, and the JDK allocates 40 bytes per such call that takes a buffer view of a
 * memory segment (sun.nio.ch.IOUtil's releaser of the segment's session), how many depends on how
 * much the socket takes per call: 95-240 B/op at 64 KiB and 1.4-2.2 KB/op at 1 MiB measured. The
 * bounds there are envelopes about twice that. (A measurement of allocation, not of speed.)
 */
class TcpSteadyStateAllocationTest
{
    private static final long SECOND = 1_000_000L;

    @ParameterizedTest(name = "{0} {1} bytes")
    @CsvSource({"send, 64, 8", "write, 64, 8", "send, 65536, 512", "write, 65536, 512",
        "send, 1048576, 4096", "write, 1048576, 4096"})
    void postAndWaitAllocateNothingOnceWarm(final String op, final int size, final long maxPerOp)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (TcpNode c = TcpNode.open(); TcpNode s = TcpNode.open())
        {
            final Lmr cm = c.lmr(size);
            final Lmr sm = s.lmr(size);
            final TcpConnectionTest.Pair pair = TcpConnectionTest.connect(c, s, null, null);
            final Loop loop = new Loop(pair, cm, sm, size, op.equals("write"));
            final int warm = size >= 1 << 20 ? 300 : 2_000;
            final int ops = size >= 1 << 20 ? 300 : 2_000;
            loop.run(warm);
            final long before = threads.getCurrentThreadAllocatedBytes();
            loop.run(ops);
            final long perOp = (threads.getCurrentThreadAllocatedBytes() - before) / ops;
            assertTrue(perOp <= maxPerOp,
                perOp + " bytes allocated per " + op + " of " + size + " bytes (at most " + maxPerOp + ")");
        }
    }

    /** One thread's posts and waits, with everything they take made once. */
    private static final class Loop
    {
        private final TcpNode.Ep client;
        private final TcpNode.Ep server;
        private final LmrTriplet[] local;
        private final LmrTriplet[] recv;
        private final RmrTriplet remote;
        private final boolean write;
        private final long size;
        private final DatEvent event = new DatEvent();
        private final DatCount count = new DatCount();

        Loop(final TcpConnectionTest.Pair pair, final Lmr cm, final Lmr sm, final int size, final boolean write)
        {
            this.client = pair.client();
            this.server = pair.server();
            this.local = new LmrTriplet[] {LmrTriplet.of(cm, 0, size)};
            this.recv = new LmrTriplet[] {LmrTriplet.of(sm, 0, size)};
            this.remote = new RmrTriplet(sm.rmrContext(), sm.registeredAddress(), size);
            this.write = write;
            this.size = size;
        }

        void run(final int ops)
        {
            for (int i = 0; i < ops; i++)
            {
                if (write)
                {
                    client.ep().postRdmaWrite(1, local, i, remote, CompletionFlags.DEFAULT_FLAG);
                    completed(client.req(), i);
                }
                else
                {
                    server.ep().postRecv(1, recv, i, CompletionFlags.DEFAULT_FLAG);
                    client.ep().postSend(1, local, i, CompletionFlags.DEFAULT_FLAG);
                    completed(client.req(), i);
                    completed(server.recv(), i);
                }
            }
        }

        private void completed(final EventDispatcher evd, final long cookie)
        {
            final DatStatus st = evd.wait(5 * SECOND, 1, event, count);
            if (st != DatStatus.SUCCESS || event.dto.status != DtoStatus.SUCCESS || event.dto.userCookie != cookie
                || event.dto.transferredLength != size)
            {
                assertEquals(DatStatus.SUCCESS, st, "no completion within 5 s");
                throw new AssertionError("unexpected completion " + event);
            }
        }
    }
}

package io.jdat.bench;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CPU cost of one 64-byte Send hop with no second thread: one thread posts the receive, posts
 * the Send (which the loopback channel places at once, on this thread) and dequeues the receive
 * completion. Beside it, the same thread copies 64 bytes and passes a reference through a JCTools
 * SPSC queue. No cache line crosses cores here, so the difference is the engine's own work per hop
 * (validation, queues, events), which a two-thread round trip pays twice on top of the lines that
 * do cross. With {@code provider=shm} the Send goes through the IA's own shm ring (the post writes
 * the record, the dequeue's inline poll reads and places it), so its difference to loopback in the
 * same run is shm's own work per hop: ring, record and progress round. {@code
 * provider=loopback-nonthreadsafe} opens loopback from its {@code nonthreadsafe} entry, whose queues
 * may post with plain stores (one consumer thread). With {@code -prof gc} it
 * also shows the allocation of post, placement and dequeue.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"})
public class HopCostBenchmark
{
    private static final int SIZE = 64;

    /** Two connected loopback endpoints, driven from the benchmark thread alone. */
    @State(Scope.Thread)
    public static class Jdat
    {
        /** {@code loopback-nonthreadsafe}: loopback from its {@code nonthreadsafe} entry (single writer). */
        @Param({"loopback", "loopback-nonthreadsafe", "shm"})
        String provider;
        LoopbackRig rig;
        final DatEvent event = new DatEvent();
        LmrTriplet[] send;
        LmrTriplet[] recv;

        @Setup(Level.Trial)
        public void setup()
        {
            rig = new LoopbackRig(provider, false, 1 << 16, 16);
            send = new LmrTriplet[] {LmrTriplet.of(rig.clientLmr, 0, SIZE)};
            recv = new LmrTriplet[] {LmrTriplet.of(rig.serverLmr, 4096, SIZE)};
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            rig.close();
        }
    }

    /** The baseline's queue and buffers. */
    @State(Scope.Thread)
    public static class Baseline
    {
        SpscAtomicArrayQueue<MemorySegment> queue;
        MemorySegment src;
        MemorySegment dst;
        private Arena arena;

        @Setup(Level.Trial)
        public void setup()
        {
            arena = Arena.ofShared();
            src = arena.allocate(SIZE);
            dst = arena.allocate(SIZE);
            queue = new SpscAtomicArrayQueue<>(16);
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            arena.close();
        }
    }

    /**
     * Post a receive, post a Send, dequeue its receive completion. On loopback the Send is placed
     * on this thread; on shm a dequeue may find the IA's I/O thread in the middle of a progress
     * round (it steps aside once it sees this thread poll) and is repeated.
     */
    @Benchmark
    public long jdatHop(final Jdat s)
    {
        s.rig.server.postRecv(1, s.recv, 0, 0);
        s.rig.client.postSend(1, s.send, 1, CompletionFlags.SUPPRESS_FLAG);
        int tries = 0;
        while (s.rig.serverRecv.dequeue(s.event) != DatStatus.SUCCESS)
        {
            if (++tries == 1_000_000)
            {
                throw new IllegalStateException("the Send was not placed");
            }
        }
        return s.event.dto.transferredLength;
    }

    /**
     * {@link #jdatHop} with the Send signalled: its completion is claimed in the client's request
     * EVD (on a {@code nonthreadsafe} IA by the posting thread as the IA's one consumer) and
     * dequeued after the receive's.
     */
    @Benchmark
    public long jdatSignalledHop(final Jdat s)
    {
        s.rig.server.postRecv(1, s.recv, 0, 0);
        s.rig.client.postSend(1, s.send, 1, CompletionFlags.DEFAULT_FLAG);
        int tries = 0;
        while (s.rig.serverRecv.dequeue(s.event) != DatStatus.SUCCESS)
        {
            if (++tries == 1_000_000)
            {
                throw new IllegalStateException("the Send was not placed");
            }
        }
        final long length = s.event.dto.transferredLength;
        while (s.rig.clientReq.dequeue(s.event) != DatStatus.SUCCESS)
        {
            if (++tries == 2_000_000)
            {
                throw new IllegalStateException("the Send did not complete");
            }
        }
        return length + s.event.dto.transferredLength;
    }

    /** One copy and one SPSC offer and poll on the same thread. */
    @Benchmark
    public long baselineHop(final Baseline s)
    {
        MemorySegment.copy(s.src, 0, s.dst, 0, SIZE);
        s.queue.offer(s.dst);
        return s.queue.poll().byteSize();
    }
}

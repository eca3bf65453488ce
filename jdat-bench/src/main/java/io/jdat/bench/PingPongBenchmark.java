package io.jdat.bench;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
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
 * Round trip of a small message between two threads: jdat Send/Recv over loopback (an echo
 * thread answers each receive with a Send; completions of the Sends are suppressed), beside the
 * baseline of the same bytes handed between two threads through JCTools SPSC queues with one
 * {@code MemorySegment.copy} per hop, as the loopback channel does. Each benchmark runs only its
 * own echo thread (two spinning threads on this 2-core machine, never three).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"})
public class PingPongBenchmark
{
    private static final int DEPTH = 16;

    /** jdat: two connected loopback endpoints and an echo thread. */
    @State(Scope.Benchmark)
    public static class Jdat
    {
        @Param({"64"})
        public int size;

        LoopbackRig rig;
        final DatEvent event = new DatEvent();
        LmrTriplet[] ping;
        LmrTriplet[] pingRecv;
        private Thread echo;
        private volatile boolean running;

        @Setup(Level.Trial)
        public void setup()
        {
            rig = new LoopbackRig(1 << 16, DEPTH);
            ping = new LmrTriplet[] {LmrTriplet.of(rig.clientLmr, 0, size)};
            pingRecv = new LmrTriplet[] {LmrTriplet.of(rig.clientLmr, 4096, size)};
            final LmrTriplet[] pong = {LmrTriplet.of(rig.serverLmr, 0, size)};
            final LmrTriplet[] pongRecv = {LmrTriplet.of(rig.serverLmr, 4096, size)};
            for (int i = 0; i < DEPTH; i++)
            {
                rig.client.postRecv(1, pingRecv, i, 0);
                rig.server.postRecv(1, pongRecv, i, 0);
            }
            running = true;
            echo = new Thread(() ->
            {
                final DatEvent ev = new DatEvent();
                while (running)
                {
                    if (rig.serverRecv.dequeue(ev) == DatStatus.SUCCESS)
                    {
                        if (ev.dto.status != DtoStatus.SUCCESS)
                        {
                            return;
                        }
                        rig.server.postRecv(1, pongRecv, 0, 0);
                        rig.server.postSend(1, pong, 0, CompletionFlags.SUPPRESS_FLAG);
                    }
                    else
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "bench-echo");
            echo.setDaemon(true);
            echo.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running = false;
            echo.join(1000);
            rig.close();
        }
    }

    /** Baseline: two SPSC queues and an echo thread that copies each message once. */
    @State(Scope.Benchmark)
    public static class Baseline
    {
        @Param({"64"})
        public int size;

        SpscAtomicArrayQueue<MemorySegment> toEcho;
        SpscAtomicArrayQueue<MemorySegment> toPing;
        MemorySegment src;
        MemorySegment dst;
        MemorySegment slot;
        private Arena arena;
        private Thread echo;
        private volatile boolean running;

        @Setup(Level.Trial)
        public void setup()
        {
            arena = Arena.ofShared();
            src = arena.allocate(size);
            dst = arena.allocate(size);
            slot = arena.allocate(size);
            final MemorySegment echoSlot = arena.allocate(size);
            toEcho = new SpscAtomicArrayQueue<>(DEPTH);
            toPing = new SpscAtomicArrayQueue<>(DEPTH);
            running = true;
            echo = new Thread(() ->
            {
                while (running)
                {
                    final MemorySegment m = toEcho.poll();
                    if (m != null)
                    {
                        MemorySegment.copy(m, 0, echoSlot, 0, size);
                        toPing.offer(echoSlot);
                    }
                    else
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "bench-baseline-echo");
            echo.setDaemon(true);
            echo.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running = false;
            echo.join(1000);
            arena.close();
        }
    }

    /** One Send/Recv round trip through jdat's loopback provider. */
    @Benchmark
    public long jdatSendRecv(final Jdat s)
    {
        s.rig.client.postSend(1, s.ping, 1, CompletionFlags.SUPPRESS_FLAG);
        while (s.rig.clientRecv.dequeue(s.event) != DatStatus.SUCCESS)
        {
            Thread.onSpinWait();
        }
        s.rig.client.postRecv(1, s.pingRecv, 0, 0);
        return s.event.dto.transferredLength;
    }

    /** The same bytes, the same two threads, a JCTools SPSC queue each way and one copy per hop. */
    @Benchmark
    public long baselineQueueHandoff(final Baseline s)
    {
        MemorySegment.copy(s.src, 0, s.slot, 0, s.size);
        s.toEcho.offer(s.slot);
        MemorySegment m;
        while ((m = s.toPing.poll()) == null)
        {
            Thread.onSpinWait();
        }
        MemorySegment.copy(m, 0, s.dst, 0, s.size);
        return m.byteSize();
    }
}

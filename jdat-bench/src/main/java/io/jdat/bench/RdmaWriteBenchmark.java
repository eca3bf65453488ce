package io.jdat.bench;

import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
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
 * RDMA Write throughput over loopback with a window of outstanding writes (each operation posts
 * one write and reaps a completion when the window is full), beside the baseline of
 * {@code MemorySegment.copy} of the same size between the same two registered buffers.
 * Bytes per second = operations per second × size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"})
public class RdmaWriteBenchmark
{
    private static final int WINDOW = 16;

    @Param({"4096", "65536", "1048576"})
    public int size;

    private LoopbackRig rig;
    private LmrTriplet[] source;
    private RmrTriplet target;
    private final DatEvent event = new DatEvent();
    private int outstanding;
    private MemorySegment src;
    private MemorySegment dst;

    @Setup(Level.Trial)
    public void setup()
    {
        rig = new LoopbackRig(size, WINDOW);
        source = new LmrTriplet[] {LmrTriplet.of(rig.clientLmr, 0, size)};
        target = new RmrTriplet(rig.serverLmr.rmrContext(), rig.serverLmr.registeredAddress(), size);
        src = rig.clientLmr.memory();
        dst = rig.serverLmr.memory();
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        rig.close();
    }

    /** One RDMA Write of {@code size} bytes, its completion reaped within a window of 16. */
    @Benchmark
    public int jdatRdmaWrite()
    {
        if (outstanding == WINDOW)
        {
            while (rig.clientReq.dequeue(event) != DatStatus.SUCCESS)
            {
                Thread.onSpinWait();
            }
            outstanding--;
        }
        rig.client.postRdmaWrite(1, source, 0, target, 0);
        outstanding++;
        return outstanding;
    }

    /** The same bytes copied between the same two buffers. */
    @Benchmark
    public long baselineCopy()
    {
        MemorySegment.copy(src, 0, dst, 0, size);
        return dst.byteSize();
    }
}

package io.jdat.bench;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One pass of a polling consumer's loop that finds nothing, on one thread: what a consumer spends
 * between two looks at its peer while it waits for the next message, so what a message arriving
 * in the middle of a pass waits on average is half of it. Three side by side: jdat's
 * {@code dat_evd_dequeue} on the receive EVD of a connected {@code shm} endpoint (two IAs of this
 * process, direct mode unless {@code -Djdat.evd.direct=false}; the pass runs the EVD's checks, the
 * look at the receive slot and the port's poll), Aeron IPC's {@code Subscription.poll} of an
 * empty log (an embedded media driver, as in {@link MessageRateBenchmark}), and the floor: one
 * acquire load of a word in shared memory, the one load a pass has to make. Beside them the clock
 * ({@code System.nanoTime}), which a spinning {@code dat_evd_wait} reads between its polls, and
 * {@code Thread.onSpinWait}, which every spinning loop here runs between two passes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
    "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED"})
public class ShmPassBenchmark
{
    private static final int SIZE = 64;
    private static final int DEPTH = 16;

    /** Two shm IAs of this process, an endpoint each, connected, receives posted; nothing sent. */
    @State(Scope.Thread)
    public static class Jdat
    {
        private final Arena arena = Arena.ofShared();
        InterfaceAdapter serverIa;
        InterfaceAdapter clientIa;
        EventDispatcher recv;
        final DatEvent event = new DatEvent();

        @Setup(Level.Trial)
        public void setup()
        {
            serverIa = Dat.iaOpen("shm", 16, new DatOut<>());
            clientIa = Dat.iaOpen("shm", 16, new DatOut<>());
            final ProtectionZone serverPz = serverIa.pzCreate();
            final ProtectionZone clientPz = clientIa.pzCreate();
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = DEPTH;
            attr.maxRequestDtos = DEPTH;
            recv = clientIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG);
            final EventDispatcher serverRecv = serverIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG);
            final EventDispatcher clientConn = clientIa.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            final EventDispatcher serverConn = serverIa.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            final Endpoint client = clientIa.epCreate(clientPz, recv,
                clientIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG), clientConn, attr);
            final Endpoint server = serverIa.epCreate(serverPz, serverRecv,
                serverIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG), serverConn, attr);
            LoopbackRig.connect(serverIa, client, server, clientConn, serverConn);
            final MemorySegment m = arena.allocate(1 << 16, 4096);
            final Lmr lmr = clientIa.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), clientPz,
                MemPriv.ALL_FLAG);
            final LmrTriplet[] into = {LmrTriplet.of(lmr, 0, SIZE)};
            for (int i = 0; i < DEPTH; i++)
            {
                client.postRecv(1, into, i, 0);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            clientIa.close(CloseFlags.ABRUPT_FLAG);
            serverIa.close(CloseFlags.ABRUPT_FLAG);
            arena.close();
        }
    }

    /** A word of shared memory. */
    @State(Scope.Thread)
    public static class Floor
    {
        private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
        private final Arena arena = Arena.ofShared();
        final MemorySegment word = arena.allocate(64, 64);

        @TearDown(Level.Trial)
        public void tearDown()
        {
            arena.close();
        }
    }

    /** {@code dat_evd_dequeue} of a connected shm endpoint's receive EVD that has nothing. */
    @Benchmark
    public DatStatus jdatDequeueEmpty(final Jdat s)
    {
        final DatStatus st = s.recv.dequeue(s.event);
        if (st != DatStatus.QUEUE_EMPTY)
        {
            throw new IllegalStateException("nothing was sent, yet the dequeue said " + st);
        }
        return st;
    }

    /**
     * Aeron IPC's poll of a subscription with nothing published, on {@link MessageRateBenchmark}'s
     * state (a group of one thread: that state is the group's).
     */
    @Benchmark
    @Group("aeronPollEmpty")
    @GroupThreads(1)
    public int aeronPoll(final MessageRateBenchmark.AeronIpc s)
    {
        return s.subscription.poll(s.handler, 1);
    }

    /** The clock a spinning {@code dat_evd_wait} reads for its deadline, its spin's end and its yields. */
    @Benchmark
    public long clock()
    {
        return System.nanoTime();
    }

    /** The spin hint each of these loops gives between two empty passes ({@code PAUSE} on x86). */
    @Benchmark
    public void pause()
    {
        Thread.onSpinWait();
    }

    /** One acquire load of a word of shared memory. */
    @Benchmark
    public int floorLoad(final Floor s)
    {
        return (int) Floor.INT.getAcquire(s.word, 0L);
    }
}

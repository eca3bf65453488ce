package io.jdat.bench;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import java.util.concurrent.TimeUnit;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * {@code dat_evd_dequeue} beside a queue poll, on one thread. An EVD is a multi-producer,
 * multi-consumer completion queue (any thread may dequeue; the peer's thread or the IA's may
 * post), so the baseline is JCTools' {@link MpmcAtomicArrayQueue} (the variant without
 * {@code sun.misc.Unsafe}, as the other baselines here). Two cases: a non-empty queue (one event
 * posted with {@code dat_evd_post_se} and dequeued, against one offer and one poll) and an empty
 * one (a dequeue that finds nothing, against a poll of an empty queue), which is what a polling
 * consumer does between completions.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"})
public class EvdPollBenchmark
{
    /** A software EVD of a loopback IA, and the events posted and taken. */
    @State(Scope.Thread)
    public static class Jdat
    {
        InterfaceAdapter ia;
        EventDispatcher evd;
        final DatEvent posted = new DatEvent();
        final DatEvent taken = new DatEvent();

        @Setup(Level.Trial)
        public void setup()
        {
            ia = Dat.iaOpen("loopback", 16, new DatOut<>());
            evd = ia.evdCreate(64, null, EvdFlags.SOFTWARE_FLAG);
            posted.eventNumber = EventNumber.SOFTWARE_EVENT.value();
            posted.software.pointer = posted;
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    /** The baseline's queue. */
    @State(Scope.Thread)
    public static class Baseline
    {
        final MpmcAtomicArrayQueue<Object> queue = new MpmcAtomicArrayQueue<>(64);
        final Object token = new Object();
    }

    /** dat_evd_post_se, then dat_evd_dequeue of that event. */
    @Benchmark
    public Object jdatPostDequeue(final Jdat s)
    {
        s.evd.postSe(s.posted);
        if (s.evd.dequeue(s.taken) != DatStatus.SUCCESS)
        {
            throw new IllegalStateException("the posted event was not dequeued");
        }
        return s.taken.software.pointer;
    }

    /** dat_evd_dequeue of an empty EVD. */
    @Benchmark
    public DatStatus jdatDequeueEmpty(final Jdat s)
    {
        return s.evd.dequeue(s.taken);
    }

    /** One offer and one poll. */
    @Benchmark
    public Object baselineOfferPoll(final Baseline s)
    {
        s.queue.offer(s.token);
        return s.queue.poll();
    }

    /** A poll of an empty queue. */
    @Benchmark
    public Object baselinePollEmpty(final Baseline s)
    {
        return s.queue.poll();
    }
}

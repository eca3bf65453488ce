package io.jdat.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The publication rules of {@link SpscRing} (Lincheck): one producer thread claims, fills and
 * commits records, one consumer thread reads them, over a ring in a heap {@link MemorySegment}
 * (the same code the mapped file runs). Every record carries its sequence number and words derived
 * from it, so a record read before all of it was written (torn), one the producer overwrote too
 * early (stale), or one out of order gives a result {@link Model} never gives. The ring starts
 * near its end, so records wrap behind a PAD record in most scenarios. The model is the Lamport
 * queue of the class comment: a record of {@code size} bytes (plus the PAD before it when it would
 * cross the end) fits when {@code tail + need - head <= capacity}.
 *
 * <p>The check runs in Lincheck's stress mode: real threads, so the release/acquire pairs are
 * exercised by the hardware and the JIT. Its model checker is no help here: it switches threads
 * only at accesses to fields and arrays and sees the ring's {@code MemorySegment} stores and loads
 * as opaque calls, so every produce and consume would run as one step (a producer that published
 * before it wrote passed 4,000 model-checked runs; the stress mode caught it). Records stream
 * through a ring continuously in {@link SpscRingStressTest}.
 * {@code -Djdat.lincheck.long=true} runs 100 times as many runs.
 */
@Tag("lincheck")
// public for Lincheck, so javac's module check sees JUnit's annotations (class path, not exported)
// on a public type of an exported package: they are the test's, no API
@SuppressWarnings("exports")
// Lincheck transforms the classes a test reaches on first use: the first test of a JVM takes long
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class SpscRingLincheckTest
{
    static final int CAPACITY = 256;
    /**
     * Where both positions start: two laps and 48 bytes before the end (a multiple of
     * {@link SpscRing#ALIGN}), so a record soon wraps.
     */
    static final long START = 3 * CAPACITY - 48;
    /** The records it takes to move the ring to {@link #START}: eleven of 64 bytes, one of 16. */
    static final long PRELUDE = 12;
    static final int DATA = 0x7;
    static final int RECORD_HEADER = 16;
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;

    private final SpscRing producer;
    private final SpscRing consumer;
    private long nextProduced;
    private long nextConsumed;

    // the constructor moves the ring with the operations Lincheck calls later; nothing extends
    // this class (Lincheck wants it public and instantiates it itself)
    @SuppressWarnings("this-escape")
    public SpscRingLincheckTest()
    {
        final MemorySegment control = MemorySegment.ofArray(new long[(int) SpscRing.CONTROL_SIZE / 8]);
        final MemorySegment data = MemorySegment.ofArray(new long[CAPACITY / 8]);
        producer = new SpscRing(control, data);
        consumer = new SpscRing(control, data);
        // move both sides to START with records of 64 bytes (none wraps), then one of 16
        while (producer.position() < START)
        {
            final long left = START - producer.position();
            final int words = left >= 64 ? 6 : (int) (left - RECORD_HEADER) / 8;
            if (produce(words) < 0 || consume() < 0)
            {
                throw new IllegalStateException("could not move the ring to its start");
            }
        }
        if (producer.position() != START || nextProduced != PRELUDE)
        {
            throw new IllegalStateException("the ring starts at " + producer.position() + " after " + nextProduced);
        }
    }

    static long word(final long seq, final int i)
    {
        return seq * 0x9E37_79B9_7F4A_7C15L + i;
    }

    /** Writes record {@code seq} of {@code words} words; returns its sequence number, or -1 if the ring is full. */
    @Operation(nonParallelGroup = "producer")
    public long produce(@Param(gen = IntGen.class, conf = "0:5") final int words)
    {
        final int length = RECORD_HEADER + 8 * words;
        final long at = producer.claim(length);
        if (at < 0)
        {
            return -1;
        }
        final MemorySegment d = producer.data();
        final long seq = nextProduced++;
        d.set(ValueLayout.JAVA_INT, at + 4, DATA);
        d.set(ValueLayout.JAVA_LONG, at + 8, seq);
        for (int i = 0; i < words; i++)
        {
            d.set(ValueLayout.JAVA_LONG, at + RECORD_HEADER + 8L * i, word(seq, i));
        }
        producer.commit();
        return seq;
    }

    /**
     * Reads the next record as {@code ShmChannel} does (skipping a PAD); returns its sequence
     * number, -1 if none is published, or {@code -1000 - seq} if any of its bytes is not what
     * the producer wrote for it.
     */
    @Operation(nonParallelGroup = "consumer")
    public long consume()
    {
        long avail = consumer.available();
        while (avail > 0)
        {
            final long at = consumer.readIndex();
            final long toEnd = consumer.toEnd();
            final MemorySegment d = consumer.data();
            final int length = d.get(ValueLayout.JAVA_INT, at);
            final int type = d.get(ValueLayout.JAVA_INT, at + 4);
            if (type == Frame.PAD)
            {
                if (length != toEnd || toEnd > avail)
                {
                    return -2;
                }
                consumer.consume(toEnd);
                avail -= toEnd;
                continue;
            }
            final long seq = d.get(ValueLayout.JAVA_LONG, at + 8);
            final int words = (length - RECORD_HEADER) / 8;
            boolean intact = type == DATA && length >= RECORD_HEADER && length <= toEnd
                && SpscRing.aligned(length) <= avail && seq == nextConsumed;
            for (int i = 0; intact && i < words; i++)
            {
                intact = d.get(ValueLayout.JAVA_LONG, at + RECORD_HEADER + 8L * i) == word(seq, i);
            }
            nextConsumed++;
            consumer.consume(SpscRing.aligned(length));
            return intact ? seq : -1000 - seq;
        }
        return -1;
    }

    @Test
    void stress()
    {
        new StressOptions()
            // the first scenarios also transform the classes they reach, which on a loaded
            // machine can take longer than Lincheck's 30 s per run
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 10)
            .invocationsPerIteration(LONG ? 2_000 : 200)
            .threads(2)
            .actorsPerThread(5)
            .actorsBefore(2)
            .actorsAfter(1)
            .sequentialSpecification(Model.class)
            .check(SpscRingLincheckTest.class);
    }

    /** The sequential specification: the ring's byte accounting and a FIFO of sequence numbers. */
    public static final class Model
    {
        private final ArrayDeque<long[]> queue = new ArrayDeque<>();
        private long head = START;
        private long tail = START;
        private long nextSeq = PRELUDE;

        /** Lincheck creates it for each scenario. */
        public Model()
        {
        }

        public long produce(final int words)
        {
            final long size = SpscRing.aligned(RECORD_HEADER + 8 * words);
            final long toEnd = CAPACITY - (tail & (CAPACITY - 1));
            final long need = size <= toEnd ? size : toEnd + size;
            // and the next record's length word, zeroed before this one is published
            if (tail + need + SpscRing.ALIGN - head > CAPACITY)
            {
                return -1;
            }
            tail += need;
            queue.addLast(new long[] {nextSeq, need});
            return nextSeq++;
        }

        public long consume()
        {
            final long[] r = queue.pollFirst();
            if (r == null)
            {
                return -1;
            }
            head += r[1];
            return r[0];
        }
    }
}

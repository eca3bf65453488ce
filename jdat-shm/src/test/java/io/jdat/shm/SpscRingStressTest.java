package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The publication rules of {@link SpscRing} under real threads, as a mapped file sees them: one
 * producer thread and one consumer thread stream records of random sizes (so the ring wraps behind
 * PAD records all the time) through a small ring in native memory for about two seconds. Every
 * record carries its sequence number and words derived from it; the consumer checks each one as
 * {@code ShmChannel} reads it, so a torn record (read before all of it was written), a stale one
 * (overwritten before it was consumed), a lost or repeated one fails the test. This is the
 * continuous counterpart of {@link SpscRingLincheckTest}: the JIT compiles both sides, so a
 * missing release or acquire that let it reorder the record's stores or loads across the
 * length word that publishes each record would show here, and so would a record read past the
 * producer's position (a stale length word from the previous turn of the ring).
 * {@code -Djdat.lincheck.long=true} runs it for 30 s.
 */
class SpscRingStressTest
{
    private static final int CAPACITY = 4096;
    private static final int MAX_WORDS = (CAPACITY / 4 - SpscRingLincheckTest.RECORD_HEADER) / 8;
    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(Boolean.getBoolean("jdat.lincheck.long") ? 30 : 2);

    @Test
    void recordsArriveWholeOnceAndInOrderThroughAWrappingRing() throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment control = arena.allocate(SpscRing.CONTROL_SIZE, 4096);
            final MemorySegment data = arena.allocate(CAPACITY, 4096);
            final SpscRing producer = new SpscRing(control, data);
            final SpscRing consumer = new SpscRing(control, data);
            final AtomicBoolean stop = new AtomicBoolean();
            final CompletableFuture<Long> produced = CompletableFuture.supplyAsync(() -> produce(producer, stop),
                r -> Thread.ofPlatform().daemon().name("ring-producer").start(r));
            final CompletableFuture<Long> consumed = CompletableFuture.supplyAsync(() -> consume(consumer, produced),
                r -> Thread.ofPlatform().daemon().name("ring-consumer").start(r));
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(RUN_NANOS));
            stop.set(true);
            final long n = produced.get(10, TimeUnit.SECONDS);
            assertEquals(n, consumed.get(10, TimeUnit.SECONDS), "records produced and consumed");
        }
    }

    /** Writes records until told to stop; returns how many. */
    private static long produce(final SpscRing ring, final AtomicBoolean stop)
    {
        final SplittableRandom rnd = new SplittableRandom(7);
        final MemorySegment d = ring.data();
        long seq = 0;
        while (!stop.get())
        {
            final int words = rnd.nextInt(MAX_WORDS + 1);
            final int length = SpscRingLincheckTest.RECORD_HEADER + 8 * words;
            long at;
            while ((at = ring.claim(length)) < 0)
            {
                if (stop.get())
                {
                    // the consumer may have failed and stopped reading
                    return seq;
                }
                Thread.onSpinWait();
            }
            // the length word is the ring's: commit stores it, last
            d.set(ValueLayout.JAVA_INT, at + 4, SpscRingLincheckTest.DATA);
            d.set(ValueLayout.JAVA_LONG, at + 8, seq);
            for (int i = 0; i < words; i++)
            {
                d.set(ValueLayout.JAVA_LONG, at + SpscRingLincheckTest.RECORD_HEADER + 8L * i,
                    SpscRingLincheckTest.word(seq, i));
            }
            ring.commit();
            seq++;
        }
        return seq;
    }

    /** Reads and checks records until the producer is done and the ring is empty; returns how many. */
    private static long consume(final SpscRing ring, final CompletableFuture<Long> produced)
    {
        final MemorySegment d = ring.data();
        long expected = 0;
        while (true)
        {
            // the record's length word publishes it, as ShmChannel reads it: never the tail
            final int length = ring.next();
            if (length == 0)
            {
                if (produced.isDone() && ring.next() == 0)
                {
                    return expected;
                }
                Thread.onSpinWait();
                continue;
            }
            final long at = ring.readIndex();
            final long toEnd = ring.toEnd();
            final int type = d.get(ValueLayout.JAVA_INT, at + 4);
            if (type == Frame.PAD)
            {
                assertEquals(toEnd, length, "PAD length");
                ring.consume(toEnd);
                continue;
            }
            assertEquals(SpscRingLincheckTest.DATA, type, "record type");
            final long seq = d.get(ValueLayout.JAVA_LONG, at + 8);
            assertEquals(expected, seq, "a record lost, repeated or out of order");
            final int words = (length - SpscRingLincheckTest.RECORD_HEADER) / 8;
            if (length < SpscRingLincheckTest.RECORD_HEADER || words > MAX_WORDS || length > toEnd)
            {
                throw new AssertionError("record " + seq + " has length " + length + " (" + toEnd + " before the end)");
            }
            for (int i = 0; i < words; i++)
            {
                final long w = d.get(ValueLayout.JAVA_LONG, at + SpscRingLincheckTest.RECORD_HEADER + 8L * i);
                if (w != SpscRingLincheckTest.word(seq, i))
                {
                    throw new AssertionError("record " + seq + " is torn or stale at word " + i);
                }
            }
            ring.consume(SpscRing.aligned(length));
            expected++;
        }
    }
}

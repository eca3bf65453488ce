package io.jdat.conformance;

import io.jdat.engine.MovingEventRingHarness;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code nonthreadsafe} IA's EVD ring moved into a counting ring by a producer's thread while its
 * one consumer takes without a lock (Lincheck, through {@link MovingEventRingHarness}): the move
 * must neither lose an event nor let the consumer take one twice, once from each ring.
 */
@Tag("lincheck")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class EventRingMoveLincheckTest
{
    private static final int QLEN = 16;

    private final MovingEventRingHarness ring = new MovingEventRingHarness(QLEN);

    /** {@code dat_evd_dequeue}'s take, on the consumer's thread. */
    @Operation(nonParallelGroup = "consumer")
    public String take()
    {
        return ring.take();
    }

    /** A completion from a thread other than the consumer's. */
    @Operation
    public String otherPost(@Param(gen = IntGen.class, conf = "1:9") final int value)
    {
        return ring.otherPost(value);
    }

    /** The move to a counting ring, on a producer's thread. */
    @Operation
    public void moveToCounting()
    {
        ring.moveToCounting();
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .iterations(30)
            .invocationsPerIteration(300)
            .threads(2)
            .actorsPerThread(2)
            .actorsBefore(2)
            .actorsAfter(2)
            .sequentialSpecification(Model.class)
            .check(EventRingMoveLincheckTest.class);
    }

    /** The sequential specification: a FIFO of at most {@link #QLEN} events; a move changes nothing. */
    public static final class Model
    {
        private final ArrayDeque<Integer> queue = new ArrayDeque<>();

        public String otherPost(final int value)
        {
            if (queue.size() == QLEN)
            {
                return "FULL";
            }
            queue.addLast(value);
            return "OK";
        }

        public String take()
        {
            return queue.isEmpty() ? "EMPTY" : "TOOK " + queue.removeFirst();
        }

        public void moveToCounting()
        {
        }
    }
}

package io.jdat.conformance;

import io.jdat.engine.EventRingHarness;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Linearizability of a {@code nonthreadsafe} IA's EVD ring (Lincheck, through
 * {@link EventRingHarness}): the consumer's thread posting on the endpoint that claims for the EVD
 * claims records with no read-modify-write, the thread dequeuing takes them (DAT serialises a
 * {@code nonthreadsafe} IA's calls per handle: the endpoint's posts on one thread at a time, the
 * EVD's dequeues on one thread at a time, the two on two threads at once), while other threads
 * claim as every other producer does, and close the ring, count it and open it again, as a resize
 * does. All of it must agree with {@link Model}, a FIFO of {@link #QLEN} events: nothing lost,
 * nothing twice, in one order.
 */
@Tag("lincheck")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class EventRingSingleConsumerLincheckTest
{
    /**
     * Room for every post of a scenario: a post that finds the ring full counts the positions other
     * posts claimed and have not yet published, which a take does not see (on every EVD ring, the
     * threadsafe one too), so a full ring is not a state this model can agree on.
     */
    static final int QLEN = 16;
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;

    private final EventRingHarness ring = new EventRingHarness(QLEN);

    /** A completion claimed on the consumer's thread posting on the claiming endpoint, in its own call. */
    @Operation(nonParallelGroup = "claimer")
    public String consumerPost(@Param(gen = IntGen.class, conf = "1:9") final int value)
    {
        return ring.consumerPost(value);
    }

    /** {@code dat_evd_dequeue}'s take, on the thread dequeuing the EVD. */
    @Operation(nonParallelGroup = "taker")
    public String take()
    {
        return ring.take();
    }

    /** A completion from any other thread (a peer's poster, a channel's thread, the EVD's lock). */
    @Operation
    public String otherPost(@Param(gen = IntGen.class, conf = "1:9") final int value)
    {
        return ring.otherPost(value);
    }

    /** A resize's close, its count of the queued events, and (when they do not fit) its reopen. */
    @Operation
    public int closeCountReopen()
    {
        return ring.closeCountReopen();
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 30)
            .invocationsPerIteration(LONG ? 1_000 : 200)
            .threads(3)
            .actorsPerThread(2)
            .actorsBefore(1)
            .actorsAfter(2)
            .sequentialSpecification(Model.class)
            .check(EventRingSingleConsumerLincheckTest.class);
    }

    /**
     * The race the consumer's claim must win in every interleaving: it and another thread claim the
     * next record while a third closes the ring, counts it and opens it again; then the consumer
     * takes everything. Once with the take on the claiming thread, once on the other claimer's.
     */
    @Test
    void aConsumerClaimRacingAnotherAndAClose()
    {
        LincheckActors.checkScenarios(EventRingSingleConsumerLincheckTest.class, Model.class,
            new ExecutionScenario(
                List.of(actor("consumerPost", 1)),
                List.of(List.of(actor("consumerPost", 2), actor("take")), List.of(actor("otherPost", 3)),
                    List.of(actor("closeCountReopen"))),
                List.of(actor("take"), actor("take"), actor("take"), actor("take")),
                null),
            new ExecutionScenario(
                List.of(actor("consumerPost", 1)),
                List.of(List.of(actor("consumerPost", 2)), List.of(actor("otherPost", 3), actor("take")),
                    List.of(actor("closeCountReopen"))),
                List.of(actor("take"), actor("take"), actor("take"), actor("take")),
                null));
    }

    private static Actor actor(final String name, final Object... args)
    {
        return LincheckActors.actor(EventRingSingleConsumerLincheckTest.class, name, args);
    }

    @Test
    void stress()
    {
        new StressOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 10)
            .invocationsPerIteration(LONG ? 2_000 : 300)
            .threads(3)
            .actorsPerThread(3)
            .sequentialSpecification(Model.class)
            .check(EventRingSingleConsumerLincheckTest.class);
    }

    /** The sequential specification: a FIFO of at most {@link #QLEN} events. */
    public static final class Model
    {
        private final ArrayDeque<Integer> queue = new ArrayDeque<>();

        public String consumerPost(final int value)
        {
            return otherPost(value);
        }

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

        public int closeCountReopen()
        {
            return queue.size();
        }
    }
}

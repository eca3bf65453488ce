package io.jdat.conformance;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.EvdState;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Linearizability of one EVD's queue (Lincheck): software events posted from several threads
 * ({@code dat_evd_post_se}), taken with {@code dat_evd_dequeue} and with {@code dat_evd_wait} at a
 * threshold and no timeout, the EVD made unwaitable and
 * waitable again, and its state queried, must each look atomic and agree with {@link Model}, a
 * bounded FIFO written from the man pages: {@code dat_evd_post_se} is {@code DAT_QUEUE_FULL} on a
 * full queue and loses nothing; a wait whose threshold is met returns the oldest event; one that
 * is not met returns {@code DAT_TIMEOUT_EXPIRED} with the count; an unwaitable EVD refuses waiters
 * with {@code DAT_INVALID_STATE} but still dequeues. The {@code nmore} of a wait that took an event
 * is read after the take, a snapshot (the man page's word) that a racing post or take may change
 * first, so here it is only checked not to be negative; {@link EvdTest} checks it exactly where
 * nothing races.
 *
 * <p>The model checker runs every operation under chosen thread switches at each shared access of
 * the engine; the stress run uses real threads. Both use small queues, so full and empty queues
 * happen in most scenarios. A wait that blocks is not among the operations: the model checker lets
 * a parked thread wake spuriously, so it cannot see a missed wake-up; {@link EvdWakeupStressTest}
 * races blocked waiters on real threads. {@code -Djdat.lincheck.long=true} runs 100 scenarios of
 * 1,000 model-checked runs and 100 of 2,000 stress runs (the whole long set: docs/reliability.md).
 */
@Tag("lincheck")
// Lincheck transforms the classes a test reaches on first use: the first test of a JVM takes long
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class EvdLincheckTest
{
    /** The queue length of each EVD under test. */
    static final int QLEN = 3;
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;
    /** One IA for every scenario; each scenario gets a new EVD. */
    private static final Fixture FIXTURE = new Fixture(Fixture.loopbackWith("evd_spin_us=0 " + Fixture.RING_EVD));

    private final EventDispatcher evd = FIXTURE.ia.evdCreate(QLEN, null, EvdFlags.SOFTWARE_FLAG);

    @AfterAll
    static void closeIa()
    {
        FIXTURE.close();
    }

    @Operation
    public String postSe(@Param(gen = IntGen.class, conf = "1:9") final int value)
    {
        try
        {
            return evd.postSe(new DatEvent().software(value)).type().name();
        }
        catch (final DatException e)
        {
            return e.type().name();
        }
    }

    @Operation
    public String dequeue()
    {
        final DatEvent ev = new DatEvent();
        try
        {
            final DatStatus s = evd.dequeue(ev);
            return s.isSuccess() ? "SUCCESS " + ev.software.pointer : s.type().name();
        }
        catch (final DatException e)
        {
            return e.type().name();
        }
    }

    /** {@code dat_evd_wait} with a timeout of zero: it never blocks. */
    @Operation
    public String waitNow(@Param(gen = IntGen.class, conf = "1:3") final int threshold)
    {
        return waitFor(0, threshold);
    }

    /**
     * {@code dat_evd_wait} that may block (up to 10 s): only in {@link #unwaitableRacingParkedWait},
     * whose other thread always ends it, so it is no {@code @Operation} of the random scenarios.
     */
    public String waitBlocking(final int threshold)
    {
        return waitFor(10_000_000, threshold);
    }

    /** {@code dat_evd_wait} for {@code timeoutMicros}: its status, event and {@code nmore} as text. */
    private String waitFor(final long timeoutMicros, final int threshold)
    {
        final DatEvent ev = new DatEvent();
        final DatCount nmore = new DatCount(-1);
        try
        {
            final DatStatus s = evd.wait(timeoutMicros, threshold, ev, nmore);
            if (!s.isSuccess())
            {
                return s.type().name() + " nmore " + nmore.value;
            }
            // the count after a take is read once the event is taken: a snapshot (DAT's word) of the
            // positions after it, which a post or a take racing the wait may change before it is read
            return "SUCCESS " + ev.software.pointer + (nmore.value >= 0 ? "" : " nmore " + nmore.value);
        }
        catch (final DatException e)
        {
            return e.type().name();
        }
    }

    @Operation
    public void setUnwaitable()
    {
        evd.setUnwaitable();
    }

    @Operation
    public void clearUnwaitable()
    {
        evd.clearUnwaitable();
    }

    @Operation
    public boolean waitable()
    {
        final EvdParam p = new EvdParam();
        evd.query(EvdParam.FIELD_ALL, p);
        return (p.evdState & EvdState.WAITABLE) != 0;
    }

    /** After each scenario: frees the EVD, so the IA does not collect one per scenario. */
    @Validate
    public void free()
    {
        evd.free();
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            // the first scenarios also transform the classes they reach, which on a loaded
            // machine can take longer than Lincheck's 30 s per run
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 10)
            .invocationsPerIteration(LONG ? 1_000 : 100)
            .threads(3)
            .actorsPerThread(2)
            .actorsBefore(1)
            .actorsAfter(1)
            .sequentialSpecification(Model.class)
            .check(EvdLincheckTest.class);
    }

    /**
     * {@code dat_evd_set_unwaitable} racing a wait that finds its events already queued (the wait
     * that takes them without the EVD lock), and the event that completes the threshold posted after
     * the EVD became unwaitable: the wait either returns before the EVD became unwaitable, with the
     * count it saw then, or is refused. A wait that looked at the waitable flag before the set, and
     * at the queue after the post, returned an event from an unwaitable EVD.
     */
    @Test
    void unwaitableRacingQueuedWait()
    {
        checkUnwaitableRacing("waitNow");
    }

    /**
     * The same race for a wait that found nothing and parked: the post wakes it, and its way out
     * takes the event without the lock unless the set closed that way first. The wait is refused
     * (the EVD became unwaitable before the event that meets its threshold was posted); an event
     * handed to it would be one posted after the EVD became unwaitable.
     */
    @Test
    void unwaitableRacingParkedWait()
    {
        checkUnwaitableRacing("waitBlocking");
    }

    /**
     * Model-checks {@code wait} (threshold 1, and 2 with one event queued first) on one thread
     * against {@code dat_evd_set_unwaitable} and then the post that meets the threshold on another.
     */
    private static void checkUnwaitableRacing(final String wait)
    {
        final ModelCheckingOptions options = new ModelCheckingOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(0)
            .invocationsPerIteration(LONG ? 5_000 : 1_000)
            .sequentialSpecification(Model.class);
        for (final int threshold : new int[] {1, 2})
        {
            options.addCustomScenario(new ExecutionScenario(
                threshold == 1 ? List.of() : List.of(actor("postSe", 5)),
                List.of(List.of(actor("setUnwaitable"), actor("postSe", 6)), List.of(actor(wait, threshold))),
                List.of(actor("waitable")),
                actor("free")));
        }
        options.check(EvdLincheckTest.class);
    }

    private static Actor actor(final String name, final Object... args)
    {
        return LincheckActors.actor(EvdLincheckTest.class, name, args);
    }

    @Test
    void stress()
    {
        new StressOptions()
            // the first scenarios also transform the classes they reach, which on a loaded
            // machine can take longer than Lincheck's 30 s per run
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 10)
            .invocationsPerIteration(LONG ? 2_000 : 300)
            .threads(3)
            .actorsPerThread(3)
            .sequentialSpecification(Model.class)
            .check(EvdLincheckTest.class);
    }

    /** The sequential specification: a FIFO of at most {@link #QLEN} events and a waitable flag. */
    public static final class Model
    {
        private final ArrayDeque<Integer> queue = new ArrayDeque<>();
        private boolean waitable = true;

        public String postSe(final int value)
        {
            if (queue.size() == QLEN)
            {
                return "QUEUE_FULL";
            }
            queue.addLast(value);
            return "SUCCESS";
        }

        public String dequeue()
        {
            return queue.isEmpty() ? "QUEUE_EMPTY" : "SUCCESS " + queue.removeFirst();
        }

        public String waitNow(final int threshold)
        {
            if (!waitable)
            {
                return "INVALID_STATE";
            }
            if (queue.size() >= threshold)
            {
                final int first = queue.removeFirst();
                return "SUCCESS " + first;
            }
            return "TIMEOUT_EXPIRED nmore " + queue.size();
        }

        /** What a blocking wait returned is what a wait of no timeout returns at that moment. */
        public String waitBlocking(final int threshold)
        {
            return waitNow(threshold);
        }

        public void setUnwaitable()
        {
            waitable = false;
        }

        public void clearUnwaitable()
        {
            waitable = true;
        }

        public boolean waitable()
        {
            return waitable;
        }
    }
}

package io.jdat.conformance;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.EvdState;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link EvdLincheckTest}'s race of {@code dat_evd_set_unwaitable} against a wait, on an EVD of a
 * {@code nonthreadsafe} IA: its one consumer enters the wait's take without the lock by a store
 * of its own word and a look at the closed bit, no read-modify-write, and the set, which closes
 * that way and then waits for a take already in it, must still either see the wait's take or be
 * seen by it. The wait returns before the EVD became unwaitable, with the count it saw then, or is
 * refused; it never hands out the event posted after the set ({@link EvdLincheckTest.Model}).
 */
@Tag("lincheck")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class EvdSingleConsumerLincheckTest
{
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;
    private static final Fixture FIXTURE =
        new Fixture(Fixture.loopbackWith("evd_spin_us=0 " + Fixture.RING_EVD, false), false);

    private final EventDispatcher evd = FIXTURE.ia.evdCreate(EvdLincheckTest.QLEN, null, EvdFlags.SOFTWARE_FLAG);

    @AfterAll
    static void closeIa()
    {
        FIXTURE.close();
    }

    public String postSe(final int value)
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

    /** {@code dat_evd_wait} with a timeout of zero. */
    public String waitNow(final int threshold)
    {
        return waitFor(0, threshold);
    }

    /** {@code dat_evd_wait} that may block (up to 10 s); the other thread always ends it. */
    public String waitBlocking(final int threshold)
    {
        return waitFor(10_000_000, threshold);
    }

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
            return "SUCCESS " + ev.software.pointer + (nmore.value >= 0 ? "" : " nmore " + nmore.value);
        }
        catch (final DatException e)
        {
            return e.type().name();
        }
    }

    public void setUnwaitable()
    {
        evd.setUnwaitable();
    }

    public boolean waitable()
    {
        final EvdParam p = new EvdParam();
        evd.query(EvdParam.FIELD_ALL, p);
        return (p.evdState & EvdState.WAITABLE) != 0;
    }

    /** After each scenario: frees the EVD. */
    @Validate
    public void free()
    {
        evd.free();
    }

    /**
     * The set and then the post that meets the threshold on one thread, a wait that finds events
     * queued on the other.
     */
    @Test
    void unwaitableRacingQueuedWait()
    {
        check("waitNow");
    }

    /**
     * The same for a wait that found nothing and parked: the post wakes it, and its way out takes
     * without the lock.
     */
    @Test
    void unwaitableRacingParkedWait()
    {
        check("waitBlocking");
    }

    private static void check(final String wait)
    {
        final ModelCheckingOptions options = new ModelCheckingOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(0)
            .invocationsPerIteration(LONG ? 5_000 : 1_000)
            .sequentialSpecification(EvdLincheckTest.Model.class);
        for (final int threshold : new int[] {1, 2})
        {
            options.addCustomScenario(new ExecutionScenario(
                threshold == 1 ? List.of() : List.of(actor("postSe", 5)),
                List.of(List.of(actor("setUnwaitable"), actor("postSe", 6)), List.of(actor(wait, threshold))),
                List.of(actor("waitable")),
                actor("free")));
        }
        options.check(EvdSingleConsumerLincheckTest.class);
    }

    private static Actor actor(final String name, final Object... args)
    {
        return LincheckActors.actor(EvdSingleConsumerLincheckTest.class, name, args);
    }
}

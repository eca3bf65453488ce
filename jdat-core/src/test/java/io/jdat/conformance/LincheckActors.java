package io.jdat.conformance;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/**
 * The custom scenarios of the Lincheck tests here: an operation of a test class, by name, as an
 * actor, and the model checking of chosen scenarios only (the races a structure must win in every
 * interleaving, which random scenarios may never build).
 */
final class LincheckActors
{
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;

    private LincheckActors()
    {
    }

    /** The public operation {@code name} of {@code test} taking {@code args.length} arguments, as an actor. */
    static Actor actor(final Class<?> test, final String name, final Object... args)
    {
        for (final Method m : test.getMethods())
        {
            if (m.getName().equals(name) && m.getParameterCount() == args.length)
            {
                return new Actor(m, new ArrayList<>(List.of(args)), false, false, false, false, false);
            }
        }
        throw new AssertionError("no operation " + name);
    }

    /**
     * Model-checks {@code test} on {@code scenarios} alone against {@code model}: 1,000 interleavings
     * each (5,000 with {@code -Djdat.lincheck.long=true}).
     */
    static void checkScenarios(final Class<?> test, final Class<?> model, final ExecutionScenario... scenarios)
    {
        final ModelCheckingOptions options = new ModelCheckingOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(0)
            .invocationsPerIteration(LONG ? 5_000 : 1_000)
            .sequentialSpecification(model);
        for (final ExecutionScenario s : scenarios)
        {
            options.addCustomScenario(s);
        }
        options.check(test);
    }
}

package io.jdat.conformance;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;

/** The custom scenarios' actors of the Lincheck tests here: an operation of a test class, by name. */
final class LincheckActors
{
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
}

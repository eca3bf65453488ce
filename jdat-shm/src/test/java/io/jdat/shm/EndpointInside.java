package io.jdat.shm;

import io.jdat.Endpoint;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * What a test looks at inside an endpoint of the engine, through reflection (the tests run on
 * the class path, where the engine's package is open to them): its lock, held as a posting thread
 * holds it, and its request ring.
 */
final class EndpointInside
{
    private EndpointInside()
    {
    }

    /** Takes the endpoint's lock on this thread, as a post does. */
    static void lock(final Endpoint ep)
    {
        call(field(ep, "lock"), "lock");
    }

    /** Lets go of the lock {@link #lock} took. */
    static void unlock(final Endpoint ep)
    {
        call(field(ep, "lock"), "unlock");
    }

    /**
     * Requests handed to the channel and reported sent by it, not yet completed: marks left for
     * the lock's holder. The caller holds the lock.
     */
    static int reportedNotRetired(final Endpoint ep)
    {
        final Object q = field(ep, "requests");
        final long head = (long) field(q, "head");
        final long start = (long) field(q, "start");
        final Object[] ring = (Object[]) field(q, "ring");
        int n = 0;
        for (long i = head; i < start; i++)
        {
            if ((boolean) call(ring[(int) (i % ring.length)], "reported"))
            {
                n++;
            }
        }
        return n;
    }

    private static Object field(final Object o, final String name)
    {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass())
        {
            try
            {
                final Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            }
            catch (final NoSuchFieldException e)
            {
                // look in the superclass
            }
            catch (final IllegalAccessException e)
            {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no field " + name + " in " + o.getClass());
    }

    private static Object call(final Object o, final String name)
    {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass())
        {
            try
            {
                final Method m = c.getDeclaredMethod(name);
                m.setAccessible(true);
                return m.invoke(o);
            }
            catch (final NoSuchMethodException e)
            {
                // look in the superclass
            }
            catch (final ReflectiveOperationException e)
            {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no method " + name + " in " + o.getClass());
    }
}

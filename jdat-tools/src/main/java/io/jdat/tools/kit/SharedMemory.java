package io.jdat.tools.kit;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;

/**
 * The {@code shm} provider's shared memory ({@code io.jdat.shm.ShmMemory}), found at run time as
 * the provider itself is: the tools compile against the DAT API alone.
 */
final class SharedMemory implements AutoCloseable
{
    private static final String CLASS = "io.jdat.shm.ShmMemory";

    private final Object memory;

    private SharedMemory(final Object memory)
    {
        this.memory = memory;
    }

    /** {@code ShmMemory.allocate(root, size)}. */
    static SharedMemory allocate(final Path root, final long size)
    {
        try
        {
            final Class<?> c = Class.forName(CLASS);
            final MethodHandle allocate = MethodHandles.publicLookup().findStatic(c, "allocate",
                MethodType.methodType(c, Path.class, long.class));
            return new SharedMemory(allocate.invoke(root, size));
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException("the shm provider's shared memory is not available: " + e, e);
        }
    }

    private Object call(final String method, final Class<?> returns)
    {
        try
        {
            return MethodHandles.publicLookup().findVirtual(memory.getClass(), method,
                MethodType.methodType(returns)).invoke(memory);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(CLASS + "." + method + ": " + e, e);
        }
    }

    MemorySegment memory()
    {
        return (MemorySegment) call("memory", MemorySegment.class);
    }

    byte[] cookie()
    {
        return (byte[]) call("cookie", byte[].class);
    }

    @Override
    public void close()
    {
        call("close", void.class);
    }
}

package io.jdat.tools.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * Pins the calling thread to one CPU, as perftest is run under {@code taskset}: Linux's
 * {@code sched_setaffinity(2)} through {@code java.lang.foreign} (no JNI), for {@code jdat perf
 * --pin}. A measuring tool's setting, never the library's.
 * <pre>
 *   int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask)
 *   int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask)
 *     pid 0: the calling thread (an affinity is a thread's, not a process's)
 *     cpu_set_t: glibc's 1024 bits, CPU n at bit n % 64 of the n / 64th little-endian word
 * </pre>
 * Every way this can fail is an {@link AffinityException} that names the CPU and the cause: not
 * Linux, no native access, a CPU this process may not run on, or a call the kernel refused
 * (with its errno). Nothing is ever skipped silently.
 */
// the downcalls below are restricted methods: this class is the tool's one native binding
@SuppressWarnings("restricted")
final class ThreadAffinity
{
    /** CPUs a glibc {@code cpu_set_t} holds. */
    static final int MAX_CPUS = 1024;
    private static final long MASK_BYTES = MAX_CPUS / 8;
    private static final int EINVAL = 22;
    private static final int EPERM = 1;
    /** Why pinning cannot work in this JVM, or null when it can. */
    private static final String UNSUPPORTED;
    private static final MethodHandle SET;
    private static final MethodHandle GET;
    private static final VarHandle ERRNO;
    private static final long ERRNO_SIZE;

    static
    {
        String whyNot = unsupported(System.getProperty("os.name", ""),
            ThreadAffinity.class.getModule().isNativeAccessEnabled());
        MethodHandle set = null;
        MethodHandle get = null;
        VarHandle errno = null;
        long errnoSize = 0;
        if (whyNot == null)
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final FunctionDescriptor call = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
                final Linker.Option capture = Linker.Option.captureCallState("errno");
                set = linker.downcallHandle(linker.defaultLookup().find("sched_setaffinity").orElseThrow(), call,
                    capture);
                get = linker.downcallHandle(linker.defaultLookup().find("sched_getaffinity").orElseThrow(), call,
                    capture);
                final var state = Linker.Option.captureStateLayout();
                errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                errnoSize = state.byteSize();
            }
            catch (final RuntimeException e)
            {
                whyNot = "sched_setaffinity could not be linked (" + e + ")";
            }
        }
        UNSUPPORTED = whyNot;
        SET = set;
        GET = get;
        ERRNO = errno;
        ERRNO_SIZE = errnoSize;
    }

    private ThreadAffinity()
    {
    }

    /** Thrown when a thread cannot be pinned or its CPUs read; the message names the CPU and why. */
    static final class AffinityException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        AffinityException(final String message)
        {
            super(message);
        }
    }

    /**
     * Why threads cannot be pinned on an OS named {@code osName} with native access
     * {@code nativeAccess}, or null when they can.
     */
    static String unsupported(final String osName, final boolean nativeAccess)
    {
        if (!osName.startsWith("Linux"))
        {
            return "pinning a thread needs Linux's sched_setaffinity, and this is " + osName;
        }
        if (!nativeAccess)
        {
            return "pinning a thread needs native access for " + ThreadAffinity.class.getModule()
                + " (start the JVM with --enable-native-access=ALL-UNNAMED, or =io.jdat.tools on the module path)";
        }
        return null;
    }

    /** Throws why pinning cannot work here, if it cannot. */
    static void requireSupported()
    {
        if (UNSUPPORTED != null)
        {
            throw new AffinityException(UNSUPPORTED);
        }
    }

    /**
     * Parses {@code text}, "CLIENT,SERVER": two CPU numbers, the same one twice allowed. A CPU
     * out of {@code cpu_set_t}'s range, or text that is not two numbers, is refused with a
     * message that names it.
     */
    static int[] parsePair(final String text)
    {
        final String[] parts = text.split(",", -1);
        if (parts.length != 2)
        {
            throw new IllegalArgumentException("--pin: '" + text + "' is not two CPUs, CLIENT,SERVER (e.g. 0,1)");
        }
        final int[] cpus = new int[2];
        for (int i = 0; i < 2; i++)
        {
            try
            {
                cpus[i] = Integer.parseInt(parts[i].strip());
            }
            catch (final NumberFormatException e)
            {
                throw new IllegalArgumentException("--pin: '" + parts[i] + "' is not a CPU number");
            }
            if (cpus[i] < 0 || cpus[i] >= MAX_CPUS)
            {
                throw new IllegalArgumentException("--pin: CPU " + cpus[i] + " does not exist (0 to "
                    + (MAX_CPUS - 1) + ")");
            }
        }
        return cpus;
    }

    /**
     * Throws, naming {@code cpu}, unless the calling thread may run on it now (the CPUs its
     * affinity allows: the machine's online CPUs, less any a cpuset or {@code taskset} took away).
     */
    static void requireAllowed(final int cpu)
    {
        final BitSet allowed = cpus();
        if (cpu < 0 || !allowed.get(cpu))
        {
            throw new AffinityException("--pin: CPU " + cpu + " does not exist or this process may not run on it"
                + " (it may run on " + list(allowed) + ")");
        }
    }

    /** The CPUs the calling thread may run on, as the kernel reports them ({@code sched_getaffinity}). */
    static BitSet cpus()
    {
        requireSupported();
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment mask = a.allocate(MASK_BYTES, 8);
            final MemorySegment errno = a.allocate(ERRNO_SIZE, 8);
            final int r = (int) GET.invokeExact(errno, 0, MASK_BYTES, mask);
            if (r != 0)
            {
                throw new AffinityException("sched_getaffinity failed: " + errno((int) ERRNO.get(errno, 0L)));
            }
            return BitSet.valueOf(mask.toArray(ValueLayout.JAVA_LONG));
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new AffinityException("sched_getaffinity failed: " + e);
        }
    }

    /**
     * Pins the calling thread to {@code cpu} and returns what puts its CPUs back as they were.
     * Throws, naming the CPU, if it cannot: not Linux, no native access, a CPU out of range, or
     * a call the kernel refused (with its errno), and then leaves the thread as it was.
     */
    static Pin pin(final int cpu)
    {
        requireSupported();
        if (cpu < 0 || cpu >= MAX_CPUS)
        {
            throw new AffinityException("--pin: CPU " + cpu + " does not exist (0 to " + (MAX_CPUS - 1) + ")");
        }
        if (Thread.currentThread().isVirtual())
        {
            throw new AffinityException("--pin: a virtual thread cannot be pinned to a CPU");
        }
        final BitSet before = cpus();
        final BitSet one = new BitSet();
        one.set(cpu);
        set(one, "CPU " + cpu);
        return new Pin(cpu, before);
    }

    /** Sets the calling thread's CPUs to {@code cpus}; {@code what} names them in an error. */
    private static void set(final BitSet cpus, final String what)
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment mask = a.allocate(MASK_BYTES, 8);
            final long[] words = cpus.toLongArray();
            MemorySegment.copy(words, 0, mask, ValueLayout.JAVA_LONG, 0, words.length);
            final MemorySegment errno = a.allocate(ERRNO_SIZE, 8);
            final int r = (int) SET.invokeExact(errno, 0, MASK_BYTES, mask);
            if (r != 0)
            {
                throw new AffinityException("--pin: sched_setaffinity(" + what + ") was refused: "
                    + errno((int) ERRNO.get(errno, 0L)));
            }
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new AffinityException("--pin: sched_setaffinity(" + what + ") failed: " + e);
        }
    }

    private static String errno(final int errno)
    {
        return switch (errno)
        {
            case EINVAL -> "errno 22 (EINVAL: no such CPU, or none this process may run on)";
            case EPERM -> "errno 1 (EPERM: not permitted)";
            default -> "errno " + errno;
        };
    }

    /** The calling thread's kernel thread id, from {@code /proc/thread-self}. */
    static long tid()
    {
        try
        {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code cpus} as Linux's CPU lists write them: "0-3,6". */
    static String list(final BitSet cpus)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = cpus.nextSetBit(0); i >= 0; i = cpus.nextSetBit(i + 1))
        {
            final int end = cpus.nextClearBit(i) - 1;
            b.append(b.isEmpty() ? "" : ",").append(i);
            if (end > i)
            {
                b.append('-').append(end);
            }
            i = end;
        }
        return b.isEmpty() ? "none" : b.toString();
    }

    /**
     * A thread pinned to one CPU; {@link #close()}, on the same thread, gives it back the CPUs it
     * had before.
     */
    static final class Pin implements AutoCloseable
    {
        private final int cpu;
        private final BitSet before;
        private final Thread thread = Thread.currentThread();

        private Pin(final int cpu, final BitSet before)
        {
            this.cpu = cpu;
            this.before = before;
        }

        /** The CPU the thread was pinned to. */
        int cpu()
        {
            return cpu;
        }

        /**
         * One line for the tool's output: the thread, its kernel id and the CPUs the kernel now
         * says it may run on (read back, not what was asked). Called on the pinned thread.
         */
        String describe(final String role)
        {
            return role + " thread " + thread.getName() + " (tid " + tid() + ") on CPU " + list(cpus());
        }

        @Override
        public void close()
        {
            if (Thread.currentThread() != thread)
            {
                throw new IllegalStateException("a pin is undone by the thread it pinned");
            }
            set(before, "CPUs " + list(before));
        }
    }
}

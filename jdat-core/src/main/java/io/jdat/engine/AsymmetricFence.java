package io.jdat.engine;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The StoreLoad fence of a Dekker pair split unevenly: a thread on the data path ({@link #light})
 * stores its word and loads the other's with no fence instruction, and the thread on the rare
 * side ({@link #heavy}: a waiter about to park, a lock taken by an engine thread, the end of a
 * direct mode) makes every running thread of the process pass a full fence before it loads the
 * data path's word. That is Linux's {@code membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)}, called
 * through {@code syscall(2)} and {@code java.lang.foreign}: the kernel interrupts every CPU that
 * runs a thread of this process and fences there, and a thread not running passes a fence when it
 * is switched in.
 *
 * <p>Why one of the two sides then sees the other: the light side runs "store A; load B" in
 * program order, the heavy side "store B; fence; membarrier; load A". The fence the kernel forces
 * on the light side's CPU lands between two of its instructions. If it lands after "store A",
 * A is visible to everyone before the call returns, so the heavy side's load sees it; if it lands
 * before, the light side's "load B" runs after it, hence after the heavy side's store, and sees
 * B. Without the call, "store A" could still sit in the light CPU's store buffer while both loads
 * run (x86 and ARM both let a load pass an earlier store to another address), and neither side
 * would see the other: the lost wake-up, or two lock holders.
 *
 * <p>On the light side the compiler must keep the load after the store as well: {@link #light}
 * is {@link VarHandle#acquireFence}, which emits no instruction on x86 but is a barrier to the
 * JIT for every memory access before and after it (HotSpot orders all memory operations around
 * each of its fences). The Java memory model itself says nothing of membarrier; the argument above
 * is the hardware's and the kernel's, as in userspace RCU and the asymmetric fences of other
 * runtimes.
 *
 * <p>Used when the system is Linux on x86-64 or aarch64, this module has native access
 * ({@code --enable-native-access}), the kernel registers the process for the command (Linux 4.14)
 * and the property {@code jdat.membarrier} is not {@code false}. Otherwise {@link #light} and
 * {@link #heavy} are both {@link VarHandle#fullFence}: the symmetric Dekker of before. That is
 * decided once, when the class loads, and said once in the log.
 */
// the downcall below is a restricted method: this class is the core module's one native binding
@SuppressWarnings("restricted")
final class AsymmetricFence
{
    /** Whether {@link #light} is the JIT's barrier alone and {@link #heavy} the system call. */
    static final boolean ASYMMETRIC;
    /** Why not, or null. */
    static final String WHY_NOT;

    private static final int MEMBARRIER_CMD_QUERY = 0;
    private static final int MEMBARRIER_CMD_PRIVATE_EXPEDITED = 1 << 3;
    private static final int MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED = 1 << 4;
    private static final long SYS_MEMBARRIER;
    private static final MethodHandle SYSCALL;

    static
    {
        final String arch = System.getProperty("os.arch", "");
        SYS_MEMBARRIER = "amd64".equals(arch) || "x86_64".equals(arch) ? 324 : "aarch64".equals(arch) ? 283 : -1;
        MethodHandle call = null;
        String whyNot = null;
        if ("false".equals(System.getProperty("jdat.membarrier")))
        {
            whyNot = "-Djdat.membarrier=false";
        }
        else if (!System.getProperty("os.name", "").startsWith("Linux") || SYS_MEMBARRIER < 0)
        {
            whyNot = "not Linux on x86-64 or aarch64";
        }
        else if (!AsymmetricFence.class.getModule().isNativeAccessEnabled())
        {
            whyNot = "no native access for " + AsymmetricFence.class.getModule()
                + " (start the JVM with --enable-native-access=ALL-UNNAMED, or =io.jdat.core on the module path)";
        }
        else
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final MemorySegment syscall = linker.defaultLookup().find("syscall").orElseThrow();
                // long syscall(long number, ...): membarrier(int cmd, unsigned int flags, int cpu_id)
                call = linker.downcallHandle(syscall,
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1));
                whyNot = register(call);
            }
            catch (final Throwable e)
            {
                whyNot = "the system call could not be linked (" + e + ")";
            }
        }
        SYSCALL = whyNot == null ? call : null;
        ASYMMETRIC = whyNot == null;
        WHY_NOT = whyNot;
        System.getLogger("io.jdat.core").log(System.Logger.Level.DEBUG, ASYMMETRIC
            ? "the data path's StoreLoad fences are asymmetric (membarrier)"
            : "the data path's StoreLoad fences are full fences: " + whyNot);
    }

    private AsymmetricFence()
    {
    }

    /** Null when the process is registered and one expedited barrier went through; else why not. */
    private static String register(final MethodHandle call) throws Throwable
    {
        final long commands = (long) call.invokeExact(SYS_MEMBARRIER, (long) MEMBARRIER_CMD_QUERY, 0L, 0L);
        if (commands < 0 || (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
        {
            return "the kernel does not offer MEMBARRIER_CMD_PRIVATE_EXPEDITED (query answered " + commands + ")";
        }
        final long registered = (long) call.invokeExact(SYS_MEMBARRIER,
            (long) MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0L, 0L);
        if (registered != 0)
        {
            return "the kernel refused to register the process (" + registered + ")";
        }
        final long fenced = (long) call.invokeExact(SYS_MEMBARRIER, (long) MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0L, 0L);
        return fenced == 0 ? null : "the first expedited barrier failed (" + fenced + ")";
    }

    /**
     * Between the data path's store and its load of the other side's word: no instruction when
     * asymmetric (the JIT keeps the two in order), else a full fence.
     */
    static void light()
    {
        if (ASYMMETRIC)
        {
            VarHandle.acquireFence();
        }
        else
        {
            VarHandle.fullFence();
        }
    }

    /**
     * Between the rare side's store and its load of the data path's word: a full fence, and when
     * asymmetric a fence forced on every running thread of the process (a system call of a few
     * microseconds that interrupts the other CPUs running this process's threads: rare paths only).
     */
    static void heavy()
    {
        VarHandle.fullFence();
        if (ASYMMETRIC)
        {
            final long r;
            try
            {
                r = (long) SYSCALL.invokeExact(SYS_MEMBARRIER, (long) MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0L, 0L);
            }
            catch (final Throwable e)
            {
                throw new IllegalStateException("membarrier", e);
            }
            if (r != 0)
            {
                // registered at class load and tried once then: the light sides already run without
                // a fence, so no fallback here could restore the ordering
                throw new IllegalStateException("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) answered " + r);
            }
        }
    }
}

package io.jdat.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Linux futexes on words of the shared mapped files, through {@code syscall(2)} and
 * {@code java.lang.foreign} (no JNI): a thread of one process sleeps until a thread of another
 * wakes the word, or until a timeout. Used by {@link ShmPort} so that a peer that publishes a
 * record or consumes one wakes a waiter directly ({@link SpscRing#commit()}).
 * <pre>
 *   futex_waitv(waiters, n, 0, &amp;deadline, CLOCK_MONOTONIC)    sleep on up to 128 words at once
 *     struct futex_waitv { u64 val; u64 uaddr; u32 flags; u32 reserved; }       24 bytes each
 *     returns when a word is woken, or at once when a word no longer holds its val
 *   futex(uaddr, FUTEX_WAKE, INT_MAX, 0, 0, 0)                 wake every sleeper on a word
 * </pre>
 * The words are in shared mappings, so neither call uses the private flag: the kernel keys them
 * by file and offset, and a sleeper in one process is woken from another. {@code futex_waitv}
 * (Linux 5.16) rather than {@code FUTEX_WAIT} because a sleeper waits on every connection of its
 * port and on its own process's bell at once.
 *
 * <p>Available on Linux x86-64 and aarch64 (little-endian: a word is the low half of a ring's
 * 64-bit position) when this module has native access ({@code --enable-native-access}) and the
 * kernel answers a probe; otherwise, or once a call fails, {@link #available()} is false and
 * callers park for a bounded time as they did before. That is said once in the log.
 */
// the downcalls below are restricted methods: this class is the module's one native binding
@SuppressWarnings("restricted")
final class Futex
{
    private static final System.Logger LOG = System.getLogger("io.jdat.shm");
    /** Most words one {@link #waitAny} sleeps on (the kernel's limit). */
    static final int MAX_WAITERS = 128;
    static final int WAITER_SIZE = 24;
    /** Whether the calls can be made at all; false makes every caller park instead. */
    static final boolean SUPPORTED;

    private static final int FUTEX_WAKE = 1;
    private static final int FUTEX2_SIZE_U32 = 0x02;
    private static final int CLOCK_MONOTONIC = 1;
    private static final int EAGAIN = 11;
    private static final int EINTR = 4;
    private static final int ETIMEDOUT = 110;
    private static final int EFAULT = 14;
    private static final long SYS_FUTEX;
    private static final long SYS_FUTEX_WAITV = 449;
    private static final MethodHandle SYSCALL;
    private static final MethodHandle SYSCALL_ERRNO;
    private static final MethodHandle CLOCK_GETTIME;
    private static final VarHandle ERRNO;
    private static final long ERRNO_SIZE;
    /** Cleared when a call failed in a way that will not get better (the log says why, once). */
    private static volatile boolean working;

    static
    {
        final String arch = System.getProperty("os.arch", "");
        SYS_FUTEX = "amd64".equals(arch) || "x86_64".equals(arch) ? 202 : "aarch64".equals(arch) ? 98 : -1;
        MethodHandle call = null;
        MethodHandle callErrno = null;
        MethodHandle clock = null;
        VarHandle errno = null;
        long errnoSize = 0;
        String whyNot = null;
        if (!System.getProperty("os.name", "").startsWith("Linux") || SYS_FUTEX < 0
            || ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN)
        {
            whyNot = "not Linux on x86-64 or aarch64";
        }
        else if (!Futex.class.getModule().isNativeAccessEnabled())
        {
            whyNot = "no native access for " + Futex.class.getModule()
                + " (start the JVM with --enable-native-access=ALL-UNNAMED, or =io.jdat.shm on the module path)";
        }
        else
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final MemorySegment syscall = linker.defaultLookup().find("syscall").orElseThrow();
                // long syscall(long number, ...): the number and six arguments
                final FunctionDescriptor six = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
                call = linker.downcallHandle(syscall, six, Linker.Option.firstVariadicArg(1));
                final Linker.Option errnoOption = Linker.Option.captureCallState("errno");
                callErrno = linker.downcallHandle(syscall, six, Linker.Option.firstVariadicArg(1), errnoOption);
                final var state = Linker.Option.captureStateLayout();
                errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                errnoSize = state.byteSize();
                clock = linker.downcallHandle(linker.defaultLookup().find("clock_gettime").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            }
            catch (final RuntimeException e)
            {
                whyNot = "the native calls could not be linked (" + e + ")";
                call = null;
            }
        }
        SYSCALL = call;
        SYSCALL_ERRNO = callErrno;
        CLOCK_GETTIME = clock;
        ERRNO = errno;
        ERRNO_SIZE = errnoSize;
        if (whyNot == null)
        {
            whyNot = probe();
        }
        SUPPORTED = whyNot == null;
        working = SUPPORTED;
        if (!SUPPORTED)
        {
            LOG.log(System.Logger.Level.INFO, "shm: futex wake-ups are off, " + whyNot
                + "; a waiter parks for at most idle_park_max_ns and a peer cannot wake it early");
        }
    }

    private Futex()
    {
    }

    /** Whether sleepers may use futexes now. */
    static boolean available()
    {
        return working;
    }

    /** Null when futex_waitv answers as it should; else why not. */
    private static String probe()
    {
        try (Arena a = Arena.ofConfined())
        {
            final Sleep s = new Sleep(a, 1);
            final MemorySegment word = a.allocate(4, 4);
            word.set(ValueLayout.JAVA_INT, 0, 1);
            set(s.waiters, 0, word.address(), 0);
            // the word holds 1, not 0: the kernel returns at once with EAGAIN
            final long r = (long) SYSCALL_ERRNO.invokeExact(s.errno, SYS_FUTEX_WAITV, s.waiters.address(), 1L, 0L,
                s.timespec.address(), (long) CLOCK_MONOTONIC, 0L);
            final int e = (int) ERRNO.get(s.errno, 0L);
            if (r != -1 || e != EAGAIN)
            {
                return "futex_waitv answered " + r + " (errno " + e + ") to a probe (Linux 5.16 or later is needed)";
            }
            final long w = (long) SYSCALL.invokeExact(SYS_FUTEX, word.address(), (long) FUTEX_WAKE, 1L, 0L, 0L, 0L);
            return w == 0 ? null : "futex(FUTEX_WAKE) answered " + w + " to a probe";
        }
        catch (final Throwable e)
        {
            return "the probe failed (" + e + ")";
        }
    }

    /** What one sleeping thread needs, allocated once: the waiter entries, the deadline, errno. */
    static final class Sleep
    {
        final MemorySegment waiters;
        final MemorySegment timespec;
        final MemorySegment errno;

        Sleep(final Arena arena, final int entries)
        {
            waiters = arena.allocate((long) entries * WAITER_SIZE, 8);
            timespec = arena.allocate(16, 8);
            errno = arena.allocate(ERRNO_SIZE, 8);
        }
    }

    /** Fills waiter entry {@code i}: sleep while the 32-bit word at {@code address} holds {@code expected}. */
    static void set(final MemorySegment waiters, final int i, final long address, final int expected)
    {
        final long at = (long) i * WAITER_SIZE;
        waiters.set(ValueLayout.JAVA_LONG, at, Integer.toUnsignedLong(expected));
        waiters.set(ValueLayout.JAVA_LONG, at + 8, address);
        waiters.set(ValueLayout.JAVA_INT, at + 16, FUTEX2_SIZE_U32);
        waiters.set(ValueLayout.JAVA_INT, at + 20, 0);
    }

    /**
     * Sleeps until one of the first {@code n} words of {@code s.waiters} is woken or no longer
     * holds its value, or {@code nanos} passed. False if the call failed for good (then
     * {@link #available()} is false from now on and the caller parks instead).
     */
    static boolean waitAny(final Sleep s, final int n, final long nanos)
    {
        try
        {
            if ((int) CLOCK_GETTIME.invokeExact(CLOCK_MONOTONIC, s.timespec) != 0)
            {
                return failed("clock_gettime(CLOCK_MONOTONIC) failed");
            }
            final long ns = s.timespec.get(ValueLayout.JAVA_LONG, 8) + nanos;
            s.timespec.set(ValueLayout.JAVA_LONG, 0, s.timespec.get(ValueLayout.JAVA_LONG, 0) + ns / 1_000_000_000L);
            s.timespec.set(ValueLayout.JAVA_LONG, 8, ns % 1_000_000_000L);
            final long r = (long) SYSCALL_ERRNO.invokeExact(s.errno, SYS_FUTEX_WAITV, s.waiters.address(), (long) n,
                0L, s.timespec.address(), (long) CLOCK_MONOTONIC, 0L);
            if (r >= 0)
            {
                return true;
            }
            final int e = (int) ERRNO.get(s.errno, 0L);
            // EFAULT: a connection's mapping went while its word was armed (the round sees why)
            return e == EAGAIN || e == ETIMEDOUT || e == EINTR || e == EFAULT
                || failed("futex_waitv failed, errno " + e);
        }
        catch (final Throwable e)
        {
            return failed("futex_waitv threw " + e);
        }
    }

    /** Wakes every thread sleeping on the 32-bit word at {@code address}; errors are the sleeper's to time out. */
    static void wake(final long address)
    {
        try
        {
            final long r = (long) SYSCALL.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAKE, (long) Integer.MAX_VALUE,
                0L, 0L, 0L);
            assert r >= -1;
        }
        catch (final Throwable e)
        {
            failed("futex(FUTEX_WAKE) threw " + e);
        }
    }

    private static boolean failed(final String why)
    {
        if (working)
        {
            working = false;
            LOG.log(System.Logger.Level.WARNING, "shm: futex wake-ups turned off, " + why
                + "; waiters park for at most idle_park_max_ns from now on");
        }
        return false;
    }
}

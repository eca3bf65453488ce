package io.jdat.shm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Linux futexes on words of shared mappings, through {@code syscall(2)} and the FFM API: a thread
 * sleeps until another process (or thread) wakes the word, so a peer can wake a waiting I/O thread
 * directly. Available only on Linux 5.16 or later (x86-64, aarch64) with native access enabled for this module
 * ({@code --enable-native-access}); otherwise {@link #AVAILABLE} is false and callers park for a
 * time instead. Every wait has a timeout: a wake that never comes (a peer that died, or one that
 * lies) costs at most that.
 * <pre>
 *   futex_waitv(waiters, n, 0, timeout, CLOCK_MONOTONIC)   one thread, up to 128 words
 *     struct futex_waitv { u64 val; u64 uaddr; u32 flags; u32 reserved; }   (24 bytes)
 *   futex(uaddr, FUTEX_WAKE, n)                           wakes up to n waiters of a word
 * </pre>
 * The words used here are in shared mappings, so no {@code FUTEX_PRIVATE_FLAG}: the kernel keys
 * them by file and offset, and a waiter in one process is woken from another.
 */
final class Futex
{
    static final boolean AVAILABLE;
    /** Most words one {@link #waitAny} waits on (the kernel's limit). */
    static final int MAX_WAITERS = 128;
    static final int WAITER_SIZE = 24;

    private static final int FUTEX_WAKE = 1;
    private static final int FUTEX2_SIZE_U32 = 0x02;
    private static final int CLOCK_MONOTONIC = 1;
    private static final MethodHandle SYSCALL6;
    private static final long SYS_FUTEX;
    private static final long SYS_FUTEX_WAITV;

    static
    {
        MethodHandle h = null;
        long futex = -1;
        long waitv = -1;
        final String arch = System.getProperty("os.arch");
        final boolean linux = System.getProperty("os.name", "").startsWith("Linux");
        if ("amd64".equals(arch) || "x86_64".equals(arch))
        {
            futex = 202;
            waitv = 449;
        }
        else if ("aarch64".equals(arch))
        {
            futex = 98;
            waitv = 449;
        }
        if (linux && futex > 0 && kernelHasWaitv() && Futex.class.getModule().isNativeAccessEnabled())
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final MemorySegment syscall = linker.defaultLookup().find("syscall")
                    .or(() -> SymbolLookup.loaderLookup().find("syscall")).orElseThrow();
                // long syscall(long number, ...): the number and six arguments
                h = linker.downcallHandle(syscall, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1));
            }
            catch (final RuntimeException e)
            {
                h = null;
            }
        }
        SYSCALL6 = h;
        SYS_FUTEX = futex;
        SYS_FUTEX_WAITV = waitv;
        AVAILABLE = h != null;
    }

    private Futex()
    {
    }

    /** Whether the kernel has futex_waitv (Linux 5.16 and later). */
    private static boolean kernelHasWaitv()
    {
        final String[] v = System.getProperty("os.version", "0.0").split("[.-]");
        try
        {
            final int major = Integer.parseInt(v[0]);
            final int minor = v.length > 1 ? Integer.parseInt(v[1]) : 0;
            return major > 5 || major == 5 && minor >= 16;
        }
        catch (final NumberFormatException e)
        {
            return false;
        }
    }

    /**
     * Sleeps until one of {@code n} words described in {@code waiters} (futex_waitv entries,
     * {@link #set}) is woken or differs from its expected value, or {@code nanos} passed; the
     * timespec at {@code timespec} (16 bytes) is absolute on the monotonic clock.
     */
    static void waitAny(final MemorySegment waiters, final int n, final MemorySegment timespec, final long nanos)
    {
        final long deadline = monotonicNanos() + nanos;
        timespec.set(ValueLayout.JAVA_LONG, 0, deadline / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, deadline % 1_000_000_000L);
        try
        {
            final long r = (long) SYSCALL6.invokeExact(SYS_FUTEX_WAITV, waiters.address(), (long) n, 0L,
                timespec.address(), (long) CLOCK_MONOTONIC, 0L);
            assert r >= -1;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException("futex_waitv", e);
        }
    }

    /** Fills waiter entry {@code i}: wait while the 32-bit word at {@code address} holds {@code expected}. */
    static void set(final MemorySegment waiters, final int i, final long address, final int expected)
    {
        final long at = (long) i * WAITER_SIZE;
        waiters.set(ValueLayout.JAVA_LONG, at, Integer.toUnsignedLong(expected));
        waiters.set(ValueLayout.JAVA_LONG, at + 8, address);
        waiters.set(ValueLayout.JAVA_INT, at + 16, FUTEX2_SIZE_U32);
        waiters.set(ValueLayout.JAVA_INT, at + 20, 0);
    }

    /** Wakes every thread sleeping on the 32-bit word at {@code address}. */
    static void wake(final long address)
    {
        try
        {
            final long r = (long) SYSCALL6.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAKE,
                (long) Integer.MAX_VALUE, 0L, 0L, 0L);
            assert r >= -1;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException("futex wake", e);
        }
    }

    /** CLOCK_MONOTONIC in nanoseconds, the clock futex_waitv's timeout is measured on. */
    private static long monotonicNanos()
    {
        return System.nanoTime();
    }
}

package io.jdat.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The foreign-function plumbing the bindings share: the linker, the libraries, and errno. Every
 * binding that can fail with errno is linked with {@code captureCallState("errno")} and takes the
 * calling thread's capture segment as its first argument.
 */
final class Native
{
    static final Linker LINKER = Linker.nativeLinker();
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT;
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final java.lang.foreign.AddressLayout PTR = ValueLayout.ADDRESS;

    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final MemoryLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_VALUE = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** One capture segment per thread, made once (the bindings' first argument). */
    private static final ThreadLocal<MemorySegment> STATE =
        ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    private Native()
    {
    }

    /** A library by its soname, or null with the reason in {@code why[0]}. */
    static SymbolLookup library(final String soname, final String[] why)
    {
        try
        {
            return SymbolLookup.libraryLookup(soname, Arena.global());
        }
        catch (final IllegalArgumentException | IllegalCallerException e)
        {
            why[0] = soname + " cannot be loaded (" + e.getMessage() + ")";
            return null;
        }
    }

    /** The C library. */
    static SymbolLookup libc()
    {
        return LINKER.defaultLookup();
    }

    /** A downcall that captures errno: the handle's first parameter is {@link #state()}. */
    static MethodHandle errnoCall(final SymbolLookup lib, final String name, final FunctionDescriptor fd)
    {
        return LINKER.downcallHandle(symbol(lib, name), fd, ERRNO);
    }

    /** A plain downcall. */
    static MethodHandle call(final SymbolLookup lib, final String name, final FunctionDescriptor fd)
    {
        return LINKER.downcallHandle(symbol(lib, name), fd);
    }

    /** A downcall to a function pointer read from a struct (rdma-core's inline verbs). */
    static MethodHandle pointerCall(final MemorySegment function, final FunctionDescriptor fd)
    {
        return LINKER.downcallHandle(function, fd, Linker.Option.critical(false));
    }

    private static MemorySegment symbol(final SymbolLookup lib, final String name)
    {
        return lib.find(name).orElseThrow(() -> new UnsatisfiedLinkError("no symbol " + name));
    }

    /** The calling thread's errno capture segment. */
    static MemorySegment state()
    {
        return STATE.get();
    }

    /** errno as the last errno-capturing call on this thread left it. */
    static int errno()
    {
        return (int) ERRNO_VALUE.get(STATE.get(), 0L);
    }

    /** {@code strerror}-like text for an errno value. */
    static String describe(final int errno)
    {
        return switch (errno)
        {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 11 -> "EAGAIN";
            case 12 -> "ENOMEM";
            case 13 -> "EACCES";
            case 14 -> "EFAULT";
            case 16 -> "EBUSY";
            case 19 -> "ENODEV";
            case 22 -> "EINVAL";
            case 28 -> "ENOSPC";
            case 38 -> "ENOSYS";
            case 95 -> "EOPNOTSUPP";
            case 98 -> "EADDRINUSE";
            case 99 -> "EADDRNOTAVAIL";
            case 104 -> "ECONNRESET";
            case 110 -> "ETIMEDOUT";
            case 111 -> "ECONNREFUSED";
            case 113 -> "EHOSTUNREACH";
            default -> "errno " + errno;
        } + (errno > 0 ? " (" + errno + ")" : "");
    }

    private static final MethodHandle POLL = LINKER.downcallHandle(libc().find("poll").orElseThrow(),
        FunctionDescriptor.of(INT, PTR, LONG, INT), ERRNO);

    /**
     * {@code poll(2)} on one descriptor for readability ({@code struct pollfd}: 0 fd, 4 events,
     * 6 revents; POLLIN = 1). {@code pollfd} is 8 bytes the caller owns. Returns 1 when readable,
     * 0 on timeout, -1 on error (EINTR included).
     */
    static int pollIn(final MemorySegment pollfd, final int fd, final int timeoutMs)
    {
        pollfd.set(INT, 0, fd);
        pollfd.set(SHORT, 4, (short) 1);
        pollfd.set(SHORT, 6, (short) 0);
        try
        {
            return (int) POLL.invokeExact(state(), pollfd, 1L, timeoutMs);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
    }

    /**
     * {@code poll(2)} on two descriptors for readability; {@code pollfds} is 16 bytes the caller
     * owns. Returns 0 on timeout, -1 on error (EINTR included), else bit 0 set when the first has
     * an event (readable, or an error) and bit 1 when the second is readable.
     */
    static int pollIn(final MemorySegment pollfds, final int fd1, final int fd2, final int timeoutMs)
    {
        pollfds.set(INT, 0, fd1);
        pollfds.set(SHORT, 4, (short) 1);
        pollfds.set(SHORT, 6, (short) 0);
        pollfds.set(INT, 8, fd2);
        pollfds.set(SHORT, 12, (short) 1);
        pollfds.set(SHORT, 14, (short) 0);
        final int n;
        try
        {
            n = (int) POLL.invokeExact(state(), pollfds, 2L, timeoutMs);
        }
        catch (final Throwable t)
        {
            throw Ibv.rethrow(t);
        }
        if (n <= 0)
        {
            return n;
        }
        // the second only when readable: its reader blocks, and an error there must not stall the first
        return (pollfds.get(SHORT, 6) != 0 ? 1 : 0) | ((pollfds.get(SHORT, 14) & 1) != 0 ? 2 : 0);
    }

    /** A NUL-terminated C string at {@code p}, or null for NULL. */
    static String string(final MemorySegment p)
    {
        return p.equals(MemorySegment.NULL) ? null : p.reinterpret(4096).getString(0);
    }
}

package io.jdat.tools.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The unmeasured passes before the first row: repeated while the JIT compiler is still busy,
 * so that no measured round runs beside it, and bounded so that a compiler that never goes
 * quiet costs a few passes, not a hang.
 *
 * <p>Compilation is "busy" while the JVMs' total compilation time (client and, when it runs
 * in another process, server) grew by more than {@link #QUIET_MILLIS} during either of the
 * last {@link #QUIET_PASSES} passes; the first pass always compiles.
 */
final class WarmUp
{
    /** Compilation time a pass may add and still count as quiet. */
    static final long QUIET_MILLIS = 2;
    /**
     * Quiet passes in a row that end the warm-up: the compiler pauses for a pass between
     * bursts (recompiling at a higher tier), so one quiet pass is not yet the end.
     */
    static final int QUIET_PASSES = 2;
    /** The most passes, however busy the compiler stays. */
    static final int MAX_PASSES = 30;
    /** The longest warm-up: no pass starts after this. */
    static final long MAX_NANOS = 5_000_000_000L;

    private WarmUp()
    {
    }

    /**
     * How the warm-up went.
     *
     * @param passes     passes run
     * @param settled    whether the last passes added at most the quiet amount of compilation time each
     * @param lastMillis compilation time added during the last pass, -1 where not measured
     * @param nanos      how long the passes took
     */
    record Result(int passes, boolean settled, long lastMillis, long nanos)
    {
        /** The line {@code jdat perf} prints. */
        String describe()
        {
            final String how = lastMillis < 0 ? "compilation time not available, not checked"
                : (settled ? "settled" : "not settled") + " (JIT compilation " + lastMillis + " ms in the last pass)";
            return String.format(Locale.ROOT, "warm-up: %d pass%s in %.1f s, %s", passes, passes == 1 ? "" : "es",
                nanos / 1e9, how);
        }
    }

    /**
     * Runs {@code pass} until the compilation time {@code compileMillis} reports (negative
     * where it is not available: then one pass, or more while it is not available only before
     * the first) grew by at most {@code quietMillis} during each of {@code quietPasses} passes
     * in a row, or {@code maxPasses} passes ran, or {@code maxNanos} of {@code clock} went by.
     */
    static Result run(final Runnable pass, final LongSupplier compileMillis, final long quietMillis,
        final int quietPasses, final int maxPasses, final long maxNanos, final LongSupplier clock)
    {
        final long started = clock.getAsLong();
        long before = compileMillis.getAsLong();
        int passes = 0;
        int quiet = 0;
        while (true)
        {
            pass.run();
            passes++;
            final long after = compileMillis.getAsLong();
            final long took = clock.getAsLong() - started;
            if (after < 0)
            {
                return new Result(passes, false, -1, took);
            }
            // unknown before the first pass (a server in another process reports after it): not quiet
            final long grew = before < 0 ? Long.MAX_VALUE : after - before;
            before = after;
            quiet = grew <= quietMillis ? quiet + 1 : 0;
            if (quiet >= quietPasses || passes >= maxPasses || took >= maxNanos)
            {
                return new Result(passes, quiet >= quietPasses, grew == Long.MAX_VALUE ? -1 : grew, took);
            }
        }
    }

    /** This JVM's total compilation time in milliseconds, -1 where it is not monitored. */
    static long thisJvmCompileMillis()
    {
        final CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : -1;
    }
}

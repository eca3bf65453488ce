package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileLockInterruptionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * What the fuzz targets that play a hostile peer against a provider share: running one input out
 * of reach of Jazzer's interrupt, waiting for an event through stray interrupts, and collecting
 * the provider's warnings as findings.
 */
public final class FuzzInput
{
    /** The body of one input. */
    @FunctionalInterface
    public interface Body
    {
        void run() throws Exception;
    }

    /**
     * How long one input may run before it counts as a hang: every wait of an input is bounded by
     * a few seconds, and this stays below libFuzzer's {@code -timeout=60} (root {@code pom.xml}),
     * which would end the whole JVM with no word of where the input was.
     */
    static final Duration HANG = Duration.ofSeconds(45);

    private FuzzInput()
    {
    }

    /**
     * Runs {@code body} on a platform thread of its own and waits for it, uninterruptibly, then
     * rethrows what it threw. Jazzer interrupts the fuzzing thread when its time is up; an
     * interrupt is no input of a peer, so the input runs where that interrupt does not reach. An
     * input that an interrupt ended all the same ({@link #byInterrupt}) is no finding: it goes to
     * {@code endedByInterrupt} instead. An input still running after {@link #HANG} is a finding,
     * thrown with the stack of its thread.
     */
    public static void run(final String threadName, final Body body, final Consumer<Exception> endedByInterrupt)
        throws Exception
    {
        run(threadName, body, endedByInterrupt, HANG);
    }

    /** {@link #run(String, Body, Consumer)} with a bound of its own on how long the input may run. */
    static void run(final String threadName, final Body body, final Consumer<Exception> endedByInterrupt,
        final Duration hang) throws Exception
    {
        final FutureTask<Void> run = new FutureTask<>(() ->
        {
            try
            {
                body.run();
            }
            catch (final Exception e)
            {
                // the end of the time box interrupts threads; that ends the input, it is no finding
                if (!byInterrupt(e))
                {
                    throw e;
                }
                endedByInterrupt.accept(e);
            }
            return null;
        });
        // a daemon: an input that hangs must not keep the JVM from ending once it is reported
        final Thread t = Thread.ofPlatform().name(threadName).daemon(true).start(run);
        final long deadline = System.nanoTime() + hang.toNanos();
        boolean interrupted = false;
        while (t.isAlive())
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                if (interrupted)
                {
                    Thread.currentThread().interrupt();
                }
                throw hung(t, hang);
            }
            try
            {
                t.join(Duration.ofNanos(left));
            }
            catch (final InterruptedException e)
            {
                interrupted = true;
            }
        }
        try
        {
            run.get();
        }
        catch (final ExecutionException e)
        {
            if (e.getCause() instanceof Exception x)
            {
                throw x;
            }
            throw (Error) e.getCause();
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The finding of an input whose thread still runs: where that thread is now. */
    private static AssertionError hung(final Thread t, final Duration hang)
    {
        final Throwable where = new Throwable("the input's thread " + t.getName() + ", where it was");
        where.setStackTrace(t.getStackTrace());
        return new AssertionError("the input still ran after " + hang.toSeconds() + " s: a hang", where);
    }

    /** Whether {@code e} is an interrupt of the waiting or I/O-ing thread, not an outcome of the input. */
    public static boolean byInterrupt(final Throwable e)
    {
        for (Throwable t = e; t != null; t = t.getCause())
        {
            if (t instanceof DatException d && d.type() == DatReturnType.INTERRUPTED_CALL
                || t instanceof InterruptedException || t instanceof ClosedByInterruptException
                || t instanceof FileLockInterruptionException)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The next event of {@code evd} within 5 s. A wait that a stray interrupt ended (one no time
     * box asked for) is counted in {@code strayInterrupts} and waited again: it is no outcome of
     * the input, and leaving the input half way would leave its events to the next one.
     */
    public static DatEvent next(final EventDispatcher evd, final String what, final AtomicInteger strayInterrupts)
    {
        final DatEvent ev = new DatEvent();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (true)
        {
            final long left = Math.max(0, (deadline - System.nanoTime()) / 1000);
            try
            {
                final DatStatus s = evd.wait(left, 1, ev, new DatCount());
                assertEquals(DatStatus.SUCCESS, s, "waited 5 s for " + what);
                return ev;
            }
            catch (final DatException e)
            {
                if (e.type() != DatReturnType.INTERRUPTED_CALL || left == 0)
                {
                    throw e;
                }
                // the wait cleared the status
                strayInterrupts.incrementAndGet();
            }
        }
    }

    /** A log handler that adds every record of level WARNING and above to {@code failures}. */
    public static Handler warningsTo(final List<String> failures)
    {
        return new Handler()
        {
            @Override
            public void publish(final LogRecord r)
            {
                if (r.getLevel().intValue() >= Level.WARNING.intValue())
                {
                    failures.add(r.getLoggerName() + ": " + r.getMessage() + (r.getThrown() == null ? ""
                        : " " + r.getThrown()));
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
    }
}

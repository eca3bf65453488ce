package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** How the fuzz targets' harness runs one input: what it rethrows, and what it makes of a hang. */
class FuzzInputTest
{
    @Test
    void anInputThatNeverEndsIsAFindingThatSaysWhereItsThreadIs()
    {
        final AtomicBoolean stop = new AtomicBoolean();
        try
        {
            final AssertionError e = assertThrows(AssertionError.class, () -> FuzzInput.run("spinning-input", () ->
            {
                while (!stop.get())
                {
                    Thread.onSpinWait();
                }
            }, x ->
            {
            }, Duration.ofMillis(300)));
            assertTrue(e.getMessage().contains("a hang"), e.getMessage());
            assertTrue(e.getCause().getMessage().contains("spinning-input"), e.getCause().getMessage());
            assertTrue(Arrays.stream(e.getCause().getStackTrace())
                .anyMatch(f -> f.getClassName().equals(FuzzInputTest.class.getName())),
                "the hung thread's stack names the input's code: " + Arrays.toString(e.getCause().getStackTrace()));
        }
        finally
        {
            stop.set(true);
        }
    }

    @Test
    void anInputThatEndsInTimeGivesBackWhatItThrew()
    {
        final IllegalStateException thrown = new IllegalStateException("the input's own finding");
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> FuzzInput.run("failing-input",
            () ->
            {
                throw thrown;
            }, x ->
            {
            }, Duration.ofSeconds(30)));
        assertEquals(thrown, e);
    }

    @Test
    void anInterruptOfTheCallerNeitherEndsTheInputNorIsLost() throws Exception
    {
        final AtomicBoolean ran = new AtomicBoolean();
        final Thread caller = Thread.currentThread();
        FuzzInput.run("interrupted-input", () ->
        {
            caller.interrupt();
            Thread.sleep(100);
            ran.set(true);
        }, x ->
        {
        }, Duration.ofSeconds(30));
        assertTrue(ran.get(), "the input ran to its end");
        assertTrue(Thread.interrupted(), "the caller's interrupt is kept for it");
        assertFalse(Thread.currentThread().isInterrupted());
    }
}

package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The store-buffering litmus test ("store A; load B" against "store B; load A": both loads may
 * not miss both stores) with the data path's side fenced by {@link AsymmetricFence#light} and the
 * rare side by {@link AsymmetricFence#heavy}, and, as the control that shows the test can see the
 * outcome at all, with neither side fenced.
 */
class AsymmetricFenceTest
{
    private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
    private static final int ROUNDS = 50_000;

    @Test
    void linuxWithNativeAccessRunsTheSystemCall()
    {
        final String arch = System.getProperty("os.arch", "");
        assumeTrue(System.getProperty("os.name", "").startsWith("Linux")
            && ("amd64".equals(arch) || "aarch64".equals(arch))
            && AsymmetricFence.class.getModule().isNativeAccessEnabled()
            && !"false".equals(System.getProperty("jdat.membarrier")));
        assertNull(AsymmetricFence.WHY_NOT);
        assertTrue(AsymmetricFence.ASYMMETRIC);
        // and it goes on working after the first call
        for (int i = 0; i < 100; i++)
        {
            AsymmetricFence.heavy();
        }
    }

    @Test
    void aLightStoreAndLoadNeverMissAHeavySidesStoreBothWays() throws Exception
    {
        assertEquals(0, missedBothWays(ROUNDS, true), "rounds in which each side missed the other's store");
    }

    /**
     * The control: with no fence on either side the outcome the fences forbid shows on a machine
     * with two CPUs that reorders a load before an earlier store (x86 and ARM both do), so the
     * litmus test above can fail. Rounds until it shows, for at most ten seconds.
     */
    @Test
    void withoutTheFencesBothLoadsMissBothStores() throws Exception
    {
        assumeTrue(Runtime.getRuntime().availableProcessors() > 1);
        final long deadline = System.nanoTime() + 10_000_000_000L;
        long missed = 0;
        while (missed == 0 && System.nanoTime() < deadline)
        {
            missed = missedBothWays(ROUNDS, false);
        }
        assertTrue(missed > 0, "the unfenced litmus test never showed the reordering in ten seconds");
    }

    /**
     * Runs {@code rounds} rounds of the litmus test on two threads that meet at every round;
     * {@code fenced}: the light and heavy fences between each side's store and load. Returns the
     * rounds in which both loads read 0.
     */
    private static long missedBothWays(final int rounds, final boolean fenced) throws Exception
    {
        final int[] a = new int[rounds];
        final int[] b = new int[rounds];
        final int[] seenByLight = new int[rounds];
        final int[] seenByHeavy = new int[rounds];
        // each side's round, published for the other to start the next one together
        final int[] go = new int[2 * 16];
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final Thread light = new Thread(() -> side(rounds, go, 0, r ->
        {
            INTS.setRelease(a, r, 1);
            if (fenced)
            {
                AsymmetricFence.light();
            }
            else
            {
                VarHandle.acquireFence();
            }
            return (int) INTS.getOpaque(b, r);
        }, seenByLight, failed), "litmus-light");
        final Thread heavy = new Thread(() -> side(rounds, go, 16, r ->
        {
            if (fenced)
            {
                INTS.setVolatile(b, r, 1);
                AsymmetricFence.heavy();
            }
            else
            {
                INTS.setRelease(b, r, 1);
                VarHandle.acquireFence();
            }
            return (int) INTS.getOpaque(a, r);
        }, seenByHeavy, failed), "litmus-heavy");
        light.start();
        heavy.start();
        light.join();
        heavy.join();
        if (failed.get() != null)
        {
            throw new AssertionError(failed.get());
        }
        long missed = 0;
        for (int r = 0; r < rounds; r++)
        {
            if (seenByLight[r] == 0 && seenByHeavy[r] == 0)
            {
                missed++;
            }
        }
        return missed;
    }

    private static void side(final int rounds, final int[] go, final int mine, final IntUnaryOperator step,
        final int[] seen, final AtomicReference<Throwable> failed)
    {
        final int other = 16 - mine;
        try
        {
            for (int r = 0; r < rounds; r++)
            {
                INTS.setVolatile(go, mine, r);
                while ((int) INTS.getVolatile(go, other) < r)
                {
                    Thread.onSpinWait();
                }
                seen[r] = step.applyAsInt(r);
            }
        }
        catch (final Throwable e)
        {
            failed.set(e);
        }
    }
}

package io.jdat.conformance;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatOut;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.engine.RecvQueueHarness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The receive queue without a lock on real threads, many times over: two threads post receives,
 * one of them sends a message once its own receive is posted, and the connection ends, in half of
 * the rounds while the posts are in flight. Every receive posted completes exactly once, placed
 * or flushed, and none is left behind on the DISCONNECTED endpoint
 * ({@link RecvQueueHarness#checkAndFree}); a Send behind a receive whose post returned always
 * finds a receive, even one still being written by the other thread ahead of it.
 */
class RecvQueueFlushRaceTest
{
    private static final int ROUNDS = 20_000;
    /** Instance data of an IA whose receive EVDs take direct mode (the receive slots hold the completions). */
    private static final String DIRECT = "evd_direct";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {Fixture.RING_EVD, DIRECT})
    void aPostRacingTheEndOfTheConnectionIsFlushedExactlyOnce(final String instanceData) throws Exception
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        final InterfaceAdapter ia = Dat.iaOpen(Fixture.loopbackWith(instanceData), 64, async);
        try (Arena arena = Arena.ofShared())
        {
            final ProtectionZone pz = ia.pzCreate();
            final MemorySegment m = arena.allocate(64, 64);
            final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz,
                MemPriv.ALL_FLAG);
            final CyclicBarrier start = new CyclicBarrier(3);
            final CyclicBarrier end = new CyclicBarrier(3);
            final RecvQueueHarness[] q = new RecvQueueHarness[1];
            final Thread[] posters = new Thread[2];
            final Throwable[] failed = new Throwable[1];
            for (int t = 0; t < posters.length; t++)
            {
                final int cookie = t + 1;
                final boolean sends = t == 1;
                posters[t] = Thread.ofPlatform().daemon().start(() ->
                {
                    try
                    {
                        for (int i = 0; i < ROUNDS; i++)
                        {
                            start.await();
                            q[0].post(cookie);
                            if (sends)
                            {
                                // this thread's receive is posted: the Send finds a receive, even
                                // if the other poster's claim ahead of it is still being written
                                final boolean placed = q[0].send();
                                if (!placed && (i & 1) == 1)
                                {
                                    failed[0] = new AssertionError("round " + i + ": a Send behind a posted "
                                        + "receive found none");
                                }
                            }
                            q[0].post(cookie);
                            end.await();
                        }
                    }
                    catch (final Exception e)
                    {
                        failed[0] = e;
                    }
                });
            }
            for (int i = 0; i < ROUNDS && failed[0] == null; i++)
            {
                q[0] = new RecvQueueHarness(ia, pz, lmr, 8);
                if (q[0].direct() != instanceData.equals(DIRECT))
                {
                    throw new AssertionError("direct mode " + q[0].direct() + " with " + instanceData);
                }
                start.await();
                if ((i & 1) == 0)
                {
                    // the connection ends while the receives are being posted
                    q[0].lose();
                }
                end.await();
                q[0].lose();
                q[0].checkAndFree();
            }
            for (final Thread p : posters)
            {
                p.join();
            }
            if (failed[0] != null)
            {
                throw new AssertionError(failed[0]);
            }
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    /**
     * The same race on an IA from loopback's {@code nonthreadsafe} entry: one consumer thread posts
     * (no atomic claim), the connection ends on another. A post the close did not see is taken
     * back and completed flushed under the endpoint's lock; one the close took is flushed with
     * the rest; never both, never neither.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {Fixture.RING_EVD, DIRECT})
    void aSingleWriterPostRacingTheEndOfTheConnectionIsFlushedExactlyOnce(final String instanceData) throws Exception
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        final InterfaceAdapter ia = Dat.iaOpenv(Fixture.loopbackWith(instanceData, false), 64, async,
            Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        try (Arena arena = Arena.ofShared())
        {
            final ProtectionZone pz = ia.pzCreate();
            final MemorySegment m = arena.allocate(64, 64);
            final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz,
                MemPriv.ALL_FLAG);
            final CyclicBarrier start = new CyclicBarrier(2);
            final CyclicBarrier end = new CyclicBarrier(2);
            final RecvQueueHarness[] q = new RecvQueueHarness[1];
            final Throwable[] failed = new Throwable[1];
            final Thread poster = Thread.ofPlatform().daemon().start(() ->
            {
                try
                {
                    for (int i = 0; i < ROUNDS; i++)
                    {
                        start.await();
                        q[0].post(1);
                        if (!q[0].send() && (i & 1) == 1)
                        {
                            failed[0] = new AssertionError("round " + i + ": a Send behind a posted receive "
                                + "found none");
                        }
                        q[0].post(2);
                        q[0].post(3);
                        end.await();
                    }
                }
                catch (final Exception e)
                {
                    failed[0] = e;
                }
            });
            for (int i = 0; i < ROUNDS && failed[0] == null; i++)
            {
                q[0] = new RecvQueueHarness(ia, pz, lmr, 8);
                if (q[0].direct() != instanceData.equals(DIRECT))
                {
                    throw new AssertionError("direct mode " + q[0].direct() + " with " + instanceData);
                }
                start.await();
                if ((i & 1) == 0)
                {
                    // the connection ends while the receives are being posted
                    q[0].lose();
                }
                end.await();
                q[0].lose();
                q[0].checkAndFree();
            }
            poster.join();
            if (failed[0] != null)
            {
                throw new AssertionError(failed[0]);
            }
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }
}

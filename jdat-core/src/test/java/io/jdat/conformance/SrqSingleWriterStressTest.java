package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import io.jdat.engine.SrqHarness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * A shared receive queue of an IA from loopback's {@code nonthreadsafe} entry, whose posts take
 * no atomic: one consumer thread posts numbered buffers into a small SRQ as fast as it has room,
 * while two endpoints' placers take them on threads of their own and reap them. Every buffer is
 * taken exactly once, whole (its own number, never a slot's earlier one), and each taker sees
 * the numbers rise: buffers leave in posting order.
 */
class SrqSingleWriterStressTest
{
    private static final int BUFFERS = 300_000;

    @Test
    void buffersPostedWithoutAnAtomicAreTakenOnceInOrder() throws Exception
    {
        final InterfaceAdapter ia = Dat.iaOpenv("loopback", 64, new DatOut<EventDispatcher>(), Dat.VERSION_MAJOR,
            Dat.VERSION_MINOR, false);
        try (Arena arena = Arena.ofShared())
        {
            final ProtectionZone pz = ia.pzCreate();
            final MemorySegment m = arena.allocate(64, 64);
            final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz,
                MemPriv.ALL_FLAG);
            final SrqHarness srq = new SrqHarness(ia, pz, lmr, 4);
            final AtomicReferenceArray<String> takenBy = new AtomicReferenceArray<>(BUFFERS);
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicReference<String> failure = new AtomicReference<>();
            final Thread[] takers = new Thread[2];
            for (int t = 0; t < takers.length; t++)
            {
                final String name = "placer-" + t;
                takers[t] = Thread.ofPlatform().daemon().name(name).start(() ->
                {
                    final Object into = SrqHarness.buffer();
                    long last = -1;
                    while (failure.get() == null)
                    {
                        final long cookie = srq.take(into);
                        if (cookie < 0)
                        {
                            if (done.get())
                            {
                                return;
                            }
                            Thread.onSpinWait();
                            continue;
                        }
                        if (cookie <= last || cookie >= BUFFERS)
                        {
                            failure.compareAndSet(null, name + " took " + cookie + " after " + last);
                        }
                        else if (!takenBy.compareAndSet((int) cookie, null, name))
                        {
                            failure.compareAndSet(null, "buffer " + cookie + " taken by " + takenBy.get((int) cookie)
                                + " and " + name);
                        }
                        last = cookie;
                        srq.reap();
                    }
                });
            }
            for (int i = 0; i < BUFFERS && failure.get() == null; i++)
            {
                String s;
                while (!"SUCCESS".equals(s = srq.post(i)))
                {
                    if (!"INSUFFICIENT_RESOURCES".equals(s))
                    {
                        failure.compareAndSet(null, "post " + i + ": " + s);
                        break;
                    }
                    Thread.onSpinWait();
                }
            }
            // let the takers empty it
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (failure.get() == null && takenBy.get(BUFFERS - 1) == null && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            done.set(true);
            for (final Thread t : takers)
            {
                t.join();
            }
            assertEquals(null, failure.get());
            for (int i = 0; i < BUFFERS; i++)
            {
                if (takenBy.get(i) == null)
                {
                    throw new AssertionError("buffer " + i + " was never taken");
                }
            }
            srq.free();
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }
}

package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.logging.Handler;
import java.util.logging.Logger;

/**
 * The consumer's side of a fuzz target that plays a hostile peer: the IA's connection request,
 * receive, request and connection EVDs, the {@link GuardedRegions} memory with region A
 * registered with every right and region B with local rights only, and the findings that reach
 * no assertion on their own: jdat's warnings and uncaught exceptions. Closing stops collecting
 * them.
 */
public final class FuzzVictim implements AutoCloseable
{
    /** Region B's size: what a peer must never change. */
    public static final int B_SIZE = 4096;
    /** The length of each Recv the targets post into region A. */
    public static final int RECV_SIZE = 256;
    /** Where in region A the RDMA Read's data lands ({@link #postRead}), its length and its cookie. */
    public static final int READ_SINK = 1024;
    public static final int READ_SIZE = 256;
    public static final long READ_COOKIE = 100;

    public final EventDispatcher crEvd;
    public final EventDispatcher recvEvd;
    public final EventDispatcher reqEvd;
    public final EventDispatcher connEvd;
    public final MemorySegment memory;
    /** Region A, registered with remote rights. */
    public final Lmr a;
    /** Region B, registered with local rights only. */
    public final Lmr b;
    /** What jdat logged at WARNING or above, and what no thread caught, since the last {@link #clear}. */
    public final List<String> failures = new CopyOnWriteArrayList<>();
    /** The length of each receive posted since the last {@link #clear}, by cookie. */
    private final Map<Long, Integer> recvSizes = new HashMap<>();
    private final int aSize;
    private final int bSize;
    private final Logger log = Logger.getLogger("io.jdat");
    private final Handler handler = FuzzInput.warningsTo(failures);
    private final Thread.UncaughtExceptionHandler previousHandler = Thread.getDefaultUncaughtExceptionHandler();

    /** Makes the EVDs and registers region A ({@code aSize} bytes) and B of {@code node}'s memory. */
    public FuzzVictim(final ProviderNode node, final int aSize)
    {
        this.aSize = aSize;
        this.bSize = B_SIZE;
        crEvd = node.evd(64, EvdFlags.CR_FLAG);
        recvEvd = node.evd(1024, EvdFlags.DTO_FLAG);
        reqEvd = node.evd(1024, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
        connEvd = node.evd(64, EvdFlags.CONNECTION_FLAG);
        memory = node.memory(GuardedRegions.size(aSize, bSize));
        a = node.lmr(regionA(), MemPriv.ALL_FLAG);
        b = node.lmr(memory.asSlice(GuardedRegions.bAt(aSize), bSize),
            MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        // an exception that a provider thread catches and logs, or that nobody catches, fails the input
        log.addHandler(handler);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> failures.add(t.getName() + ": uncaught " + e));
    }

    /** Region A's bytes, the caller's to fill before an input. */
    public MemorySegment regionA()
    {
        return memory.asSlice(GuardedRegions.GUARD, aSize);
    }

    /** Before an input: no findings yet, guards and region B filled. */
    public void clear()
    {
        failures.clear();
        recvSizes.clear();
        GuardedRegions.fillAllButA(memory, aSize, bSize);
    }

    /** After an input: region A may have changed; nothing else may have. */
    public void checkMemory()
    {
        GuardedRegions.checkAllButA(memory, aSize, bSize);
    }

    /** Posts a Recv of region A's bytes [{@code at}, {@code at + size}) on {@code ep}, noted in {@code posted}. */
    public void postRecv(final Endpoint ep, final Map<Long, EventDispatcher> posted, final long cookie,
        final long at, final int size)
    {
        ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(a, at, size)}, cookie, CompletionFlags.DEFAULT_FLAG);
        posted.put(cookie, recvEvd);
        recvSizes.put(cookie, size);
    }

    /**
     * Posts an RDMA Read of {@link #READ_SIZE} bytes from a made-up remote buffer into region A at
     * {@link #READ_SINK}, noted in {@code posted}. A peer that serves no RDMA Reads (IRD 0) gets
     * {@code dat_ep_post_rdma_read}'s documented refusal instead, DAT_INSUFFICIENT_RESOURCES.
     */
    public void postRead(final Endpoint ep, final Map<Long, EventDispatcher> posted)
    {
        try
        {
            ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(a, READ_SINK, READ_SIZE)}, READ_COOKIE,
                new RmrTriplet(0x5EED, 0x10000, READ_SIZE), CompletionFlags.DEFAULT_FLAG);
            posted.put(READ_COOKIE, reqEvd);
        }
        catch (final DatException e)
        {
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type(), e.toString());
        }
    }

    /**
     * After an input: every DTO of {@code posted} (cookie to the EVD it completes on) completes
     * once, none with a local protection error (what an exception inside jdat gives) and none
     * longer than it was posted with; then no EVD holds anything more. Waits go through
     * {@link FuzzInput#next}, counting stray interrupts in {@code strayInterrupts}.
     */
    public void accountFor(final Map<Long, EventDispatcher> posted, final AtomicInteger strayInterrupts)
    {
        final Map<Long, EventDispatcher> open = new HashMap<>(posted);
        while (!open.isEmpty())
        {
            final EventDispatcher evd = open.values().iterator().next();
            final DatEvent ev = FuzzInput.next(evd, "completions of " + open.keySet(), strayInterrupts);
            assertTrue(ev.is(EventNumber.DTO_COMPLETION_EVENT), ev.toString());
            final long cookie = ev.dto.userCookie;
            assertEquals(evd, open.remove(cookie), "cookie " + cookie + " completed twice or never posted: " + ev);
            assertNotEquals(DtoStatus.ERR_LOCAL_PROTECTION, ev.dto.status, "an exception inside jdat: " + ev);
            if (ev.dto.status == DtoStatus.SUCCESS)
            {
                assertTrue(ev.dto.transferredLength <= (cookie == READ_COOKIE ? READ_SIZE
                    : recvSizes.getOrDefault(cookie, RECV_SIZE)), ev.toString());
            }
        }
        assertNoEvent(recvEvd, "a receive completion nobody posted");
        assertNoEvent(reqEvd, "a request completion nobody posted");
        assertNoEvent(connEvd, "a connection event after the end");
        assertNoEvent(crEvd, "a connection request nobody made");
    }

    /** Fails if {@code evd} holds an event. */
    public static void assertNoEvent(final EventDispatcher evd, final String what)
    {
        final DatEvent ev = new DatEvent();
        assertNotEquals(DatStatus.SUCCESS, evd.dequeue(ev), what + ": " + ev);
    }

    /** How many file descriptors this process has open (read with java.io, which an interrupt does not close). */
    public static long openFds()
    {
        final String[] fds = new java.io.File("/proc/self/fd").list();
        return fds == null ? 0 : fds.length;
    }

    /**
     * Waits up to a second for {@code count} to come down to at most {@code limit} (ended
     * connections give their resources back with a delay) and returns what it counts then. Not
     * Thread.sleep: Jazzer interrupts the fuzzing thread when its time is up.
     */
    public static long settle(final LongSupplier count, final long limit)
    {
        long now = count.getAsLong();
        final long deadline = System.nanoTime() + 1_000_000_000L;
        while (now > limit && System.nanoTime() < deadline)
        {
            LockSupport.parkNanos(5_000_000);
            now = count.getAsLong();
        }
        return now;
    }

    @Override
    public void close()
    {
        Thread.setDefaultUncaughtExceptionHandler(previousHandler);
        log.removeHandler(handler);
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.Qos;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directory others may write, filled with more names than an honest one ever holds. A sweep of
 * stale files holds the directory's lock (other processes wait for it {@link ShmDirectory#LOCK_WAIT_NANOS}
 * at most, then fail) and reads names for as long as the directory yields them: a million of them,
 * or new ones made as fast as they are read, would keep it there. Each sweep looks at no more than
 * {@link ShmDirectory#SWEEP_MAX} names; the next sweep goes on with what is left. A process names its
 * own files with its pid and a sequence number, and tries the next number while a name is taken:
 * files put at the names it comes to next would keep it trying. It tries
 * {@link ShmDirectory#NAME_TRIES} names at most, then the call fails.
 *
 * <p>Names a sweep leaves (files its check refuses, live-looking files) could fill the part of the
 * directory one sweep reads, ahead of stale files, for ever: each sweep starts where the last one
 * stopped. And a listen-any looks at every qualifier of its range while they seem taken: it looks
 * without the directory's lock, and holds it to try one qualifier that seems free at a time.
 */
class ShmCrowdedDirectoryTest
{
    /** More stale files than one sweep looks at. */
    private static final int CROWD = ShmDirectory.SWEEP_MAX + 1000;
    /** The default range of {@code dat_psp_create_any} ({@code any_qual_range}). */
    private static final long ANY_LOW = 49152;
    private static final long ANY_HIGH = 65535;

    @TempDir(factory = TestFiles.InShm.class)
    Path root;

    @Test
    void aSweepOfAnAddressLooksAtABoundedNumberOfNames() throws IOException
    {
        final Path address = ShmDirectory.addressDir(root, "srv");
        Planted.names(address, "l-", CROWD, Planted.OWNER_ONLY);
        final int removed = ShmDirectory.sweep(address);
        // the names it looked at: these files, and perhaps the lock file
        assertTrue(removed <= ShmDirectory.SWEEP_MAX && removed >= ShmDirectory.SWEEP_MAX - 1,
            removed + " of " + CROWD + " stale files removed by one sweep");
        assertEquals(CROWD - removed, Planted.count(address, "l-*"));
        // the next sweeps go on with the rest
        ShmDirectory.sweep(address);
        ShmDirectory.sweep(address);
        assertEquals(List.of(), TestFiles.files(address));
    }

    @Test
    void aSweepOfSharedMemoryLooksAtABoundedNumberOfNames() throws IOException
    {
        final Path mem = ShmDirectory.memoryDir(root);
        Planted.names(mem, "m-", CROWD, Planted.OWNER_ONLY);
        // each allocation sweeps first
        ShmMemory.allocate(root, 4096).close();
        final int left = Planted.count(mem, "m-*");
        assertTrue(left >= CROWD - ShmDirectory.SWEEP_MAX && left <= CROWD - ShmDirectory.SWEEP_MAX + 1,
            left + " of " + CROWD + " stale files left after one sweep");
        ShmMemory.allocate(root, 4096).close();
        assertEquals(0, Planted.count(mem, "m-*"));
    }

    @Test
    void aConnectWhoseNextNamesAreAllTakenFailsAndTheNextGoesOn() throws IOException
    {
        try (ShmNode server = ShmNode.open(root, "srv", ""); ShmNode client = ShmNode.open(root, "cli", ""))
        {
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(4801, crEvd, PspFlags.CONSUMER_FLAG);
            final Path srv = root.resolve("srv");
            final long last = ShmPort.SEQUENCE.get();
            for (long s = last + 1; s <= last + ShmDirectory.NAME_TRIES; s++)
            {
                Planted.liveMemory(ShmDirectory.connectionPath(srv, Liveness.SELF_PID << 32 | s));
            }
            final ShmNode.Ep c = client.ep(null);
            final DatException e = assertThrows(DatException.class,
                () -> c.ep().connect(server.address, 4801, 5 * SECOND, null, Qos.BEST_EFFORT, 0));
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.status().type(), e.toString());
            assertTrue(e.getMessage().contains(srv.toString()), e.getMessage());
            // the names it tried are used up: the next connect takes one after them
            c.ep().connect(server.address, 4801, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        }
    }

    @Test
    void anAllocationWhoseNextNamesAreAllTakenFailsAndTheNextGoesOn() throws IOException
    {
        final Path mem = ShmDirectory.memoryDir(root);
        final int last = ShmMemory.SEQUENCE.get();
        for (int s = last + 1; s <= last + ShmDirectory.NAME_TRIES; s++)
        {
            Planted.liveMemory(mem.resolve(ShmMemory.fileName(Liveness.SELF_PID, s)));
        }
        final DatException e = assertThrows(DatException.class, () -> ShmMemory.allocate(root, 4096));
        assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.status().type(), e.toString());
        assertTrue(e.getMessage().contains(mem.toString()), e.getMessage());
        ShmMemory.allocate(root, 4096).close();
    }

    /**
     * Names a sweep leaves, then a stale file, then more names it leaves (whichever way the
     * directory lists them, the stale file comes after {@link ShmDirectory#SWEEP_MAX} of them):
     * the sweeps ({@code sweep}) reach it, each going on where the last stopped.
     */
    private static void sweepsReachAStaleFileBehind(final Path dir, final String stale, final IntSupplier sweep)
        throws IOException
    {
        final int crowd = ShmDirectory.SWEEP_MAX + 100;
        Planted.names(dir, "x-", crowd, Planted.REFUSED);
        Planted.names(dir, stale, 1, Planted.OWNER_ONLY);
        for (int i = 0; i < crowd; i++)
        {
            Planted.liveMemory(dir.resolve("m-live-" + i));
        }
        final Path file = dir.resolve(stale + 0);
        final int at = Planted.position(dir, file.getFileName().toString());
        assertTrue(at >= ShmDirectory.SWEEP_MAX, "the stale file comes " + at + "th in the directory's order");
        // the sweep that reaches it: the first SWEEP_MAX names, the next SWEEP_MAX, ...
        final int bound = at / ShmDirectory.SWEEP_MAX + 1;
        int sweeps = 0;
        while (Files.exists(file) && sweeps < bound + 3)
        {
            sweep.getAsInt();
            sweeps++;
        }
        assertFalse(Files.exists(file), "the stale file " + at + "th in the directory was left by " + sweeps
            + " sweeps");
        assertTrue(sweeps <= bound, sweeps + " sweeps to reach the stale file " + at + "th in the directory");
        // what the sweeps must leave, they left
        assertEquals(crowd, Planted.count(dir, "x-*"));
        assertEquals(crowd, Planted.count(dir, "m-live-*"));
    }

    @Test
    void theSweepsOfAnAddressGoOnPastNamesTheyLeave() throws IOException
    {
        final Path address = ShmDirectory.addressDir(root, "srv");
        sweepsReachAStaleFileBehind(address, "l-stale-", () -> ShmDirectory.sweep(address));
    }

    @Test
    void theSweepsOfSharedMemoryGoOnPastNamesTheyLeave() throws IOException
    {
        final Path mem = ShmDirectory.memoryDir(root);
        sweepsReachAStaleFileBehind(mem, "m-stale-", () ->
        {
            // each allocation sweeps first
            ShmMemory.allocate(root, 4096).close();
            return 0;
        });
    }

    /**
     * Stale files and names the sweeps leave, one after the other: each sweep goes on where the
     * last stopped, counting the files it removed out of the listing, so one sweep per
     * {@link ShmDirectory#SWEEP_MAX} names reaches every stale file, whatever the directory's order.
     */
    @Test
    void theSweepsLookAtEveryNameOnceARound() throws IOException
    {
        final Path address = ShmDirectory.addressDir(root, "srv");
        // its lock file first
        ShmDirectory.sweep(address);
        for (int i = 0; i < 3 * ShmDirectory.SWEEP_MAX / 2; i++)
        {
            Planted.names(address, "x-" + i + "-", 1, Planted.REFUSED);
            Planted.names(address, "l-" + i + "-", 1, Planted.OWNER_ONLY);
        }
        final int names;
        try (Stream<Path> all = Files.list(address))
        {
            // with the lock file
            names = (int) all.count();
        }
        final int sweeps = (names + ShmDirectory.SWEEP_MAX - 1) / ShmDirectory.SWEEP_MAX;
        for (int i = 0; i < sweeps; i++)
        {
            ShmDirectory.sweep(address);
        }
        assertEquals(0, Planted.count(address, "l-*"), sweeps + " sweeps of " + names + " names");
        assertEquals(3 * ShmDirectory.SWEEP_MAX / 2, Planted.count(address, "x-*"));
    }

    /** The names the last sweep passed went away: the next sweep starts from the start again. */
    @Test
    void aSweepAfterTheCrowdWentLooksFromTheStart() throws IOException
    {
        final Path address = ShmDirectory.addressDir(root, "srv");
        Planted.names(address, "x-", ShmDirectory.SWEEP_MAX + 10, Planted.REFUSED);
        ShmDirectory.sweep(address);
        TestFiles.delete(address);
        ShmDirectory.addressDir(root, "srv");
        Planted.names(address, "l-", 1, Planted.OWNER_ONLY);
        ShmDirectory.sweep(address);
        assertEquals(List.of(), TestFiles.files(address));
    }

    /**
     * Every qualifier of the default range (16,384) held by a live-looking listening file: a
     * listen-any tells DAT_CONN_QUAL_UNAVAILABLE after looking at each, and listens on another
     * qualifier of the address, which need the directory's lock, go on meanwhile: none waits for
     * anything like the whole walk.
     */
    @Test
    void aListenAnyOverATakenRangeKeepsNoOtherListenWaiting() throws Exception
    {
        try (ShmNode server = ShmNode.open(root, "srv", ""))
        {
            final Path srv = root.resolve("srv");
            for (long q = ANY_LOW; q <= ANY_HIGH; q++)
            {
                Planted.liveListener(srv, q);
            }
            final EventDispatcher cr = server.evd(8, EvdFlags.CR_FLAG);
            final AtomicBoolean stop = new AtomicBoolean();
            // when each of the other listens returned
            final long[] done = new long[1 << 20];
            final AtomicInteger listens = new AtomicInteger();
            final Thread other = Thread.ofPlatform().name("other-listens").start(() ->
            {
                while (!stop.get() && listens.get() < done.length)
                {
                    server.ia.pspCreate(4801, cr, PspFlags.CONSUMER_FLAG).free();
                    done[listens.get()] = System.nanoTime();
                    listens.incrementAndGet();
                }
            });
            final long start;
            final long end;
            try
            {
                while (listens.get() == 0 && other.isAlive())
                {
                    Thread.onSpinWait();
                }
                start = System.nanoTime();
                final DatException e = assertThrows(DatException.class,
                    () -> server.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG));
                end = System.nanoTime();
                assertEquals(DatReturnType.CONN_QUAL_UNAVAILABLE, e.type(), e.toString());
            }
            finally
            {
                stop.set(true);
                other.join();
            }
            // the longest time without another listen returning while the listen-any ran
            long gap = 0;
            long last = start;
            for (int i = 0; i < listens.get(); i++)
            {
                if (done[i] > start && done[i] < end)
                {
                    gap = Math.max(gap, done[i] - last);
                    last = done[i];
                }
            }
            gap = Math.max(gap, end - last);
            System.out.printf("listen-any over %d taken qualifiers: %.1f ms; the longest wait of another listen"
                + " meanwhile %.1f ms%n", ANY_HIGH - ANY_LOW + 1, (end - start) / 1e6, gap / 1e6);
            assertTrue(gap < (end - start) / 2, String.format("another listen waited %.1f ms of the %.1f ms the"
                + " listen-any looked at its range", gap / 1e6, (end - start) / 1e6));
        }
    }

    /** One qualifier of a taken range holds a stale file: a listen-any finds it and replaces the file. */
    @Test
    void aListenAnyTakesTheOneQualifierLeft() throws IOException
    {
        try (ShmNode server = ShmNode.open(root, "srv", "any_qual_range=20000-21023"))
        {
            final Path srv = root.resolve("srv");
            final long free = 20000 + new java.util.Random().nextInt(1024);
            for (long q = 20000; q <= 21023; q++)
            {
                if (q != free)
                {
                    Planted.liveListener(srv, q);
                }
            }
            // a stale file there: an earlier process with this pid, started a day before, left it
            Planted.listener(ShmDirectory.listenerPath(srv, free), Liveness.SELF_PID,
                Liveness.SELF_START - 86_400_000L, free);
            final EventDispatcher cr = server.evd(8, EvdFlags.CR_FLAG);
            assertEquals(free, server.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG).connQual());
            assertFalse(ListenerFile.stale(ShmDirectory.listenerPath(srv, free)));
            assertEquals(DatReturnType.CONN_QUAL_UNAVAILABLE,
                assertThrows(DatException.class, () -> server.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG)).type());
        }
    }
}

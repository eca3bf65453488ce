package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.nio.file.Path;
import java.util.List;
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
 */
class ShmCrowdedDirectoryTest
{
    /** More stale files than one sweep looks at. */
    private static final int CROWD = ShmDirectory.SWEEP_MAX + 1000;

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
}

package io.jdat.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The peer's shared memories one connection mapped (read only) for the peer's direct records:
 * each m-PID-SEQ once, at most {@link #MAX} at a time, the oldest unmapped to make room. Used by
 * progress rounds only (the port's progress lock).
 */
final class PeerMemories
{
    /** Peers' shared memories mapped at once. */
    private static final int MAX = 16;

    private final Path root;
    private final int[] pid = new int[MAX];
    private final int[] seq = new int[MAX];
    private final MemorySegment[] memory = new MemorySegment[MAX];
    private final Arena[] arena = new Arena[MAX];
    private int next;

    PeerMemories(final Path root)
    {
        this.root = root;
    }

    /** The peer's shared memory m-{@code p}-{@code s}, mapped now if it is not yet. */
    MemorySegment map(final int p, final int s)
    {
        for (int i = 0; i < MAX; i++)
        {
            if (memory[i] != null && pid[i] == p && seq[i] == s)
            {
                return memory[i];
            }
        }
        final Arena a = Arena.ofShared();
        final MemorySegment m;
        try
        {
            m = ShmMemory.mapPeer(root, p, s, a);
        }
        catch (final RuntimeException e)
        {
            // this process could not map it: the round ends the connection as a local failure
            a.close();
            throw e;
        }
        if (m == null)
        {
            a.close();
            throw Corrupt.framing("a direct record names shared memory m-" + p + "-" + s + ", which is not there");
        }
        final int i = next;
        next = (next + 1) % MAX;
        if (arena[i] != null)
        {
            arena[i].close();
        }
        pid[i] = p;
        seq[i] = s;
        memory[i] = m;
        arena[i] = a;
        return m;
    }

    /** Unmaps every one. */
    void unmapAll()
    {
        for (int i = 0; i < MAX; i++)
        {
            if (arena[i] != null)
            {
                arena[i].close();
                arena[i] = null;
                memory[i] = null;
            }
        }
    }
}

package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A listening connection qualifier: the file {@code l-QUAL} in its address directory. Connecting
 * processes put the id of their connection file into a free slot (compare-and-set 0 to id) and
 * ring the doorbell; the listener's I/O thread notices the doorbell, takes the ids out (id to 0)
 * and opens those files.
 * <pre>
 *    0   magic     long  "JDATSHML"
 *    8   version   int
 *   12   state     int   0 creating, 1 listening, 2 closed (stores with release)
 *   16   pid       long  the owner process
 *   24   start     long  its start time, ms since the epoch (a reused pid does not match)
 *   32   qual      long  the connection qualifier
 *   40   doorbell  long  incremented after a slot was filled
 *   64   slots     64 x long: 0 free, else a connection id (ConnectionFile) waiting to be taken;
 *                  the backlog of connection requests not yet seen by the listener
 * </pre>
 * Closing sets the state to closed before it empties the slots; a connecting process reads the
 * state after it filled a slot and takes its id back if the listener closed. One of the two
 * compare-and-sets on the slot wins, so every request is either seen or withdrawn.
 */
final class ListenerFile
{
    static final long MAGIC = 0x4A44_4154_5348_4D4CL;
    static final int VERSION = 1;
    static final long SIZE = 4096;
    static final int SLOTS = 64;

    static final int CREATING = 0;
    static final int LISTENING = 1;
    static final int CLOSED = 2;

    private static final long OFF_MAGIC = 0;
    private static final long OFF_VERSION = 8;
    private static final long OFF_STATE = 12;
    private static final long OFF_PID = 16;
    private static final long OFF_START = 24;
    private static final long OFF_QUAL = 32;
    private static final long OFF_DOORBELL = 40;
    private static final long OFF_SLOTS = 64;

    final Path path;
    private final Arena arena;
    private final MemorySegment seg;

    private ListenerFile(final Path path, final Arena arena, final MemorySegment seg)
    {
        this.path = path;
        this.arena = arena;
        this.seg = seg;
    }

    /**
     * Creates the listening file of {@code qual}, replacing a stale one; null if a live listener
     * has it. The caller holds the address directory's lock.
     *
     * @throws io.jdat.DatException DAT_PRIVILEGES_VIOLATION if what has the name is not a file of
     *     this user ({@link ShmDirectory#check})
     */
    static ListenerFile create(final Path dir, final long qual)
    {
        final Path path = ShmDirectory.listenerPath(dir, qual);
        if (ShmDirectory.check(path, false))
        {
            if (!stale(path))
            {
                return null;
            }
            ShmDirectory.delete(path);
        }
        final Arena arena = Arena.ofShared();
        final MemorySegment seg;
        try
        {
            seg = ShmDirectory.create(path, SIZE, arena);
        }
        catch (final RuntimeException e)
        {
            arena.close();
            throw e;
        }
        if (seg == null)
        {
            arena.close();
            return null;
        }
        seg.set(ValueLayout.JAVA_LONG, OFF_MAGIC, MAGIC);
        seg.set(ValueLayout.JAVA_INT, OFF_VERSION, VERSION);
        seg.set(ValueLayout.JAVA_LONG, OFF_PID, Liveness.SELF_PID);
        seg.set(ValueLayout.JAVA_LONG, OFF_START, Liveness.SELF_START);
        seg.set(ValueLayout.JAVA_LONG, OFF_QUAL, qual);
        Shared.setIntRelease(seg, OFF_STATE, LISTENING);
        final ListenerFile file = new ListenerFile(path, arena, seg);
        ListenerCleanup.opened(file);
        return file;
    }

    /**
     * Creates the listening file of a qualifier of {@code low..high} that is free or stale, for
     * {@code dat_psp_create_any}. The qualifiers are looked at from a random one on, without the
     * address directory's lock: another process may fill the range with live-looking files, and a
     * walk of it under the lock (16,384 qualifiers by default: over 100 ms) would keep every
     * listen, connect and IA open on the address waiting. Only a qualifier that seems free or stale
     * is tried under the lock, one per hold ({@link #create} decides there). A qualifier whose name
     * holds something the provider refuses ({@link ShmDirectory#check}: a link, another user's
     * file, a FIFO) is passed over as a live listener's is: one file planted at a qualifier must
     * not deny every listen-any on the address.
     *
     * @throws DatException DAT_CONN_QUAL_UNAVAILABLE when no qualifier of the range is left, saying
     *     how many were refused and the first refusal
     */
    static ListenerFile createAny(final Path dir, final long low, final long high, final String address)
    {
        final long span = high - low + 1;
        final long first = ThreadLocalRandom.current().nextLong(span);
        long refused = 0;
        DatException why = null;
        for (long i = 0; i < span; i++)
        {
            final long q = low + (first + i) % span;
            // what is at the qualifier's name may be refused by the look or, under the lock, by
            // create; the lock's own refusals (its file, the directory) end the call
            final DatException[] refusal = new DatException[1];
            try
            {
                if (taken(dir, q))
                {
                    continue;
                }
            }
            catch (final DatException e)
            {
                refusal[0] = refusal(e);
            }
            if (refusal[0] == null)
            {
                final ListenerFile f = ShmDirectory.locked(dir, () ->
                {
                    try
                    {
                        return create(dir, q);
                    }
                    catch (final DatException e)
                    {
                        refusal[0] = refusal(e);
                        return null;
                    }
                });
                if (f != null)
                {
                    return f;
                }
            }
            if (refusal[0] != null)
            {
                refused++;
                why = why == null ? refusal[0] : why;
            }
        }
        throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE, "every qualifier of " + low + ".." + high
            + " is in use on " + address + (refused == 0 ? "" : "; " + refused + " of them refused, as files the"
            + " provider does not use (the first: " + why.getMessage() + ")"));
    }

    /** {@code e} if it is a refusal of a path (DAT_PRIVILEGES_VIOLATION); anything else is thrown. */
    private static DatException refusal(final DatException e)
    {
        if (e.type() != DatReturnType.PRIVILEGES_VIOLATION)
        {
            throw e;
        }
        return e;
    }

    /** The qualifier of this listening file. */
    long qual()
    {
        return seg.get(ValueLayout.JAVA_LONG, OFF_QUAL);
    }

    /**
     * Maps another listener's file to connect to it; null if it is missing or not a listening file.
     *
     * @throws io.jdat.DatException DAT_INSUFFICIENT_RESOURCES if no descriptor is left to open it
     */
    static ListenerFile open(final Path path)
    {
        final Arena arena = Arena.ofShared();
        final MemorySegment seg;
        try
        {
            seg = ShmDirectory.open(path, SIZE, SIZE, arena);
        }
        catch (final RuntimeException e)
        {
            arena.close();
            throw e;
        }
        if (seg == null || seg.get(ValueLayout.JAVA_LONG, OFF_MAGIC) != MAGIC
            || seg.get(ValueLayout.JAVA_INT, OFF_VERSION) != VERSION)
        {
            arena.close();
            return null;
        }
        return new ListenerFile(path, arena, seg);
    }

    /**
     * Whether {@code qual} seems held by a live listener, looked at without the directory's lock:
     * a hint, which {@link #create} under the lock decides.
     *
     * @throws io.jdat.DatException DAT_PRIVILEGES_VIOLATION as {@link #create}
     */
    static boolean taken(final Path dir, final long qual)
    {
        final Path path = ShmDirectory.listenerPath(dir, qual);
        return ShmDirectory.check(path, false) && !stale(path);
    }

    /** Whether a listening file is not a live listener's (bad header, closed, or its owner died). */
    static boolean stale(final Path path)
    {
        final ByteBuffer b = ShmDirectory.head(path, (int) OFF_DOORBELL);
        if (b.remaining() < OFF_DOORBELL || b.getLong((int) OFF_MAGIC) != MAGIC
            || b.getInt((int) OFF_VERSION) != VERSION)
        {
            return true;
        }
        return b.getInt((int) OFF_STATE) != LISTENING
            || !Liveness.alive(b.getLong((int) OFF_PID), b.getLong((int) OFF_START));
    }

    boolean listening()
    {
        return Shared.getIntAcquire(seg, OFF_STATE) == LISTENING;
    }

    long ownerPid()
    {
        return seg.get(ValueLayout.JAVA_LONG, OFF_PID);
    }

    long ownerStart()
    {
        return seg.get(ValueLayout.JAVA_LONG, OFF_START);
    }

    /** Connecting side: puts {@code id} into a free slot and rings; the slot index, or -1 if the backlog is full. */
    int post(final long id)
    {
        for (int i = 0; i < SLOTS; i++)
        {
            if (Shared.casLong(seg, OFF_SLOTS + 8L * i, 0, id))
            {
                Shared.getAndAddLong(seg, OFF_DOORBELL, 1);
                return i;
            }
        }
        return -1;
    }

    /** Connecting side: takes {@code id} back out of slot {@code i}; false if the listener took it already. */
    boolean withdraw(final int i, final long id)
    {
        return Shared.casLong(seg, OFF_SLOTS + 8L * i, id, 0);
    }

    long doorbell()
    {
        return Shared.getLongAcquire(seg, OFF_DOORBELL);
    }

    /** Listener: takes the id in slot {@code i} out; 0 if the slot is free. */
    long take(final int i)
    {
        final long off = OFF_SLOTS + 8L * i;
        final long id = Shared.getLongAcquire(seg, off);
        return id != 0 && Shared.casLong(seg, off, id, 0) ? id : 0;
    }

    /**
     * Listener: stops listening (before the slots are emptied for the last time). The address
     * directory's lock is held. True the first time only; then the caller removes the file, which
     * is still this listener's (a live listener's file is never replaced).
     */
    boolean markClosed()
    {
        if (!ListenerCleanup.closing(this))
        {
            return false;
        }
        Shared.setIntVolatile(seg, OFF_STATE, CLOSED);
        return true;
    }

    void unmap()
    {
        arena.close();
    }
}

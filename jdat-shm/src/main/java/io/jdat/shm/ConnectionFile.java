package io.jdat.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * One connection: a file {@code c-PID-SEQ} that the active side creates, holding the handshake
 * and, once established, the two rings. The active side writes its request, then publishes
 * {@code state} REQUESTED; the passive side answers ACCEPTED (with its private data) or
 * REJECTED; the active side confirms ESTABLISHED or gives up (CANCELLED). Every transition is a
 * compare-and-set on {@code state}, so exactly one outcome happens.
 * <pre>
 *   page 0: handshake
 *      0  magic        long  "JDATSHMC"           64  activeIrd    int
 *      8  version      int                        68  activeOrd    int
 *     12  state        int   (below)              72  activePdLen  int
 *     16  ringCapacity int   bytes per direction  76  activeAddrLen int
 *     24  fileSize     long                       80  passivePid   long  written at intake
 *     32  activePid    long                       88  passiveStart long
 *     40  activeStart  long                       96  passiveIrd   int
 *     48  activePort   long  the connection id   100  passiveOrd   int
 *     56  targetQual   long  the qualifier asked 104  passivePdLen int
 *    112  goneActive   int   0 open, 1 closed, 2 aborted, 3 broken (release; drain the ring first)
 *    116  gonePassive  int
 *    128  activeAddr   64 bytes, the active IA's address name
 *   1024  activePd     1024 bytes of private data
 *   2048  passivePd    1024 bytes of private data
 *   page 1: ring control blocks: active-to-passive at 4096, passive-to-active at 5120 (SpscRing)
 *   8192: active-to-passive data (ringCapacity bytes), then passive-to-active data
 * </pre>
 * Everything the other side wrote is checked when it is read; the reader keeps its own copies.
 */
final class ConnectionFile
{
    static final long MAGIC = 0x4A44_4154_5348_4D43L;
    /**
     * 2: the consumer claims each record before it delivers it ({@link SpscRing#withdraw(long)});
     * 3: the ring's cut has a cache line of its own; 4: a record's header is as long as its type
     * needs ({@link Frame#headerLength}); 5: type and flags share one int, a Send's header is 16
     * bytes, records start on {@link SpscRing#ALIGN} boundaries; 6: each ring's control block has
     * the two "sleeps" words of the futex wake-ups ({@link SpscRing#CONSUMER_SLEEPS}); 7: a
     * withdrawn cut may lie beyond the consumer's claim, and the consumer delivers up to it.
     */
    static final int VERSION = 7;
    static final int PD_MAX = 1024;
    static final int ADDR_MAX = 64;
    static final int MIN_RING = 4096;
    static final int MAX_RING = 1 << 28;
    /** IRD and ORD above this are not believed. */
    static final int MAX_READS = 1 << 16;

    static final int INIT = 0;
    static final int REQUESTED = 1;
    static final int ACCEPTED = 2;
    static final int ESTABLISHED = 3;
    static final int REJECTED_PEER = 4;
    static final int REJECTED_NON_PEER = 5;
    static final int CANCELLED = 6;
    /**
     * The compare-and-sets a cancel tries: the passive side moves the state at most twice while
     * the active side may cancel (REQUESTED to ACCEPTED, then to REJECTED_NON_PEER), so each try
     * beyond the third lost to a peer that wants the active side to loop.
     */
    static final int CANCEL_TRIES = 4;

    static final int OPEN = 0;
    static final int GONE_CLOSED = 1;
    static final int GONE_ABORTED = 2;
    static final int GONE_BROKEN = 3;

    private static final long OFF_MAGIC = 0;
    private static final long OFF_VERSION = 8;
    private static final long OFF_STATE = 12;
    private static final long OFF_RING = 16;
    private static final long OFF_FILE_SIZE = 24;
    private static final long OFF_ACTIVE_PID = 32;
    private static final long OFF_ACTIVE_START = 40;
    private static final long OFF_ACTIVE_PORT = 48;
    private static final long OFF_TARGET_QUAL = 56;
    private static final long OFF_ACTIVE_IRD = 64;
    private static final long OFF_ACTIVE_ORD = 68;
    private static final long OFF_ACTIVE_PD_LEN = 72;
    private static final long OFF_ACTIVE_ADDR_LEN = 76;
    private static final long OFF_PASSIVE_PID = 80;
    private static final long OFF_PASSIVE_START = 88;
    private static final long OFF_PASSIVE_IRD = 96;
    private static final long OFF_PASSIVE_ORD = 100;
    private static final long OFF_PASSIVE_PD_LEN = 104;
    private static final long OFF_GONE_ACTIVE = 112;
    private static final long OFF_GONE_PASSIVE = 116;
    private static final long OFF_ACTIVE_ADDR = 128;
    private static final long OFF_ACTIVE_PD = 1024;
    private static final long OFF_PASSIVE_PD = 2048;
    private static final long OFF_CONTROL = 4096;
    private static final long CONTROL_STRIDE = 1024;
    private static final long OFF_DATA = 8192;

    static
    {
        // the two control blocks fit their page, and the sleeps words their blocks
        assert SpscRing.CONTROL_SIZE <= CONTROL_STRIDE && OFF_CONTROL + 2 * CONTROL_STRIDE <= OFF_DATA;
        assert SpscRing.PRODUCER_SLEEPS + 4 <= SpscRing.CONTROL_SIZE;
    }

    final Path path;
    final long id;
    final int capacity;
    private final Arena arena;
    private final MemorySegment seg;
    private boolean unmapped;

    private ConnectionFile(final Path path, final long id, final int capacity, final Arena arena,
        final MemorySegment seg)
    {
        this.path = path;
        this.id = id;
        this.capacity = capacity;
        this.arena = arena;
        this.seg = seg;
    }

    static long sizeFor(final int capacity)
    {
        return OFF_DATA + 2L * capacity;
    }

    /** Active side: creates the file of connection {@code id}; null if the name is taken. */
    static ConnectionFile create(final Path dir, final long id, final int capacity)
    {
        final Path path = ShmDirectory.connectionPath(dir, id);
        final Arena arena = Arena.ofShared();
        final MemorySegment seg;
        try
        {
            seg = ShmDirectory.create(path, sizeFor(capacity), arena);
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
        seg.set(ValueLayout.JAVA_INT, OFF_RING, capacity);
        seg.set(ValueLayout.JAVA_LONG, OFF_FILE_SIZE, sizeFor(capacity));
        seg.set(ValueLayout.JAVA_LONG, OFF_ACTIVE_PID, Liveness.SELF_PID);
        seg.set(ValueLayout.JAVA_LONG, OFF_ACTIVE_START, Liveness.SELF_START);
        seg.set(ValueLayout.JAVA_LONG, OFF_ACTIVE_PORT, id);
        return new ConnectionFile(path, id, capacity, arena, seg);
    }

    /**
     * Passive side: maps the file of connection {@code id} after checking its size and header;
     * null if it is missing or malformed, or if no descriptor is left to open it with (the I/O
     * thread cannot answer then; the active side's connect timer ends the attempt).
     */
    static ConnectionFile open(final Path dir, final long id)
    {
        final Path path = ShmDirectory.connectionPath(dir, id);
        final Arena arena = Arena.ofShared();
        final MemorySegment seg;
        try
        {
            seg = ShmDirectory.open(path, sizeFor(MIN_RING), sizeFor(MAX_RING), arena);
        }
        catch (final io.jdat.DatException e)
        {
            arena.close();
            return null;
        }
        if (seg == null)
        {
            arena.close();
            return null;
        }
        final int capacity;
        try
        {
            capacity = seg.get(ValueLayout.JAVA_INT, OFF_RING);
            if (seg.get(ValueLayout.JAVA_LONG, OFF_MAGIC) != MAGIC
                || seg.get(ValueLayout.JAVA_INT, OFF_VERSION) != VERSION
                || capacity < MIN_RING || capacity > MAX_RING || Integer.bitCount(capacity) != 1
                || seg.byteSize() != sizeFor(capacity)
                || seg.get(ValueLayout.JAVA_LONG, OFF_FILE_SIZE) != sizeFor(capacity)
                || seg.get(ValueLayout.JAVA_LONG, OFF_ACTIVE_PID) != id >>> 32)
            {
                arena.close();
                return null;
            }
        }
        catch (final InternalError e)
        {
            // the file shrank after it was mapped (Shared): not a connection file to use
            arena.close();
            return null;
        }
        return new ConnectionFile(path, id, capacity, arena, seg);
    }

    /** Whether a connection file's creator is dead (or the file is not one). */
    static boolean stale(final Path path)
    {
        final ByteBuffer b = ShmDirectory.head(path, (int) OFF_ACTIVE_PORT);
        if (b.remaining() < OFF_ACTIVE_PORT || b.getLong((int) OFF_MAGIC) != MAGIC)
        {
            return true;
        }
        return !Liveness.alive(b.getLong((int) OFF_ACTIVE_PID), b.getLong((int) OFF_ACTIVE_START));
    }

    /** The whole mapping, as laid out above. */
    MemorySegment segment()
    {
        return seg;
    }

    // ---------------------------------------------------------------- handshake

    int state()
    {
        return Shared.getIntAcquire(seg, OFF_STATE);
    }

    boolean transition(final int from, final int to)
    {
        return Shared.casInt(seg, OFF_STATE, from, to);
    }

    /**
     * Active side: gives up the attempt (CANCELLED) while the passive side has not answered, or has
     * accepted; false if it answered otherwise (rejected), the state is none of these, or it moved
     * on each of {@link #CANCEL_TRIES} tries (the peer is not told then).
     */
    boolean cancel()
    {
        for (int tries = 0; tries < CANCEL_TRIES; tries++)
        {
            final int s = state();
            if (s != REQUESTED && s != ACCEPTED)
            {
                return false;
            }
            if (transition(s, CANCELLED))
            {
                return true;
            }
        }
        return false;
    }

    /** Active side: the request, published with REQUESTED. */
    void writeRequest(final long targetQual, final String address, final byte[] privateData, final int ird,
        final int ord)
    {
        final byte[] a = address.getBytes(StandardCharsets.US_ASCII);
        seg.set(ValueLayout.JAVA_LONG, OFF_TARGET_QUAL, targetQual);
        seg.set(ValueLayout.JAVA_INT, OFF_ACTIVE_IRD, ird);
        seg.set(ValueLayout.JAVA_INT, OFF_ACTIVE_ORD, ord);
        seg.set(ValueLayout.JAVA_INT, OFF_ACTIVE_PD_LEN, privateData.length);
        seg.set(ValueLayout.JAVA_INT, OFF_ACTIVE_ADDR_LEN, a.length);
        MemorySegment.copy(a, 0, seg, ValueLayout.JAVA_BYTE, OFF_ACTIVE_ADDR, a.length);
        MemorySegment.copy(privateData, 0, seg, ValueLayout.JAVA_BYTE, OFF_ACTIVE_PD, privateData.length);
        Shared.setIntRelease(seg, OFF_STATE, REQUESTED);
    }

    /** Passive side: who took the request (the active side watches this process from now on). */
    void writeTaker()
    {
        seg.set(ValueLayout.JAVA_LONG, OFF_PASSIVE_START, Liveness.SELF_START);
        Shared.setLongRelease(seg, OFF_PASSIVE_PID, Liveness.SELF_PID);
    }

    /** Passive side: the answer's data; {@link #transition} to ACCEPTED publishes it. */
    void writeAnswer(final byte[] privateData, final int ird, final int ord)
    {
        seg.set(ValueLayout.JAVA_INT, OFF_PASSIVE_IRD, ird);
        seg.set(ValueLayout.JAVA_INT, OFF_PASSIVE_ORD, ord);
        seg.set(ValueLayout.JAVA_INT, OFF_PASSIVE_PD_LEN, privateData.length);
        MemorySegment.copy(privateData, 0, seg, ValueLayout.JAVA_BYTE, OFF_PASSIVE_PD, privateData.length);
    }

    long activePid()
    {
        return seg.get(ValueLayout.JAVA_LONG, OFF_ACTIVE_PID);
    }

    long activeStart()
    {
        return seg.get(ValueLayout.JAVA_LONG, OFF_ACTIVE_START);
    }

    long passivePid()
    {
        return Shared.getLongAcquire(seg, OFF_PASSIVE_PID);
    }

    long passiveStart()
    {
        return seg.get(ValueLayout.JAVA_LONG, OFF_PASSIVE_START);
    }

    long activePort()
    {
        return seg.get(ValueLayout.JAVA_LONG, OFF_ACTIVE_PORT);
    }

    int activeIrd()
    {
        return seg.get(ValueLayout.JAVA_INT, OFF_ACTIVE_IRD);
    }

    int activeOrd()
    {
        return seg.get(ValueLayout.JAVA_INT, OFF_ACTIVE_ORD);
    }

    int passiveIrd()
    {
        return seg.get(ValueLayout.JAVA_INT, OFF_PASSIVE_IRD);
    }

    int passiveOrd()
    {
        return seg.get(ValueLayout.JAVA_INT, OFF_PASSIVE_ORD);
    }

    /** The active address name, or null if what is there is not a valid name. */
    String activeAddress()
    {
        final int n = seg.get(ValueLayout.JAVA_INT, OFF_ACTIVE_ADDR_LEN);
        if (n < 1 || n > ADDR_MAX)
        {
            return null;
        }
        final byte[] b = new byte[n];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, OFF_ACTIVE_ADDR, b, 0, n);
        final String s = new String(b, StandardCharsets.US_ASCII);
        return ShmDirectory.validName(s) ? s : null;
    }

    /** A private copy of one side's private data, or null if its length is impossible. */
    byte[] privateData(final boolean active)
    {
        final int n = seg.get(ValueLayout.JAVA_INT, active ? OFF_ACTIVE_PD_LEN : OFF_PASSIVE_PD_LEN);
        if (n < 0 || n > PD_MAX)
        {
            return null;
        }
        final byte[] b = new byte[n];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, active ? OFF_ACTIVE_PD : OFF_PASSIVE_PD, b, 0, n);
        return b;
    }

    static boolean validReads(final int ird, final int ord)
    {
        return ird >= 0 && ird <= MAX_READS && ord >= 0 && ord <= MAX_READS;
    }

    // ---------------------------------------------------------------- established

    /** The ring one side writes: the active side's (direction 0) or the passive side's (1). */
    SpscRing ring(final boolean writtenByActive)
    {
        final int d = writtenByActive ? 0 : 1;
        return new SpscRing(seg.asSlice(OFF_CONTROL + d * CONTROL_STRIDE, SpscRing.CONTROL_SIZE),
            seg.asSlice(OFF_DATA + (long) d * capacity, capacity));
    }

    int gone(final boolean active)
    {
        return Shared.getIntAcquire(seg, active ? OFF_GONE_ACTIVE : OFF_GONE_PASSIVE);
    }

    /** Says that one side is done: first value wins (a later close does not hide a break). */
    void markGone(final boolean active, final int how)
    {
        Shared.casInt(seg, active ? OFF_GONE_ACTIVE : OFF_GONE_PASSIVE, OPEN, how);
    }

    /** The creator removes the name once the attempt ended; the mappings stay valid. */
    void unlink()
    {
        ShmDirectory.delete(path);
    }

    /** Unmaps (once). The caller makes sure no thread touches the file any more. */
    void unmap()
    {
        if (!unmapped)
        {
            unmapped = true;
            arena.close();
        }
    }

    @Override
    public String toString()
    {
        return path.getFileName().toString();
    }
}

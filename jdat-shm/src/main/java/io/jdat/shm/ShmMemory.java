package io.jdat.shm;

import io.jdat.Dat;
import io.jdat.engine.channel.OutboundMessage;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Memory the {@code shm} provider shares between the processes of a host: a file in the
 * provider's directory, mapped by every process that uses it. A consumer registers it with
 * {@code dat_lmr_create} as {@code DAT_MEM_TYPE_SHARED_VIRTUAL} with {@link #cookie()} as the
 * shared memory id; another process maps the same memory with {@link #open(Path, byte[])} and the
 * cookie, as DAT intends for shared memory.
 * <pre>
 *   ROOT/.mem/m-PID-SEQ                     created by process PID, mode 0600
 *      0  magic   long  "JDATSHMM"
 *      8  version int
 *     16  pid     long  the creator
 *     24  start   long  the creator's start time (Liveness)
 *     32  size    long  bytes of memory
 *   4096  the memory (size bytes)
 *
 *   cookie (DAT_LMR_COOKIE, 40 bytes, native order): magic, pid, seq, size, start
 * </pre>
 *
 * <p>RDMA Writes and Read Responses whose data lies in such memory do not stream through a
 * connection's ring: the record names the file and the range instead, and the receiving side maps
 * the file (read only) and hands that range to its engine, which validates and places it as any
 * other segment (one copy instead of two). Files of dead creators are removed when the next one is
 * allocated; {@link #close()} by the creator removes the name (processes that still map the file
 * keep their mapping).
 */
public final class ShmMemory implements AutoCloseable
{
    static final long MAGIC = 0x4A44_4154_5348_4D4DL;
    static final int VERSION = 1;
    static final long HEADER = 4096;
    /** The SEQ of the file m-PID-SEQ this process made last. */
    static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final ShmMemory[] NONE = new ShmMemory[0];
    /** Every open instance of this process (copy on write), for lookups by address and cookie. */
    private static volatile ShmMemory[] live = NONE;

    final Path root;
    final Path path;
    /** The creator's process id and sequence: the file m-PID-SEQ. */
    final int pid;
    final int seq;
    private final boolean creator;
    private final Arena arena;
    private final MemorySegment memory;
    private final byte[] cookie;
    /** The address of the first byte of {@link #memory()}, while open; 0 after close. */
    private volatile long base;

    private ShmMemory(final Path root, final Path path, final int pid, final int seq, final boolean creator,
        final Arena arena, final MemorySegment file, final byte[] cookie)
    {
        this.root = root.toAbsolutePath().normalize();
        this.path = path;
        this.pid = pid;
        this.seq = seq;
        this.creator = creator;
        this.arena = arena;
        this.memory = file.asSlice(HEADER);
        this.cookie = cookie;
        this.base = memory.address();
    }

    /** Allocates {@code size} bytes of shared memory under the provider's default directory. */
    public static ShmMemory allocate(final long size)
    {
        return allocate(ShmDirectory.defaultRoot(), size);
    }

    /**
     * Allocates {@code size} bytes (zeroed) of shared memory under the provider directory
     * {@code root} (an IA's instance data {@code dir=}; the direct path needs both sides of a
     * connection and the memory under one root).
     *
     * @throws io.jdat.DatException DAT_INSUFFICIENT_RESOURCES if no file can be made, the next
     *     {@link ShmDirectory#NAME_TRIES} names of this process's files included
     */
    public static ShmMemory allocate(final Path root, final long size)
    {
        if (size <= 0)
        {
            throw new IllegalArgumentException("size " + size + " is not positive");
        }
        final Path dir = ShmDirectory.memoryDir(root);
        sweep(dir);
        final Arena arena = Arena.ofShared();
        try
        {
            for (int i = 0; i < ShmDirectory.NAME_TRIES; i++)
            {
                final int seq = SEQUENCE.incrementAndGet();
                final Path path = dir.resolve(fileName(Liveness.SELF_PID, seq));
                final MemorySegment file = ShmDirectory.create(path, HEADER + size, arena);
                if (file == null)
                {
                    continue;
                }
                file.set(ValueLayout.JAVA_LONG, 0, MAGIC);
                file.set(ValueLayout.JAVA_INT, 8, VERSION);
                file.set(ValueLayout.JAVA_LONG, 16, Liveness.SELF_PID);
                file.set(ValueLayout.JAVA_LONG, 24, Liveness.SELF_START);
                file.set(ValueLayout.JAVA_LONG, 32, size);
                final ByteBuffer c = ByteBuffer.allocate(Dat.LMR_COOKIE_SIZE).order(ByteOrder.nativeOrder());
                c.putLong(MAGIC).putLong(Liveness.SELF_PID).putLong(seq).putLong(size).putLong(Liveness.SELF_START);
                return opened(new ShmMemory(root, path, (int) Liveness.SELF_PID, seq, true, arena, file, c.array()));
            }
            throw ShmDirectory.namesTaken(dir);
        }
        catch (final RuntimeException e)
        {
            arena.close();
            throw e;
        }
    }

    /**
     * Maps shared memory another process allocated, named by its cookie, under {@code root}.
     *
     * @throws IllegalArgumentException if the cookie names no live shared memory there
     * @throws io.jdat.DatException DAT_INSUFFICIENT_RESOURCES if it does, but this process cannot map it
     */
    public static ShmMemory open(final Path root, final byte[] cookie)
    {
        if (cookie == null || cookie.length != Dat.LMR_COOKIE_SIZE)
        {
            throw new IllegalArgumentException("a cookie has " + Dat.LMR_COOKIE_SIZE + " bytes");
        }
        final ByteBuffer c = ByteBuffer.wrap(cookie).order(ByteOrder.nativeOrder());
        final long pid = c.getLong(8);
        final long seq = c.getLong(16);
        if (c.getLong(0) != MAGIC || pid <= 0 || pid > Integer.MAX_VALUE || seq <= 0 || seq > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("not a cookie of shm shared memory");
        }
        final Path path = ShmDirectory.memoryDir(root).resolve(fileName(pid, (int) seq));
        final Arena arena = Arena.ofShared();
        final MemorySegment file = map(path, FileChannel.MapMode.READ_WRITE, arena);
        if (file == null || file.get(ValueLayout.JAVA_LONG, 16) != pid || file.get(ValueLayout.JAVA_LONG, 32)
            != c.getLong(24) || file.get(ValueLayout.JAVA_LONG, 24) != c.getLong(32))
        {
            arena.close();
            throw new IllegalArgumentException("no shared memory " + path.getFileName() + " under " + root);
        }
        return opened(new ShmMemory(root, path, (int) pid, (int) seq, false, arena, file, cookie.clone()));
    }

    private static ShmMemory opened(final ShmMemory m)
    {
        synchronized (ShmMemory.class)
        {
            final ShmMemory[] grown = Arrays.copyOf(live, live.length + 1);
            grown[live.length] = m;
            live = grown;
        }
        return m;
    }

    static String fileName(final long pid, final int seq)
    {
        return "m-" + pid + "-" + Integer.toUnsignedString(seq);
    }

    /** The shared memory, {@code size} bytes, page aligned. */
    public MemorySegment memory()
    {
        return memory;
    }

    /** The shared memory id to register it with ({@code DAT_LMR_COOKIE}, 40 bytes). */
    public byte[] cookie()
    {
        return cookie.clone();
    }

    /** Whether {@code [address, address + length)} lies inside this memory while it is open. */
    boolean contains(final long address, final long length)
    {
        final long b = base;
        return b != 0 && length >= 0 && address - b >= 0 && address - b <= memory.byteSize() - length;
    }

    /** The offset of {@code address} in the memory. */
    long offsetOf(final long address)
    {
        return address - memory.address();
    }

    /**
     * Whether every non-empty piece of the message's gather list lies in native memory of an open
     * instance of this process under {@code root}, which a peer can map.
     */
    static boolean holdsAll(final Path root, final OutboundMessage m)
    {
        for (int i = 0; i < m.payloadSegments(); i++)
        {
            final long len = m.payloadLength(i);
            final MemorySegment mem = m.payloadMemory(i);
            if (len > 0 && (mem == null || !mem.isNative()
                || containing(root, mem.address() + m.payloadOffset(i), len) == null))
            {
                return false;
            }
        }
        return true;
    }

    /** The open instance of this process under {@code root} holding {@code [address, address + length)}, or null. */
    static ShmMemory containing(final Path root, final long address, final long length)
    {
        for (final ShmMemory m : live)
        {
            if (m.contains(address, length) && m.root.equals(root))
            {
                return m;
            }
        }
        return null;
    }

    /** Whether {@code [address, address + length)} lies in open shared memory of this process with this cookie. */
    static boolean registrable(final long address, final long length, final byte[] cookie)
    {
        for (final ShmMemory m : live)
        {
            if (Arrays.equals(m.cookie, cookie) && m.contains(address, length))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Maps the memory of shared memory file {@code m-PID-SEQ} under {@code root} read only, for
     * a peer's direct record; null if there is no such file or it is not one (links are not
     * followed, the header and the size are checked).
     */
    static MemorySegment mapPeer(final Path root, final int pid, final int seq, final Arena arena)
    {
        if (pid <= 0)
        {
            return null;
        }
        final Path path = root.resolve(ShmDirectory.MEMORY_DIR).resolve(fileName(pid, seq));
        final MemorySegment file;
        try
        {
            file = map(path, FileChannel.MapMode.READ_ONLY, arena);
        }
        catch (final io.jdat.DatException e)
        {
            if (e.type() != io.jdat.DatReturnType.PRIVILEGES_VIOLATION)
            {
                // a well-formed file this process could not map: its own trouble, not the peer's
                throw e;
            }
            // not a file of this user alone (ShmDirectory.check): as unusable as a missing one
            return null;
        }
        return file == null || file.get(ValueLayout.JAVA_LONG, 16) != pid ? null : file.asSlice(HEADER);
    }

    /**
     * Maps a shared memory file whose header and size agree; null otherwise.
     *
     * @throws io.jdat.DatException DAT_PRIVILEGES_VIOLATION if the file is a link, or not this
     *     user's alone ({@link ShmDirectory#check}); DAT_INSUFFICIENT_RESOURCES if its header and
     *     size agree but this process cannot map it (address space, map count, a file system that
     *     does not map)
     */
    private static MemorySegment map(final Path path, final FileChannel.MapMode mode, final Arena arena)
    {
        if (!ShmDirectory.check(path, false))
        {
            return null;
        }
        try
        {
            return ShmDirectory.uninterruptibly(() ->
            {
                // for reading and writing even to map it read only: a FIFO put in its place since
                // the check opens at once, and is refused (ShmDirectory.openFile)
                try (FileChannel fc = ShmDirectory.openFile(path, false))
                {
                    final long size = fc.size();
                    if (size <= HEADER || !headerAgrees(fc, size))
                    {
                        return null;
                    }
                    final MemorySegment file;
                    try
                    {
                        file = fc.map(mode, 0, size, arena);
                    }
                    catch (final ClosedByInterruptException e)
                    {
                        throw e;
                    }
                    catch (final IOException | UnsupportedOperationException e)
                    {
                        throw ShmDirectory.resources("cannot map " + path + " (" + size + " bytes)",
                            e instanceof IOException io ? io : new IOException(e));
                    }
                    if (file.get(ValueLayout.JAVA_LONG, 0) != MAGIC || file.get(ValueLayout.JAVA_INT, 8) != VERSION
                        || file.get(ValueLayout.JAVA_LONG, 32) != size - HEADER)
                    {
                        return null;
                    }
                    return file;
                }
            });
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            // gone or unreadable: not usable shared memory, which the caller answers as it does a
            // bad header (a reference into it fails)
            return null;
        }
    }

    /**
     * Whether the header read from {@code fc} names this format and {@code size}: read before the
     * file is mapped, so that a failure to map a file that agrees is this process's, and one that
     * does not is the file's.
     */
    private static boolean headerAgrees(final FileChannel fc, final long size) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
        while (b.hasRemaining())
        {
            if (fc.read(b, b.position()) <= 0)
            {
                return false;
            }
        }
        return b.getLong(0) == MAGIC && b.getInt(8) == VERSION && b.getLong(32) == size - HEADER;
    }

    /** Whether a shared memory file's creator is dead (or the file is not one). */
    static boolean stale(final Path path)
    {
        final ByteBuffer b = ShmDirectory.head(path, 32);
        if (b.remaining() < 32 || b.getLong(0) != MAGIC)
        {
            return true;
        }
        return !Liveness.alive(b.getLong(16), b.getLong(24));
    }

    /** Removes the files of dead creators in {@code dir} ({@link ShmDirectory#sweepNames}). */
    private static void sweep(final Path dir)
    {
        ShmDirectory.locked(dir, () ->
        {
            try
            {
                return ShmDirectory.sweepNames(dir, p -> p.getFileName().toString().startsWith("m-") && stale(p));
            }
            catch (final IOException e)
            {
                throw ShmDirectory.resources("cannot list " + dir, e);
            }
        });
    }

    /**
     * Unmaps the memory; the creator also removes the file's name. LMRs over it must be freed
     * first, and no DTO may still use it.
     */
    @Override
    public void close()
    {
        synchronized (ShmMemory.class)
        {
            if (base == 0)
            {
                return;
            }
            base = 0;
            final ShmMemory[] old = live;
            final ShmMemory[] rest = new ShmMemory[old.length - 1];
            int j = 0;
            for (final ShmMemory m : old)
            {
                if (m != this)
                {
                    rest[j++] = m;
                }
            }
            live = rest;
        }
        if (creator)
        {
            ShmDirectory.delete(path);
        }
        arena.close();
    }

    @Override
    public String toString()
    {
        return "ShmMemory[" + path + ", " + memory.byteSize() + " bytes" + (base == 0 ? ", closed" : "") + "]";
    }
}

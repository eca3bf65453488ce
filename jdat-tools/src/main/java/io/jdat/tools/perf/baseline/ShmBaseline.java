package io.jdat.tools.perf.baseline;

import io.jdat.IaAddress;
import io.jdat.tools.kit.Message;
import io.jdat.tools.perf.RowSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code shm} baseline: the same bytes between jdat's two ends (two threads of one process, or
 * the two processes of {@code --listen}/{@code --connect}) through one shared
 * mapped file, plain Java: a ring of slots each way, the sender copies into a slot and publishes
 * its head with a release store, the receiver spins on it with acquire loads and copies out.
 * <pre>
 *   0     client-to-server head      64    client-to-server tail
 *   128   server-to-client head      192   server-to-client tail
 *   4096  client-to-server ring: slots x stride, then the server-to-client ring
 * </pre>
 * The client creates the file (under {@code /dev/shm} when it exists) and names it in RUN.
 */
public final class ShmBaseline implements Baseline
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long RING_BYTES = 32L << 20;
    private static final long HEADER = 4096;
    private static final AtomicLong FILES = new AtomicLong();

    @Override
    public String name()
    {
        return "shm";
    }

    @Override
    public String description()
    {
        return "plain Java mapped-file rings (release/acquire spin) + copy in and out, between jdat's two ends "
            + "(its two threads, or its two processes with --listen/--connect)";
    }

    private static long stride(final long size)
    {
        return Math.max(64, (size + 63) & ~63L);
    }

    private static int slots(final long size, final int depth)
    {
        return (int) Math.max(1, Math.min(depth, RING_BYTES / stride(size)));
    }

    @Override
    public End client(final RowSpec row, final int depth, final IaAddress server, final Message.Builder run)
    {
        final Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
            : Path.of(System.getProperty("java.io.tmpdir"));
        final Path file = dir.resolve("jdat-perf-shm-" + ProcessHandle.current().pid() + "-"
            + FILES.incrementAndGet());
        final int slots = slots(row.size(), depth);
        run.with("path", file).with("slots", slots);
        return new ShmEnd(file, row.size(), slots, true);
    }

    @Override
    public End server(final RowSpec row, final int depth, final Message run, final Message.Builder ready)
    {
        return new ShmEnd(Path.of(run.get("path")), row.size(), run.getInt("slots"), false);
    }

    private static final class ShmEnd implements End
    {
        private final Arena arena = Arena.ofShared();
        private final Path file;
        private final boolean client;
        private final MemorySegment src;
        private final MemorySegment dst;
        private final Ring out;
        private final Ring in;

        ShmEnd(final Path file, final long size, final int slots, final boolean client)
        {
            this.file = file;
            this.client = client;
            final long stride = stride(size);
            final long ring = slots * stride;
            final MemorySegment map;
            try (FileChannel ch = client
                ? FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)
                : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                map = ch.map(FileChannel.MapMode.READ_WRITE, 0, HEADER + 2 * ring, arena);
            }
            catch (final IOException e)
            {
                arena.close();
                throw new UncheckedIOException("shm baseline: cannot map " + file, e);
            }
            final Ring c2s = new Ring(map, 0, 64, HEADER, slots, stride);
            final Ring s2c = new Ring(map, 128, 192, HEADER + ring, slots, stride);
            this.out = client ? c2s : s2c;
            this.in = client ? s2c : c2s;
            this.src = arena.allocate(Math.max(8, size), 64);
            this.dst = arena.allocate(Math.max(8, size), 64);
        }

        @Override
        public void ready(final Message ready)
        {
            // both ends map the same file: nothing to connect
        }

        @Override
        public Sender out()
        {
            return out;
        }

        @Override
        public Receiver in()
        {
            return in;
        }

        @Override
        public MemorySegment src()
        {
            return src;
        }

        @Override
        public MemorySegment dst()
        {
            return dst;
        }

        @Override
        public void close()
        {
            arena.close();
            if (client)
            {
                try
                {
                    Files.deleteIfExists(file);
                }
                catch (final IOException e)
                {
                    // a file left in /dev/shm is only untidy
                }
            }
        }
    }

    /** One direction: slots in the mapped file with a head and a tail counter. */
    private static final class Ring implements Sender, Receiver
    {
        private final MemorySegment map;
        private final long headAt;
        private final long tailAt;
        private final long base;
        private final int slots;
        private final long stride;
        private long head;
        private long tail;
        private long seenTail;
        private long seenHead;

        Ring(final MemorySegment map, final long headAt, final long tailAt, final long base, final int slots,
            final long stride)
        {
            this.map = map;
            this.headAt = headAt;
            this.tailAt = tailAt;
            this.base = base;
            this.slots = slots;
            this.stride = stride;
        }

        @Override
        public boolean trySend(final MemorySegment from, final long size)
        {
            if (head - seenTail >= slots)
            {
                seenTail = (long) LONG.getAcquire(map, tailAt);
                if (head - seenTail >= slots)
                {
                    return false;
                }
            }
            MemorySegment.copy(from, 0, map, base + (head % slots) * stride, size);
            LONG.setRelease(map, headAt, ++head);
            return true;
        }

        @Override
        public boolean tryReceive(final MemorySegment into, final long size)
        {
            if (tail == seenHead)
            {
                seenHead = (long) LONG.getAcquire(map, headAt);
                if (tail == seenHead)
                {
                    return false;
                }
            }
            MemorySegment.copy(map, base + (tail % slots) * stride, into, 0, size);
            LONG.setRelease(map, tailAt, ++tail);
            return true;
        }
    }
}

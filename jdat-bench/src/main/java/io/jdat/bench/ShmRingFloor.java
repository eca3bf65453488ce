package io.jdat.bench;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The floor of shm's 64-byte round trip for each ring shape, with no DAT engine in it: two threads
 * of one process, each end with its own mapping of one file in {@code /dev/shm} (as {@code jdat
 * perf}'s client and server have), an echo thread answering each message. Each round runs every
 * shape once, one after the other, so that a ratio within a round shares the machine's state.
 * <ul>
 * <li>{@code slots}: the shape of {@code jdat perf --provider shm --baseline}: per direction 64
 *     slots of 64 bytes, the sender copies into a slot and stores the ring's head with release; the
 *     receiver spins on the head word (a line of its own), copies out and stores its tail.</li>
 * <li>{@code records}: shm's record ({@code SpscRing}, {@code Frame}): a 16-byte header whose first
 *     word is the length, the payload after it, records on a 16-byte grid of a 1 MiB ring; the
 *     sender writes the record, zeroes the next length word and stores the length with release; the
 *     receiver spins on the length word at its position (the record's own line). No control word.</li>
 * <li>{@code recordsControl}: {@code records} with the words {@code SpscRing} stores per record:
 *     the producer's tail, and the consumer's claim (a compare-and-set of the cut word, for the
 *     withdrawal of an abort) and head, each on a line of its own in a control block.</li>
 * <li>{@code recordsTailPolled}: {@code recordsControl} with the receiver spinning on the tail
 *     word instead of the length word (the slots' way of publishing, with shm's record).</li>
 * <li>{@code descriptors}: the header apart from the payload, as a NIC's work queue entry and its
 *     buffer: a ring of 16-byte descriptors (sequence, length, type; four to a line, 4 KiB) and
 *     the payload in 64-byte slots of a data ring as large as the record ring; the sender copies
 *     the payload, writes the descriptor and stores its sequence with release; the receiver spins
 *     on the sequence of the next descriptor, copies the payload and stores its head.</li>
 * </ul>
 * Usage: {@code ShmRingFloor [round trips per shape and round] [rounds]}; {@code -Dfloor.ring=N}
 * sets the record rings' bytes (a power of two, shm's {@code ring_size}: 1 MiB by default, where
 * a ping-pong's records touch a new line every hop for a whole MiB), {@code -Dfloor.size=N} the
 * message (48 makes a record one line).
 */
public final class ShmRingFloor
{
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** The message's bytes ({@code -Dfloor.size}, 64 by default). */
    private static final int SIZE = Integer.getInteger("floor.size", 64);
    /** A slot: the message rounded up to whole lines. */
    private static final int STRIDE = (Math.max(SIZE, 1) + 63) & -64;
    private static final int SLOTS = 64;
    /** The record ring's bytes per direction ({@code -Dfloor.ring}, shm's default {@code ring_size}). */
    private static final long RING = Long.getLong("floor.ring", 1 << 20);
    /** Each direction's data area in the file: room for either shape. */
    private static final long AREA = Math.max(RING, (long) SLOTS * STRIDE);
    private static final int HEADER = 16;
    private static final int RECORD = (HEADER + SIZE + 15) & -16;
    private static final long TAIL = 0;
    private static final long HEAD = 128;
    private static final long CUT = 192;
    private static final String[] SHAPES = {"slots", "records", "recordsControl", "recordsTailPolled", "descriptors"};
    /** {@code descriptors}: entries of the descriptor ring, 16 bytes each, four to a line. */
    private static final int DESCRIPTORS = 256;

    private ShmRingFloor()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        final double[][] p50 = new double[SHAPES.length][rounds];
        System.out.printf("%d-byte ping-pong through a mapped file (record ring %d bytes), two threads, %d round"
            + " trips per shape and round; half a round trip in ns (p50)%n", SIZE, RING, iterations);
        for (int r = 0; r < rounds; r++)
        {
            final StringBuilder line = new StringBuilder("round " + (r + 1));
            for (int s = 0; s < SHAPES.length; s++)
            {
                p50[s][r] = run(s, iterations);
                line.append(String.format("  %s %.0f", SHAPES[s], p50[s][r]));
            }
            System.out.println(line);
        }
        final StringBuilder ratios = new StringBuilder("median of the rounds' ratios to slots:");
        for (int s = 1; s < SHAPES.length; s++)
        {
            final double[] q = new double[rounds];
            for (int r = 0; r < rounds; r++)
            {
                q[r] = p50[s][r] / p50[0][r];
            }
            Arrays.sort(q);
            ratios.append(String.format("  %s %.2f", SHAPES[s], q[rounds / 2]));
        }
        System.out.println(ratios);
    }

    /** One shape's p50 half round trip, a fresh file and echo thread. */
    private static double run(final int shape, final int iterations) throws IOException, InterruptedException
    {
        final Path file = Files.createTempFile(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
            : Path.of(System.getProperty("java.io.tmpdir")), "jdat-floor-", ".ring");
        try (Arena arena = Arena.ofShared())
        {
            final long size = 8192 + 2 * AREA + 2 * DESCRIPTORS * 16L;
            final MemorySegment client;
            final MemorySegment server;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                client = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                server = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            }
            final End ping = end(shape, client, 0);
            final End pingIn = end(shape, server, 0);
            final End pong = end(shape, server, 1);
            final End pongIn = end(shape, client, 1);
            final MemorySegment src = arena.allocate(SIZE, 64);
            final MemorySegment dst = arena.allocate(SIZE, 64);
            final MemorySegment echoSrc = arena.allocate(SIZE, 64);
            final MemorySegment echoDst = arena.allocate(SIZE, 64);
            final AtomicBoolean stop = new AtomicBoolean();
            final Thread echo = new Thread(() ->
            {
                while (!stop.get())
                {
                    if (pingIn.receive(echoDst))
                    {
                        pong.send(echoSrc);
                    }
                    else
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "floor-echo");
            echo.setDaemon(true);
            echo.start();
            final long[] half = new long[iterations];
            for (int i = 0; i < iterations; i++)
            {
                final long t0 = System.nanoTime();
                ping.send(src);
                while (!pongIn.receive(dst))
                {
                    Thread.onSpinWait();
                }
                half[i] = (System.nanoTime() - t0) / 2;
            }
            stop.set(true);
            echo.join(5000);
            Arrays.sort(half);
            return half[iterations / 2];
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    private static End end(final int shape, final MemorySegment map, final int direction)
    {
        final MemorySegment control = map.asSlice(4096 + direction * 1024L, 384);
        if (shape == 0)
        {
            return new Slots(control, map.asSlice(8192 + direction * AREA, (long) SLOTS * STRIDE));
        }
        if (shape == 4)
        {
            return new Descriptors(control, map.asSlice(8192 + direction * AREA, RING),
                map.asSlice(8192 + 2 * AREA + direction * (DESCRIPTORS * 16L), DESCRIPTORS * 16L));
        }
        return new Records(control, map.asSlice(8192 + direction * AREA, RING), shape >= 2, shape == 3);
    }

    /** One end of one direction. */
    private interface End
    {
        void send(MemorySegment from);

        boolean receive(MemorySegment into);
    }

    /** {@code jdat perf}'s shm baseline ring. */
    private static final class Slots implements End
    {
        private final MemorySegment control;
        private final MemorySegment data;
        private long head;
        private long tail;
        private long seenTail;
        private long seenHead;

        Slots(final MemorySegment control, final MemorySegment data)
        {
            this.control = control;
            this.data = data;
        }

        @Override
        public void send(final MemorySegment from)
        {
            while (head - seenTail >= SLOTS)
            {
                seenTail = (long) LONG.getAcquire(control, TAIL);
            }
            MemorySegment.copy(from, 0, data, (head % SLOTS) * STRIDE, SIZE);
            LONG.setRelease(control, HEAD, ++head);
        }

        @Override
        public boolean receive(final MemorySegment into)
        {
            if (tail == seenHead)
            {
                seenHead = (long) LONG.getAcquire(control, HEAD);
                if (tail == seenHead)
                {
                    return false;
                }
            }
            MemorySegment.copy(data, (tail % SLOTS) * STRIDE, into, 0, SIZE);
            LONG.setRelease(control, TAIL, ++tail);
            return true;
        }
    }

    /** shm's record ring, with or without its control words. */
    private static final class Records implements End
    {
        private static final int PAD = -1;
        private final MemorySegment control;
        private final MemorySegment data;
        private final boolean controlWords;
        private final boolean tailPolled;
        private long position;
        /** The consumer's claim: the end of the last record it took. */
        private long cut;

        Records(final MemorySegment control, final MemorySegment data, final boolean controlWords,
            final boolean tailPolled)
        {
            this.control = control;
            this.data = data;
            this.controlWords = controlWords;
            this.tailPolled = tailPolled;
        }

        @Override
        public void send(final MemorySegment from)
        {
            long at = position & (RING - 1);
            if (at + RECORD + HEADER > RING)
            {
                // the ring's end: a PAD to it, the record at 0 (the echo never falls a lap behind)
                data.set(ValueLayout.JAVA_INT, 0, 0);
                INT.setRelease(data, at, PAD);
                position += RING - at;
                at = 0;
            }
            data.set(ValueLayout.JAVA_INT, at + 4, 1);
            data.set(ValueLayout.JAVA_LONG, at + 8, position);
            MemorySegment.copy(from, 0, data, at + HEADER, SIZE);
            data.set(ValueLayout.JAVA_INT, at + RECORD, 0);
            INT.setRelease(data, at, RECORD);
            position += RECORD;
            if (controlWords)
            {
                LONG.setRelease(control, TAIL, position);
            }
        }

        @Override
        public boolean receive(final MemorySegment into)
        {
            if (tailPolled && (long) LONG.getAcquire(control, TAIL) == position)
            {
                return false;
            }
            final long at = position & (RING - 1);
            final int length = (int) INT.getAcquire(data, at);
            if (length == 0)
            {
                return false;
            }
            if (length == PAD)
            {
                position += RING - at;
                return receive(into);
            }
            if (length != RECORD || data.get(ValueLayout.JAVA_INT, at + 4) != 1)
            {
                throw new IllegalStateException("record of " + length + " bytes at " + at);
            }
            if (controlWords)
            {
                if (!LONG.compareAndSet(control, CUT, cut, position + length))
                {
                    throw new IllegalStateException("cut moved");
                }
                cut = position + length;
            }
            MemorySegment.copy(data, at + HEADER, into, 0, SIZE);
            position += length;
            if (controlWords)
            {
                LONG.setRelease(control, HEAD, position);
            }
            return true;
        }
    }

    /** Descriptors apart from the payload: the receiver polls a descriptor's sequence word. */
    private static final class Descriptors implements End
    {
        private final MemorySegment control;
        private final MemorySegment data;
        private final MemorySegment ring;
        private final long slots;
        private long count;

        Descriptors(final MemorySegment control, final MemorySegment data, final MemorySegment ring)
        {
            this.control = control;
            this.data = data;
            this.ring = ring;
            this.slots = data.byteSize() / STRIDE;
        }

        @Override
        public void send(final MemorySegment from)
        {
            final long d = (count % DESCRIPTORS) * 16;
            MemorySegment.copy(from, 0, data, (count % slots) * STRIDE, SIZE);
            ring.set(ValueLayout.JAVA_INT, d + 8, SIZE);
            ring.set(ValueLayout.JAVA_INT, d + 12, 1);
            LONG.setRelease(ring, d, ++count);
        }

        @Override
        public boolean receive(final MemorySegment into)
        {
            final long d = (count % DESCRIPTORS) * 16;
            if ((long) LONG.getAcquire(ring, d) != count + 1)
            {
                return false;
            }
            final int length = ring.get(ValueLayout.JAVA_INT, d + 8);
            if (length != SIZE || ring.get(ValueLayout.JAVA_INT, d + 12) != 1)
            {
                throw new IllegalStateException("descriptor of " + length + " bytes");
            }
            MemorySegment.copy(data, (count % slots) * STRIDE, into, 0, length);
            count++;
            LONG.setRelease(control, HEAD, count);
            return true;
        }
    }
}

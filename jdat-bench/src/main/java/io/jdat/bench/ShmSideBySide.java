package io.jdat.bench;

import io.aeron.Aeron;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A 64-byte ping-pong between two threads of this process, several ways side by side in one run:
 * a plain mapped-file ring each way (release/acquire spin, one copy in and one out per hop), Aeron
 * IPC ({@code aeron:ipc}, an embedded media driver, as Aeron's {@code EmbeddedPingPong}), and jdat's
 * {@code shm} provider (two IAs of this process, a Send each way, both threads polling
 * {@code dat_evd_dequeue}), and the floor of shm's own shape with no DAT in it ({@link ShmShape}:
 * shm's record, claim and completion in plain code, with and without the claim). Every round
 * runs each contender in turn, its own echo thread only (two spinning threads on a 2-core machine,
 * never more), and prints half the round trip (p50, p90, p99) and the median over the rounds of
 * each round's ratios (a round shares one load). Not a JMH benchmark: run it as
 * <pre>
 *   java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
 *     --enable-native-access=ALL-UNNAMED -cp jdat-bench/target/jdat-benchmarks.jar io.jdat.bench.ShmSideBySide \
 *     [iterations per round, default 100000] [rounds, default 5]
 * </pre>
 * (Aeron's Agrona reaches {@code jdk.internal.misc}; jdat itself needs none of these flags.)
 */
public final class ShmSideBySide
{
    private static final int SIZE = 64;

    private ShmSideBySide()
    {
    }

    /** One way of doing a round trip, with an echo thread it starts and stops. */
    private interface PingPong extends AutoCloseable
    {
        String name();

        void startEcho();

        void stopEcho() throws InterruptedException;

        /** One round trip of {@link #SIZE} bytes. */
        void roundTrip();

        @Override
        void close();
    }

    public static void main(final String[] args) throws Exception
    {
        final int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        final List<PingPong> all = List.of(new MappedFile(), new AeronIpc(), new JdatShm(), new ShmShape(true),
            new ShmShape(false));
        final double[][] p50 = new double[all.size()][rounds];
        System.out.printf("64-byte ping-pong, two threads of one process, %d round trips per round, %d rounds;"
            + " half a round trip in ns%n", iterations, rounds);
        try
        {
            for (int r = 0; r < rounds; r++)
            {
                for (int c = 0; c < all.size(); c++)
                {
                    final PingPong p = all.get(c);
                    p.startEcho();
                    try
                    {
                        final long[] half = measure(p, iterations);
                        p50[c][r] = half[half.length / 2];
                        System.out.printf("round %d  %-28s p50 %7d  p90 %7d  p99 %8d%n", r + 1, p.name(),
                            half[half.length / 2], half[(int) (half.length * 0.9)], half[(int) (half.length * 0.99)]);
                    }
                    finally
                    {
                        p.stopEcho();
                    }
                }
            }
        }
        finally
        {
            for (final PingPong p : all)
            {
                p.close();
            }
        }
        System.out.printf("median of the rounds' p50: mapped file %.0f ns, Aeron IPC %.0f ns, jdat shm %.0f ns%n",
            median(p50[0]), median(p50[1]), median(p50[2]));
        // each round runs the three back to back: their ratio within a round shares the machine's load
        System.out.printf("median of the rounds' ratios of p50: jdat / mapped file %.2f, jdat / Aeron IPC %.2f,"
            + " Aeron IPC / mapped file %.2f%n", medianRatio(p50[2], p50[0]), medianRatio(p50[2], p50[1]),
            medianRatio(p50[1], p50[0]));
        System.out.printf("median of the rounds' ratios of p50: shm's shape / mapped file %.2f, shm's shape / Aeron IPC"
            + " %.2f, without the claim: %.2f and %.2f%n", medianRatio(p50[3], p50[0]), medianRatio(p50[3], p50[1]),
            medianRatio(p50[4], p50[0]), medianRatio(p50[4], p50[1]));
    }

    private static double median(final double[] values)
    {
        final double[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }

    private static double medianRatio(final double[] a, final double[] b)
    {
        final double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++)
        {
            r[i] = a[i] / b[i];
        }
        return median(r);
    }

    /** Half round trips of {@code n} measured iterations after a tenth as many unmeasured, sorted. */
    private static long[] measure(final PingPong p, final int n)
    {
        for (int i = 0; i < n / 10; i++)
        {
            p.roundTrip();
        }
        final long[] half = new long[n];
        for (int i = 0; i < n; i++)
        {
            final long t0 = System.nanoTime();
            p.roundTrip();
            half[i] = (System.nanoTime() - t0) / 2;
        }
        Arrays.sort(half);
        return half;
    }

    /** An echo thread that runs {@code step} until stopped; step returns whether it did anything. */
    private static final class Echo
    {
        private final Thread thread;
        private volatile boolean running = true;

        Echo(final String name, final java.util.function.BooleanSupplier step)
        {
            thread = new Thread(() ->
            {
                while (running)
                {
                    if (!step.getAsBoolean())
                    {
                        Thread.onSpinWait();
                    }
                }
            }, name);
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException
        {
            running = false;
            thread.join(5000);
        }
    }

    /** The plain baseline: one mapped file, a ring of 64-byte slots each way, a head counter per ring. */
    private static final class MappedFile implements PingPong
    {
        private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
        private static final int SLOTS = 64;
        private final Arena arena = Arena.ofShared();
        private final Path file;
        private final MemorySegment map;
        private final MemorySegment src;
        private final MemorySegment dst;
        private final MemorySegment echoBuf;
        private long pingSent;
        private long pongSeen;
        private long echoSeen;
        private Echo echo;

        MappedFile() throws IOException
        {
            final Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir"));
            file = Files.createTempFile(dir, "jdat-bench-", ".ring");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096 + 2L * SLOTS * SIZE, arena);
            }
            src = arena.allocate(SIZE, 64);
            dst = arena.allocate(SIZE, 64);
            echoBuf = arena.allocate(SIZE, 64);
        }

        @Override
        public String name()
        {
            return "mapped file, plain Java";
        }

        private static long slot(final int ring, final long n)
        {
            return 4096 + ((long) ring * SLOTS + n % SLOTS) * SIZE;
        }

        @Override
        public void startEcho()
        {
            echo = new Echo("bench-echo-mapped", () ->
            {
                final long head = (long) LONG.getAcquire(map, 0L);
                if (head == echoSeen)
                {
                    return false;
                }
                MemorySegment.copy(map, slot(0, echoSeen), echoBuf, 0, SIZE);
                MemorySegment.copy(echoBuf, 0, map, slot(1, echoSeen), SIZE);
                echoSeen++;
                LONG.setRelease(map, 128L, echoSeen);
                return true;
            });
        }

        @Override
        public void stopEcho() throws InterruptedException
        {
            echo.stop();
        }

        @Override
        public void roundTrip()
        {
            MemorySegment.copy(src, 0, map, slot(0, pingSent), SIZE);
            LONG.setRelease(map, 0L, ++pingSent);
            while ((long) LONG.getAcquire(map, 128L) == pongSeen)
            {
                Thread.onSpinWait();
            }
            MemorySegment.copy(map, slot(1, pongSeen), dst, 0, SIZE);
            pongSeen++;
        }

        @Override
        public void close()
        {
            arena.close();
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The floor of shm's own shape with no DAT in it: each way a byte ring in one mapped file laid
     * out as shm's {@code SpscRing} (tail, head and the consumer's claim word on lines of their own)
     * carrying shm's Send record (a 16-byte header of length, type and flags, MSN and MO, then the
     * 64-byte payload: 80 bytes, two lines); the sender writes the record and publishes the tail;
     * the receiver checks the header, claims the record with a compare-and-set on the claim word
     * ({@code claim}; shm does so per record), copies the payload into the buffer its posted
     * receive descriptor names, publishes its head, writes its own 16-byte completion (cookie,
     * length, status) and reads it back, as its dequeue would, and reposts the descriptor. No
     * lock, no engine object, no futex: what any engine with shm's record, claim and completion
     * pays at least.
     */
    private static final class ShmShape implements PingPong
    {
        private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
        private static final int RECORD = 80;
        private static final int HEADER = 16;
        private static final long CAPACITY = RECORD * 1024L;
        private static final long TAIL = 0;
        private static final long HEAD = 128;
        private static final long CUT = 192;
        private static final long RING = 256 + CAPACITY;
        private final boolean claim;
        private final Arena arena = Arena.ofShared();
        private final Path file;
        private final MemorySegment map;
        private final End ping;
        private final End pong;
        private Echo echo;

        /** One thread's side: its send ring's tail, its receive ring's head and claim, its descriptors and CQ. */
        private final class End
        {
            final long tx;
            final long rx;
            final MemorySegment src;
            final MemorySegment[] recvBuf = new MemorySegment[16];
            final long[] recvCookie = new long[16];
            final MemorySegment cq;
            long tail;
            long knownHead;
            long head;
            long cut;
            int recvFirst;
            long cqTail;
            int msn;

            End(final long tx, final long rx)
            {
                this.tx = tx;
                this.rx = rx;
                src = arena.allocate(SIZE, 64);
                cq = arena.allocate(16 * 64, 64);
                for (int i = 0; i < recvBuf.length; i++)
                {
                    recvBuf[i] = arena.allocate(SIZE, 64);
                    recvCookie[i] = i;
                }
            }

            void send(final MemorySegment from)
            {
                while (tail + RECORD - knownHead > CAPACITY)
                {
                    knownHead = (long) LONG.getAcquire(map, tx + HEAD);
                }
                final long at = tx + 256 + tail % CAPACITY;
                map.set(ValueLayout.JAVA_INT, at, HEADER + SIZE);
                map.set(ValueLayout.JAVA_INT, at + 4, 1 << 16);
                map.set(ValueLayout.JAVA_INT, at + 8, msn++);
                map.set(ValueLayout.JAVA_INT, at + 12, 0);
                MemorySegment.copy(from, 0, map, at + HEADER, SIZE);
                tail += RECORD;
                LONG.setRelease(map, tx + TAIL, tail);
            }

            /** The received payload's buffer, or null when nothing came. */
            MemorySegment receive()
            {
                if ((long) LONG.getAcquire(map, rx + TAIL) == head)
                {
                    return null;
                }
                final long at = rx + 256 + head % CAPACITY;
                final int length = map.get(ValueLayout.JAVA_INT, at);
                final int word = map.get(ValueLayout.JAVA_INT, at + 4);
                if (length != HEADER + SIZE || (word & 0xFFFF) != 0)
                {
                    throw new IllegalStateException("record " + length + " " + word);
                }
                if (claim && !LONG.compareAndSet(map, rx + CUT, cut, cut + RECORD))
                {
                    throw new IllegalStateException("withdrawn");
                }
                cut += RECORD;
                final int slot = recvFirst;
                recvFirst = (recvFirst + 1) & (recvBuf.length - 1);
                final MemorySegment into = recvBuf[slot];
                MemorySegment.copy(map, at + HEADER, into, 0, length - HEADER);
                head += RECORD;
                LONG.setRelease(map, rx + HEAD, head);
                final long c = (cqTail++ & 63) * 16;
                cq.set(ValueLayout.JAVA_LONG, c, recvCookie[slot]);
                cq.set(ValueLayout.JAVA_INT, c + 8, length - HEADER);
                cq.set(ValueLayout.JAVA_INT, c + 12, 0);
                // the dequeue: the completion read back, the descriptor reposted
                if (cq.get(ValueLayout.JAVA_INT, c + 12) != 0 || cq.get(ValueLayout.JAVA_INT, c + 8) != SIZE)
                {
                    throw new IllegalStateException("completion");
                }
                recvCookie[slot] = cq.get(ValueLayout.JAVA_LONG, c);
                return into;
            }
        }

        ShmShape(final boolean claim) throws IOException
        {
            this.claim = claim;
            final Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir"));
            file = Files.createTempFile(dir, "jdat-bench-", ".ring");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 2 * RING, arena);
            }
            ping = new End(0, RING);
            pong = new End(RING, 0);
        }

        @Override
        public String name()
        {
            return claim ? "shm's shape, no DAT" : "shm's shape, no claim";
        }

        @Override
        public void startEcho()
        {
            echo = new Echo("bench-echo-shape", () ->
            {
                final MemorySegment got = pong.receive();
                if (got == null)
                {
                    return false;
                }
                pong.send(got);
                return true;
            });
        }

        @Override
        public void stopEcho() throws InterruptedException
        {
            echo.stop();
        }

        @Override
        public void roundTrip()
        {
            ping.send(ping.src);
            while (ping.receive() == null)
            {
                Thread.onSpinWait();
            }
        }

        @Override
        public void close()
        {
            arena.close();
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Aeron IPC as its EmbeddedPingPong sample: a media driver in this process (one shared thread
     * with Aeron's backoff idle strategy, so it does not spin beside the two measured threads),
     * {@code aeron:ipc} on stream 1001 one way and 1002 the other; the echo offers each fragment
     * back as it polls it.
     */
    private static final class AeronIpc implements PingPong
    {
        private final MediaDriver driver;
        private final Aeron aeron;
        private final Publication ping;
        private final Subscription pingIn;
        private final Publication pong;
        private final Subscription pongIn;
        private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
        private final FragmentHandler echoHandler;
        private int pongs;
        private final FragmentHandler pongHandler = (b, o, l, h) -> pongs++;
        private Echo echo;

        AeronIpc()
        {
            driver = MediaDriver.launchEmbedded(new MediaDriver.Context().threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new BackoffIdleStrategy()).dirDeleteOnStart(true).dirDeleteOnShutdown(true));
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            ping = aeron.addPublication("aeron:ipc", 1001);
            pingIn = aeron.addSubscription("aeron:ipc", 1001);
            pong = aeron.addPublication("aeron:ipc", 1002);
            pongIn = aeron.addSubscription("aeron:ipc", 1002);
            while (!ping.isConnected() || !pong.isConnected())
            {
                Thread.onSpinWait();
            }
            echoHandler = (b, o, l, h) ->
            {
                while (pong.offer(b, o, l) < 0)
                {
                    Thread.onSpinWait();
                }
            };
        }

        @Override
        public String name()
        {
            return "Aeron IPC (embedded driver)";
        }

        @Override
        public void startEcho()
        {
            echo = new Echo("bench-echo-aeron", () -> pingIn.poll(echoHandler, 1) > 0);
        }

        @Override
        public void stopEcho() throws InterruptedException
        {
            echo.stop();
        }

        @Override
        public void roundTrip()
        {
            while (ping.offer(buffer, 0, SIZE) < 0)
            {
                Thread.onSpinWait();
            }
            final int want = pongs + 1;
            while (pongs < want)
            {
                if (pongIn.poll(pongHandler, 1) == 0)
                {
                    Thread.onSpinWait();
                }
            }
        }

        @Override
        public void close()
        {
            aeron.close();
            driver.close();
        }
    }

    /**
     * jdat over {@code shm}: two IAs of this process (each with its own port, as two processes
     * would have), a Send each way; both threads poll {@code dat_evd_dequeue}, so the rings move on
     * them and the IAs' I/O threads stay parked.
     */
    private static final class JdatShm implements PingPong
    {
        private static final int DEPTH = 16;
        private final Arena arena = Arena.ofShared();
        private final InterfaceAdapter serverIa;
        private final InterfaceAdapter clientIa;
        private final Endpoint client;
        private final Endpoint server;
        private final EventDispatcher clientRecv;
        private final EventDispatcher serverRecv;
        private final LmrTriplet[] ping;
        private final LmrTriplet[] pingRecv;
        private final LmrTriplet[] pong;
        private final LmrTriplet[] pongRecv;
        private final DatEvent event = new DatEvent();
        private final DatEvent echoEvent = new DatEvent();
        private Echo echo;

        JdatShm()
        {
            serverIa = Dat.iaOpen("shm", 16, new DatOut<>());
            clientIa = Dat.iaOpen("shm", 16, new DatOut<>());
            final ProtectionZone serverPz = serverIa.pzCreate();
            final ProtectionZone clientPz = clientIa.pzCreate();
            final Lmr clientLmr = lmr(clientIa, clientPz);
            final Lmr serverLmr = lmr(serverIa, serverPz);
            final EpAttr attr = new EpAttr();
            attr.maxRecvDtos = DEPTH;
            attr.maxRequestDtos = DEPTH;
            clientRecv = clientIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG);
            serverRecv = serverIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG);
            final EventDispatcher clientConn = clientIa.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            final EventDispatcher serverConn = serverIa.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            client = clientIa.epCreate(clientPz, clientRecv, clientIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG),
                clientConn, attr);
            server = serverIa.epCreate(serverPz, serverRecv, serverIa.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG),
                serverConn, attr);
            LoopbackRig.connect(serverIa, client, server, clientConn, serverConn);
            ping = new LmrTriplet[] {LmrTriplet.of(clientLmr, 0, SIZE)};
            pingRecv = new LmrTriplet[] {LmrTriplet.of(clientLmr, 4096, SIZE)};
            pong = new LmrTriplet[] {LmrTriplet.of(serverLmr, 0, SIZE)};
            pongRecv = new LmrTriplet[] {LmrTriplet.of(serverLmr, 4096, SIZE)};
            // the client reposts before it takes the round's completion: one slot left for that
            for (int i = 0; i < DEPTH; i++)
            {
                if (i < DEPTH - 1)
                {
                    client.postRecv(1, pingRecv, i, 0);
                }
                server.postRecv(1, pongRecv, i, 0);
            }
        }

        private Lmr lmr(final InterfaceAdapter ia, final ProtectionZone pz)
        {
            final MemorySegment m = arena.allocate(1 << 16, 4096);
            return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz, MemPriv.ALL_FLAG);
        }

        @Override
        public String name()
        {
            return "jdat shm (two IAs)";
        }

        @Override
        public void startEcho()
        {
            echo = new Echo("bench-echo-jdat", () ->
            {
                if (serverRecv.dequeue(echoEvent) != DatStatus.SUCCESS)
                {
                    return false;
                }
                if (echoEvent.dto.status != DtoStatus.SUCCESS)
                {
                    throw new IllegalStateException("echo: " + echoEvent);
                }
                // the reply first, then the repost, which then overlaps the reply's flight
                server.postSend(1, pong, 0, CompletionFlags.SUPPRESS_FLAG);
                server.postRecv(1, pongRecv, 0, 0);
                return true;
            });
        }

        @Override
        public void stopEcho() throws InterruptedException
        {
            echo.stop();
        }

        @Override
        public void roundTrip()
        {
            client.postSend(1, ping, 0, CompletionFlags.SUPPRESS_FLAG);
            // the receive given back for a later round, while the ping travels (DEPTH are posted)
            client.postRecv(1, pingRecv, 0, 0);
            while (clientRecv.dequeue(event) != DatStatus.SUCCESS)
            {
                Thread.onSpinWait();
            }
            if (event.dto.status != DtoStatus.SUCCESS)
            {
                throw new IllegalStateException("ping: " + event);
            }
        }

        @Override
        public void close()
        {
            clientIa.close(CloseFlags.ABRUPT_FLAG);
            serverIa.close(CloseFlags.ABRUPT_FLAG);
            arena.close();
        }
    }
}

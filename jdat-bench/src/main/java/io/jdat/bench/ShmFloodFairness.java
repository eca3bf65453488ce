package io.jdat.bench;

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
import io.jdat.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Does one connection's flood slow another connection of the same shm port? A 64-byte Send
 * ping-pong between IA {@code A} (the port measured: its thread polls the receive EVD, so it reads
 * its own connection's ring and runs the port's round over the other connections when that ring
 * is empty or every 64 polls) and IA {@code B}, while a third IA floods RDMA Writes of W bytes
 * (bursts of 16 or {@code -Djdat.bench.burst}, each burst waited for; a Write completes once the
 * target consumed it) either into
 * another endpoint of {@code A} (the same port: A's polling thread places them in its rounds) or
 * into a fourth IA {@code O} (another port: its I/O thread places them; the same load on the
 * machine's two cores, none on A's port), or not at all. Each round measures the three cases for
 * each W in turn and prints half the ping-pong's round trip (p50, p99, p99.9, max) and the Writes
 * placed a second; the ratios that count are same port ÷ other port, round by round. Run as
 * <pre>
 *   java --enable-native-access=ALL-UNNAMED -cp jdat-bench/target/jdat-benchmarks.jar \
 *     io.jdat.bench.ShmFloodFairness [iterations per case, default 50000] [rounds, default 5] \
 *     [W list, default 64,4096,65536]
 * </pre>
 */
public final class ShmFloodFairness
{
    private static final int SIZE = 64;
    /** Writes in flight at once ({@code -Djdat.bench.burst}, default 16; the queues hold 64). */
    private static final int BURST = Integer.getInteger("jdat.bench.burst", 16);
    private static final int DEPTH = 64;
    private static final long TARGET = 1 << 20;

    private final Arena arena = Arena.ofShared();
    private final List<InterfaceAdapter> ias = new ArrayList<>();
    private final Endpoint ping;
    private final EventDispatcher pingRecv;
    private final Endpoint echo;
    private final EventDispatcher echoRecv;
    private final LmrTriplet[] pingBuf;
    private final LmrTriplet[] pingRecvBuf;
    private final LmrTriplet[] echoBuf;
    private final LmrTriplet[] echoRecvBuf;
    /** The flooding endpoints, into A (index 0) and into O (index 1), and their request EVDs. */
    private final Endpoint[] flood = new Endpoint[2];
    private final EventDispatcher[] floodDone = new EventDispatcher[2];
    private final Lmr floodSource;
    private final RmrTriplet[] floodTarget = new RmrTriplet[2];

    private ShmFloodFairness()
    {
        final InterfaceAdapter a = open();
        final InterfaceAdapter b = open();
        final InterfaceAdapter f = open();
        final InterfaceAdapter o = open();
        final ProtectionZone apz = a.pzCreate();
        final ProtectionZone bpz = b.pzCreate();
        final ProtectionZone fpz = f.pzCreate();
        final ProtectionZone opz = o.pzCreate();
        final Lmr alm = lmr(a, apz, 1 << 16);
        final Lmr blm = lmr(b, bpz, 1 << 16);
        final Pair pair = pair(a, apz, b, bpz);
        ping = pair.client;
        echo = pair.server;
        pingRecv = pair.clientRecv;
        echoRecv = pair.serverRecv;
        pingBuf = new LmrTriplet[] {LmrTriplet.of(alm, 0, SIZE)};
        pingRecvBuf = new LmrTriplet[] {LmrTriplet.of(alm, 4096, SIZE)};
        echoBuf = new LmrTriplet[] {LmrTriplet.of(blm, 0, SIZE)};
        echoRecvBuf = new LmrTriplet[] {LmrTriplet.of(blm, 4096, SIZE)};
        for (int i = 0; i < DEPTH; i++)
        {
            ping.postRecv(1, pingRecvBuf, i, 0);
            echo.postRecv(1, echoRecvBuf, i, 0);
        }
        floodSource = lmr(f, fpz, TARGET);
        final Lmr intoA = lmr(a, apz, TARGET);
        final Lmr intoO = lmr(o, opz, TARGET);
        final Pair toA = pair(f, fpz, a, apz);
        final Pair toO = pair(f, fpz, o, opz);
        flood[0] = toA.client;
        flood[1] = toO.client;
        floodDone[0] = toA.clientRequests;
        floodDone[1] = toO.clientRequests;
        floodTarget[0] = new RmrTriplet(intoA.rmrContext(), intoA.registeredAddress(), TARGET);
        floodTarget[1] = new RmrTriplet(intoO.rmrContext(), intoO.registeredAddress(), TARGET);
    }

    private InterfaceAdapter open()
    {
        final InterfaceAdapter ia = Dat.iaOpen("shm", 16, new DatOut<>());
        ias.add(ia);
        return ia;
    }

    private Lmr lmr(final InterfaceAdapter ia, final ProtectionZone pz, final long size)
    {
        final MemorySegment m = arena.allocate(size, 4096);
        return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz, MemPriv.ALL_FLAG);
    }

    /** A connection's two endpoints and the EVDs used. */
    private record Pair(Endpoint client, EventDispatcher clientRecv, EventDispatcher clientRequests, Endpoint server,
        EventDispatcher serverRecv)
    {
    }

    /** A connected pair, each end with EVDs of its own: a client of {@code c}, a server of {@code s}. */
    private static Pair pair(final InterfaceAdapter c, final ProtectionZone cpz, final InterfaceAdapter s,
        final ProtectionZone spz)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = DEPTH;
        attr.maxRequestDtos = DEPTH;
        final EventDispatcher cc = c.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher sc = s.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final EventDispatcher cr = c.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG);
        final EventDispatcher cq = c.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG);
        final EventDispatcher sr = s.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG);
        final Endpoint client = c.epCreate(cpz, cr, cq, cc, attr);
        final Endpoint server = s.epCreate(spz, sr, s.evdCreate(2 * DEPTH, null, EvdFlags.DTO_FLAG), sc, attr);
        LoopbackRig.connect(s, client, server, cc, sc);
        return new Pair(client, cr, cq, server, sr);
    }

    /** Floods RDMA Writes of {@code size} bytes through {@code flood[i]} until stopped; counts them. */
    private final class Flood
    {
        private final Thread thread;
        private volatile boolean running = true;
        private long writes;

        Flood(final int i, final long size)
        {
            final LmrTriplet[] src = {LmrTriplet.of(floodSource, 0, size)};
            final RmrTriplet dst = new RmrTriplet(floodTarget[i].rmrContext, floodTarget[i].targetAddress, size);
            thread = new Thread(() ->
            {
                final DatEvent ev = new DatEvent();
                long n = 0;
                while (running)
                {
                    for (int k = 0; k < BURST; k++)
                    {
                        flood[i].postRdmaWrite(1, src, k, dst, 0);
                    }
                    for (int k = 0; k < BURST;)
                    {
                        if (floodDone[i].dequeue(ev) == DatStatus.SUCCESS)
                        {
                            if (ev.dto.status != DtoStatus.SUCCESS)
                            {
                                throw new IllegalStateException("flood: " + ev);
                            }
                            k++;
                        }
                        else
                        {
                            Thread.yield();
                        }
                    }
                    n += BURST;
                }
                writes = n;
            }, "bench-flood");
            thread.setDaemon(true);
            thread.start();
        }

        long stop() throws InterruptedException
        {
            running = false;
            thread.join(30_000);
            return writes;
        }
    }

    private final class Echo
    {
        private final Thread thread;
        private volatile boolean running = true;

        Echo()
        {
            thread = new Thread(() ->
            {
                final DatEvent ev = new DatEvent();
                while (running)
                {
                    if (echoRecv.dequeue(ev) != DatStatus.SUCCESS)
                    {
                        Thread.onSpinWait();
                        continue;
                    }
                    if (ev.dto.status != DtoStatus.SUCCESS)
                    {
                        throw new IllegalStateException("echo: " + ev);
                    }
                    echo.postRecv(1, echoRecvBuf, 0, 0);
                    echo.postSend(1, echoBuf, 0, CompletionFlags.SUPPRESS_FLAG);
                }
            }, "bench-echo");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException
        {
            running = false;
            thread.join(5000);
        }
    }

    /** Half round trips (ns) of {@code n} ping-pongs, sorted. */
    private long[] pingPong(final int n)
    {
        final DatEvent ev = new DatEvent();
        final long[] half = new long[n];
        for (int i = 0; i < n; i++)
        {
            final long t = System.nanoTime();
            ping.postSend(1, pingBuf, 0, CompletionFlags.SUPPRESS_FLAG);
            while (pingRecv.dequeue(ev) != DatStatus.SUCCESS)
            {
                Thread.onSpinWait();
            }
            half[i] = (System.nanoTime() - t) / 2;
            if (ev.dto.status != DtoStatus.SUCCESS)
            {
                throw new IllegalStateException("ping: " + ev);
            }
            ping.postRecv(1, pingRecvBuf, 0, 0);
        }
        Arrays.sort(half);
        return half;
    }

    private static long at(final long[] sorted, final double q)
    {
        return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))];
    }

    /** A's progress rounds so far: on its I/O thread and on consumer threads. */
    private long[] rounds()
    {
        final io.jdat.IaAttr attr = new io.jdat.IaAttr();
        ias.get(0).query(io.jdat.IaAttr.FIELD_ALL, attr, 0, null);
        return new long[] {Long.parseLong(attr.transportAttr("jdat.shm.rounds_io_thread")),
            Long.parseLong(attr.transportAttr("jdat.shm.rounds_inline"))};
    }

    /** One case: p50, p99, p99.9, max (ns), Writes a second, A's I/O thread and inline rounds. */
    private double[] measure(final int iterations, final int mode, final long size) throws InterruptedException
    {
        final Echo e = new Echo();
        pingPong(iterations / 10);
        final Flood f = mode == 0 ? null : new Flood(mode == 1 ? 1 : 0, size);
        Thread.sleep(20);
        final long[] r0 = rounds();
        final long t = System.nanoTime();
        final long[] h = pingPong(iterations);
        final long took = System.nanoTime() - t;
        final long[] r1 = rounds();
        final long writes = f == null ? 0 : f.stop();
        e.stop();
        return new double[] {at(h, 0.5), at(h, 0.99), at(h, 0.999), h[h.length - 1], writes / (took / 1e9),
            r1[0] - r0[0], r1[1] - r0[1]};
    }

    private static double median(final List<Double> v)
    {
        final double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length == 0 ? Double.NaN : a[a.length / 2];
    }

    public static void main(final String[] args) throws Exception
    {
        final int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        final long[] sizes = Arrays.stream((args.length > 2 ? args[2] : "64,4096,65536").split(","))
            .mapToLong(Long::parseLong).toArray();
        final String[] names = {"none", "other port", "same port"};
        final ShmFloodFairness rig = new ShmFloodFairness();
        final List<List<Double>> p50Ratio = new ArrayList<>();
        final List<List<Double>> p99Ratio = new ArrayList<>();
        for (int s = 0; s < sizes.length; s++)
        {
            p50Ratio.add(new ArrayList<>());
            p99Ratio.add(new ArrayList<>());
        }
        for (int r = 0; r < rounds; r++)
        {
            for (int s = 0; s < sizes.length; s++)
            {
                final double[][] res = new double[3][];
                for (int k = 0; k < 3; k++)
                {
                    // the order turns from round to round
                    final int mode = (k + r) % 3;
                    res[mode] = rig.measure(iterations, mode, sizes[s]);
                }
                for (int mode = 0; mode < 3; mode++)
                {
                    System.out.printf("round %d, W %7d B, flood %-10s: half RTT p50 %7.0f p99 %7.0f p99.9 %8.0f"
                        + " max %9.0f ns; Writes %9.0f /s; A's rounds: I/O thread %.0f, inline %.0f%n", r, sizes[s],
                        names[mode], res[mode][0], res[mode][1], res[mode][2], res[mode][3], res[mode][4], res[mode][5],
                        res[mode][6]);
                }
                p50Ratio.get(s).add(res[2][0] / res[1][0]);
                p99Ratio.get(s).add(res[2][1] / res[1][1]);
            }
        }
        for (int s = 0; s < sizes.length; s++)
        {
            System.out.printf("W %7d B: same port / other port, median of the rounds: p50 %.2f (%s),"
                + " p99 %.2f (%s)%n",
                sizes[s], median(p50Ratio.get(s)), fmt(p50Ratio.get(s)), median(p99Ratio.get(s)), fmt(p99Ratio.get(s)));
        }
        for (final InterfaceAdapter ia : rig.ias)
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        rig.arena.close();
    }

    private static String fmt(final List<Double> v)
    {
        final StringBuilder b = new StringBuilder();
        for (final double d : v)
        {
            b.append(b.isEmpty() ? "" : " ").append(String.format("%.2f", d));
        }
        return b.toString();
    }
}

package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.CloseFlags;
import io.jdat.CrParam;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Endpoint;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.NamedAttr;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scale: one IA with {@value #DEFAULT_EPS} connected endpoints that share one SRQ, on tcp over
 * 127.0.0.1 (the other ends in a second JVM, so each process stays below the open-file limit).
 * The peer connects its endpoints through one PSP in waves, each with its number as private
 * data, and Sends its number once on each; the server reads every number exactly once from the
 * SRQ's buffers, on the endpoint accepted for it, then disconnects them all. At the end no thread
 * of the IA is left. {@code -Djdat.scale.eps=N} changes the count.
 */
class ScaleTest
{
    static final int DEFAULT_EPS = 10_000;
    private static final int EPS = Integer.getInteger("jdat.scale.eps", DEFAULT_EPS);
    /** Endpoints connected, and later sending, at a time. */
    private static final int WAVE = 500;
    private static final int SLOT = 8;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void tenThousandEndpointsOfOneIaShareOneSrq() throws Exception
    {
        final long needed = EPS + 1_000;
        assumeTrue(openFileLimit() >= needed, "the open-file limit is below " + needed + ": SKIPPING the scale test");
        final long threadsBefore = jdatThreads();
        // the default listen backlog holds a whole wave: with 128 the kernel dropped a wave's
        // handshakes by the thousand and the peers' retransmit back-off, not jdat, set the pace
        try (TcpNode server = TcpNode.open())
        {
            final EventDispatcher crEvd = server.evd(EPS + 16, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final SharedReceiveQueue srq = server.ia.srqCreate(server.pz, new SrqAttr(EPS, 1));
            final EventDispatcher serverRecv = server.evd(EPS + 16, EvdFlags.DTO_FLAG);
            final EventDispatcher serverConn = server.evd(2 * EPS + 16, EvdFlags.CONNECTION_FLAG);
            final Lmr slots = server.lmr((long) EPS * SLOT);
            for (int s = 0; s < EPS; s++)
            {
                srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(slots, (long) s * SLOT, SLOT)}, s);
            }
            final Endpoint[] servers = new Endpoint[EPS];
            final Map<Endpoint, Integer> serverIndex = new HashMap<>();

            final String java = ProcessHandle.current().info().command().orElseThrow();
            final Process peer = new ProcessBuilder(java, "-XX:+UseSerialGC", "-Xss2m", "-cp",
                System.getProperty("java.class.path"), Client.class.getName(), server.address.toString(),
                Long.toString(psp.connQual()), Integer.toString(EPS)).redirectErrorStream(true).start();
            final StringBuilder peerOut = new StringBuilder();
            final Thread reader = Thread.ofPlatform().daemon().start(() -> copy(peer, peerOut));
            try
            {
                // accept every endpoint the peer connects, in the order the requests come
                final long connectStart = System.nanoTime();
                for (int k = 0; k < EPS; k++)
                {
                    final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, peerOut, server);
                    final CrParam param = new CrParam();
                    cr.crArrival.crHandle.query(CrParam.FIELD_ALL, param);
                    final int i = ByteBuffer.wrap(param.privateData).getInt();
                    assertTrue(i >= 0 && i < EPS && servers[i] == null, "request " + i + " twice or unknown");
                    servers[i] = server.ia.epCreateWithSrq(server.pz, serverRecv, null, serverConn, srq, new EpAttr());
                    serverIndex.put(servers[i], i);
                    cr.crArrival.crHandle.accept(servers[i], null);
                }
                for (int k = 0; k < EPS; k++)
                {
                    next(serverConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, peerOut, server);
                }
                final double connectSeconds = (System.nanoTime() - connectStart) / 1e9;

                // every peer endpoint sends its number once: each arrives exactly once, through
                // the SRQ, on the endpoint that number was accepted on
                final boolean[] seen = new boolean[EPS];
                for (int k = 0; k < EPS; k++)
                {
                    final DatEvent got = next(serverRecv, EventNumber.DTO_COMPLETION_EVENT, peerOut, server);
                    assertEquals(DtoStatus.SUCCESS, got.dto.status, got.toString());
                    assertEquals(SLOT, got.dto.transferredLength, got.toString());
                    final long slot = got.dto.userCookie;
                    final int i = (int) slots.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, slot * SLOT);
                    assertTrue(i >= 0 && i < EPS && !seen[i], "number " + i + " arrived twice or is unknown");
                    assertEquals(i, serverIndex.get(got.dto.epHandle), "number " + i + " arrived on another endpoint");
                    seen[i] = true;
                    // the SRQ is full but for this one buffer: the repost must find it free
                    srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(slots, slot * SLOT, SLOT)}, slot);
                }

                for (final Endpoint ep : servers)
                {
                    ep.disconnect(CloseFlags.GRACEFUL_FLAG);
                }
                for (int k = 0; k < EPS; k++)
                {
                    next(serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED, peerOut, server);
                }
                for (final Endpoint ep : servers)
                {
                    ep.free();
                }
                assertTrue(peer.waitFor(60, TimeUnit.SECONDS), "the peer did not finish:\n" + peerOut);
                reader.join(5_000);
                assertEquals(0, peer.exitValue(), peerOut.toString());
                assertTrue(peerOut.toString().contains("peer: " + EPS + " disconnected"), peerOut.toString());
                System.out.printf("scale: %d endpoints of one IA connected in %.1f s (%.0f/s), one Send each "
                    + "through one SRQ, all disconnected%n", EPS, connectSeconds, EPS / connectSeconds);
            }
            finally
            {
                peer.destroyForcibly();
            }
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (jdatThreads() > threadsBefore && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(50);
        }
        assertEquals(threadsBefore, jdatThreads(), "threads of the closed IA are still running");
    }

    /**
     * The other side, in its own JVM (each process stays below the open-file limit): connects
     * COUNT endpoints to ADDRESS:PORT in waves, each with its number as private data, Sends its
     * number on each, and waits until the server has disconnected them all.
     */
    public static final class Client
    {
        public static void main(final String[] args)
        {
            final IaAddress address = IaAddress.parse(args[0]);
            final long port = Long.parseLong(args[1]);
            final int count = Integer.parseInt(args[2]);
            try (TcpNode node = TcpNode.open())
            {
                final EventDispatcher req = node.evd(count + 16, EvdFlags.DTO_FLAG);
                final EventDispatcher conn = node.evd(2 * count + 16, EvdFlags.CONNECTION_FLAG);
                final Lmr numbers = node.lmr((long) count * SLOT);
                final Endpoint[] eps = new Endpoint[count];
                for (int first = 0; first < count; first += WAVE)
                {
                    final int n = Math.min(WAVE, count - first);
                    for (int i = first; i < first + n; i++)
                    {
                        eps[i] = node.ia.epCreate(node.pz, null, req, conn, null);
                        eps[i].connect(address, port, 60 * SECOND, ByteBuffer.allocate(4).putInt(i).array(),
                            Qos.BEST_EFFORT, 0);
                    }
                    for (int k = 0; k < n; k++)
                    {
                        next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
                    }
                }
                System.out.println("peer: " + count + " connected");
                for (int i = 0; i < count; i++)
                {
                    numbers.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, (long) i * SLOT, i);
                    eps[i].postSend(1, new LmrTriplet[] {LmrTriplet.of(numbers, (long) i * SLOT, SLOT)}, i,
                        CompletionFlags.DEFAULT_FLAG);
                }
                for (int k = 0; k < count; k++)
                {
                    final DatEvent sent = next(req, EventNumber.DTO_COMPLETION_EVENT, null);
                    if (sent.dto.status != DtoStatus.SUCCESS)
                    {
                        throw new AssertionError("Send failed: " + sent);
                    }
                }
                System.out.println("peer: " + count + " sent");
                for (int k = 0; k < count; k++)
                {
                    next(conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                }
                for (final Endpoint ep : eps)
                {
                    ep.free();
                }
                System.out.println("peer: " + count + " disconnected");
            }
            catch (final Throwable t)
            {
                t.printStackTrace(System.out);
                System.exit(1);
            }
            System.exit(0);
        }
    }

    private static void copy(final Process p, final StringBuilder into)
    {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                synchronized (into)
                {
                    into.append(line).append('\n');
                }
            }
        }
        catch (final IOException e)
        {
            // the peer is gone
        }
    }

    private static DatEvent next(final EventDispatcher evd, final EventNumber expected, final StringBuilder peerOut)
    {
        return next(evd, expected, peerOut, null);
    }

    /** The next event, which must be {@code expected}; a failure says what the server's IA counted. */
    private static DatEvent next(final EventDispatcher evd, final EventNumber expected, final StringBuilder peerOut,
        final TcpNode server)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(30 * SECOND, 1, ev, new DatCount());
        assertEquals(DatStatus.SUCCESS, s, () -> "no " + expected + " within 30 s" + counts(server)
            + (peerOut == null ? "" : "; the peer said:\n" + peerOut));
        assertTrue(ev.is(expected), () -> "expected " + expected + ", got " + ev + counts(server));
        return ev;
    }

    /** The server IA's refusal counts: requests refused, half-open connections timed out or displaced. */
    private static String counts(final TcpNode server)
    {
        if (server == null)
        {
            return "";
        }
        final StringBuilder b = new StringBuilder("; the server counted");
        final IaAttr a = server.query();
        for (final NamedAttr v : a.vendorAttr)
        {
            b.append(' ').append(v.name()).append('=').append(v.value());
        }
        for (final NamedAttr v : a.transportAttr)
        {
            if (v.name().contains("half_open") || v.name().contains("accept"))
            {
                b.append(' ').append(v.name()).append('=').append(v.value());
            }
        }
        return b.toString();
    }

    private static long jdatThreads()
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("jdat-tcp-")).count();
    }

    private static long openFileLimit() throws IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc/self/limits")))
        {
            if (line.startsWith("Max open files"))
            {
                return Long.parseLong(line.substring(25).trim().split("\\s+")[0]);
            }
        }
        return 0;
    }
}

package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * Every byte arrives, in the right place, and nothing else is touched: {@code dat_ep_post_send}
 * (into {@code dat_ep_post_recv}'s scatter list), {@code dat_ep_post_rdma_write} and
 * {@code dat_ep_post_rdma_read} over a connected loopback pair, with random segment lists (1 to
 * {@link #MAX_IOV} segments, some of them empty, spread over several LMRs at random offsets) and
 * sizes from 0 bytes to 2 MiB. The target LMRs are filled with a marker before each try; after
 * it, each is compared byte for byte with the image it must have: the data where the operation
 * places it (segments filled in order, digest §2.8), the marker everywhere else.
 */
class DataIntegrityTest
{
    private static final int MAX_SIZE = 2 << 20;
    private static final int MAX_IOV = 8;
    /** Room for the largest message plus the gaps between scattered segments. */
    private static final int LMR_SIZE = MAX_SIZE + 8192;
    private static final int LMRS = 3;

    private Fixture f;
    private Fixture.Ep initiator;
    private Fixture.Ep target;
    /** Memory the initiator sends or writes from, and receives or reads into. */
    private final Lmr[] local = new Lmr[LMRS];
    /** Memory at the target side: receive buffers, RDMA Write targets, RDMA Read sources. */
    private final Lmr[] remote = new Lmr[LMRS];
    private long cookie;

    /** One segment: which LMR of a set, where in it, how long. */
    private record Segment(int lmr, long offset, long length)
    {
    }

    @BeforeProperty
    void connect()
    {
        f = new Fixture();
        final EpAttr attr = new EpAttr();
        attr.maxRequestIov = MAX_IOV;
        attr.maxRecvIov = MAX_IOV;
        attr.maxRdmaReadIov = MAX_IOV;
        attr.maxRdmaWriteIov = MAX_IOV;
        final Fixture.Ep[] pair = f.connectedPair(attr);
        initiator = pair[0];
        target = pair[1];
        for (int i = 0; i < LMRS; i++)
        {
            local[i] = f.lmr(LMR_SIZE);
            remote[i] = f.lmr(LMR_SIZE);
        }
    }

    @AfterProperty
    void close()
    {
        f.close();
    }

    @Provide
    Arbitrary<Integer> sizes()
    {
        return Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.just(0)),
            Tuple.of(3, Arbitraries.integers().between(1, 4096)),
            Tuple.of(3, Arbitraries.integers().between(4097, 256 << 10)),
            Tuple.of(2, Arbitraries.integers().between(256 << 10, MAX_SIZE)));
    }

    @Property(tries = 30)
    void sendPlacesEveryByteInTheReceiveSegmentsInOrder(@ForAll("sizes") final int size,
        @ForAll @IntRange(min = 1, max = MAX_IOV) final int sendSegments,
        @ForAll @IntRange(min = 1, max = MAX_IOV) final int recvSegments, @ForAll final long seed)
    {
        final Random rnd = new Random(seed);
        final List<Segment> gather = gather(rnd, size, sendSegments);
        final List<Segment> scatter = scatter(rnd, size + rnd.nextInt(1024), recvSegments);
        fillSources(rnd, local, gather);
        final byte marker = (byte) rnd.nextInt();
        final byte[][] expected = marked(remote, marker);
        place(expected, scatter, concat(local, gather));
        final long recvCookie = ++cookie;
        final long sendCookie = ++cookie;
        target.ep().postRecv(scatter.size(), triplets(remote, scatter), recvCookie, 0);
        initiator.ep().postSend(gather.size(), triplets(local, gather), sendCookie, 0);
        completed(initiator.req(), sendCookie, size);
        completed(target.recv(), recvCookie, size);
        check(remote, expected);
    }

    @Property(tries = 30)
    void rdmaWritePlacesEveryByteInTheRemoteBufferAndNothingAroundIt(@ForAll("sizes") final int size,
        @ForAll @IntRange(min = 1, max = MAX_IOV) final int segments, @ForAll final long seed)
    {
        final Random rnd = new Random(seed);
        final List<Segment> gather = gather(rnd, size, segments);
        fillSources(rnd, local, gather);
        final int to = rnd.nextInt(LMRS);
        // the remote buffer may be longer than what is written
        final long room = size + rnd.nextInt(1024);
        final long at = (long) rnd.nextInt((int) (LMR_SIZE - room + 1));
        final byte marker = (byte) rnd.nextInt();
        final byte[][] expected = marked(remote, marker);
        place(expected, List.of(new Segment(to, at, size)), concat(local, gather));
        final long id = ++cookie;
        initiator.ep().postRdmaWrite(gather.size(), triplets(local, gather), id,
            new RmrTriplet(remote[to].rmrContext(), remote[to].registeredAddress() + at, room), 0);
        completed(initiator.req(), id, size);
        check(remote, expected);
        Connecting.assertEmpty(target.recv());
    }

    @Property(tries = 30)
    void rdmaReadPlacesEveryByteInTheLocalSegmentsInOrder(@ForAll("sizes") final int size,
        @ForAll @IntRange(min = 1, max = MAX_IOV) final int segments, @ForAll final long seed)
    {
        final Random rnd = new Random(seed);
        final int from = rnd.nextInt(LMRS);
        final long at = (long) rnd.nextInt(LMR_SIZE - size + 1);
        final Segment source = new Segment(from, at, size);
        fillSources(rnd, remote, List.of(source));
        final List<Segment> sink = scatter(rnd, size + rnd.nextInt(1024), segments);
        final byte marker = (byte) rnd.nextInt();
        final byte[][] expected = marked(local, marker);
        place(expected, sink, concat(remote, List.of(source)));
        final long id = ++cookie;
        initiator.ep().postRdmaRead(sink.size(), triplets(local, sink), id,
            new RmrTriplet(remote[from].rmrContext(), remote[from].registeredAddress() + at, size), 0);
        completed(initiator.req(), id, size);
        check(local, expected);
    }

    // ------------------------------------------------------------------ layouts

    /** {@code total} split into {@code n} lengths at random cut points (some may be 0). */
    private static long[] split(final Random rnd, final long total, final int n)
    {
        final long[] cuts = new long[n + 1];
        for (int i = 1; i < n; i++)
        {
            cuts[i] = total == 0 ? 0 : (long) (rnd.nextDouble() * (total + 1));
        }
        cuts[n] = total;
        Arrays.sort(cuts, 1, n);
        final long[] lengths = new long[n];
        for (int i = 0; i < n; i++)
        {
            lengths[i] = cuts[i + 1] - cuts[i];
        }
        return lengths;
    }

    /** Source segments: anywhere in any LMR (they may overlap: they are only read). */
    private static List<Segment> gather(final Random rnd, final long total, final int n)
    {
        final List<Segment> list = new ArrayList<>();
        for (final long length : split(rnd, total, n))
        {
            list.add(new Segment(rnd.nextInt(LMRS), (long) rnd.nextInt((int) (LMR_SIZE - length + 1)), length));
        }
        return list;
    }

    /** Target segments: spread over the LMRs in random order, never overlapping, with gaps. */
    private static List<Segment> scatter(final Random rnd, final long total, final int n)
    {
        final long[] cursor = new long[LMRS];
        final List<Segment> list = new ArrayList<>();
        for (final long length : split(rnd, total, n))
        {
            final int lmr = rnd.nextInt(LMRS);
            final long offset = cursor[lmr] + rnd.nextInt(512);
            cursor[lmr] = offset + length;
            list.add(new Segment(lmr, offset, length));
        }
        return list;
    }

    private static LmrTriplet[] triplets(final Lmr[] lmrs, final List<Segment> segments)
    {
        final LmrTriplet[] t = new LmrTriplet[segments.size()];
        for (int i = 0; i < t.length; i++)
        {
            final Segment s = segments.get(i);
            // an empty segment's context and address are not looked at (trap T-30): make them garbage
            t[i] = s.length() == 0 ? new LmrTriplet(0, -1L, 0) : LmrTriplet.of(lmrs[s.lmr()], s.offset(), s.length());
        }
        return t;
    }

    // ------------------------------------------------------------------ data

    private static void fillSources(final Random rnd, final Lmr[] lmrs, final List<Segment> segments)
    {
        for (final Segment s : segments)
        {
            final byte[] bytes = new byte[(int) s.length()];
            rnd.nextBytes(bytes);
            MemorySegment.copy(bytes, 0, lmrs[s.lmr()].memory(), ValueLayout.JAVA_BYTE, s.offset(), bytes.length);
        }
    }

    /** The bytes the segments describe, in order. */
    private static byte[] concat(final Lmr[] lmrs, final List<Segment> segments)
    {
        final long total = segments.stream().mapToLong(Segment::length).sum();
        final byte[] out = new byte[(int) total];
        int at = 0;
        for (final Segment s : segments)
        {
            MemorySegment.copy(lmrs[s.lmr()].memory(), ValueLayout.JAVA_BYTE, s.offset(), out, at, (int) s.length());
            at += (int) s.length();
        }
        return out;
    }

    /** Fills every LMR of the set with {@code marker}; returns the images they have now. */
    private static byte[][] marked(final Lmr[] lmrs, final byte marker)
    {
        final byte[][] images = new byte[lmrs.length][];
        for (int i = 0; i < lmrs.length; i++)
        {
            lmrs[i].memory().fill(marker);
            images[i] = new byte[LMR_SIZE];
            Arrays.fill(images[i], marker);
        }
        return images;
    }

    /** Writes {@code data} into the images through the segments, in order, as far as it goes. */
    private static void place(final byte[][] images, final List<Segment> segments, final byte[] data)
    {
        int at = 0;
        for (final Segment s : segments)
        {
            final int n = (int) Math.min(s.length(), data.length - at);
            System.arraycopy(data, at, images[s.lmr()], (int) s.offset(), n);
            at += n;
        }
        assertEquals(data.length, at, "the target segments must hold the data");
    }

    private static void completed(final EventDispatcher evd, final long id, final long size)
    {
        final DatEvent ev = Connecting.event(evd, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(id, ev.dto.userCookie, ev::toString);
        assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev::toString);
        assertEquals(size, ev.dto.transferredLength, ev::toString);
    }

    /** Each LMR of the set equals its image, byte for byte. */
    private static void check(final Lmr[] lmrs, final byte[][] images)
    {
        for (int i = 0; i < lmrs.length; i++)
        {
            final long at = lmrs[i].memory().mismatch(MemorySegment.ofArray(images[i]));
            if (at >= 0)
            {
                fail(String.format("LMR %d differs at byte %d: 0x%02x, expected 0x%02x", i, at,
                    lmrs[i].memory().get(ValueLayout.JAVA_BYTE, at), images[i][(int) at]));
            }
        }
    }
}

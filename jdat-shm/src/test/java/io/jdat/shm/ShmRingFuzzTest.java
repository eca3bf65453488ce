package io.jdat.shm;

import static io.jdat.testkit.FuzzVictim.READ_SINK;
import static io.jdat.testkit.FuzzVictim.READ_SIZE;
import static io.jdat.testkit.FuzzVictim.RECV_SIZE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.PspFlags;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.testkit.FuzzInput;
import io.jdat.testkit.FuzzVictim;
import io.jdat.testkit.GuardedRegions;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: what a peer process writes into the shared connection file of an shm connection,
 * as the victim IA reads it: the request fields, then the records of the peer's ring (one RDMAP
 * message segment each, {@link Frame}) or raw ring bytes with a forged tail.
 *
 * <p>Input: byte 0 options ({@link #OPT_RAW} raw ring bytes instead of records,
 * {@link #OPT_FORGE} overwrite some request bytes before posting it, {@link #OPT_REJECT} the
 * consumer rejects, {@link #OPT_READ} the victim posts an RDMA Read once connected,
 * {@link #OPT_HEAD} forge the head word of the victim's own ring). With {@code OPT_FORGE}: 2 bytes
 * offset (from 56, past the file header the victim checks before it answers at all), 1 byte
 * length, the bytes. Then either records, each {@code type flags lengthDelta msn stag mo to srcStag
 * term srcTo payloadLength payload} ({@link #RECORD_HEADER} bytes, big-endian, written through the
 * ring's own claim and commit, the length field off by {@code lengthDelta}), or for raw mode a
 * 2-byte tail, an 8-byte head for {@code OPT_HEAD}, and the ring bytes. STag and TO fields select
 * by {@code stag & 3} region A (remote rights), region B (local only), a forged STag, or the raw
 * value, as offsets from the region's base. The peer then says it is gone.
 *
 * <p>For every input: no exception leaves the provider (nothing in the log, no uncaught
 * exception, and no Terminate for a local catastrophic error, which is what the channel sends when
 * one reached it); a request is either raised with the private data the file holds or refused
 * with REJECTED_NON_PEER within 5 s; a connection ends with BROKEN or DISCONNECTED within 5 s;
 * every posted DTO completes once, none with a local protection error; no byte around the
 * registered regions, nor any byte of region B, changes; and the files of ended connections are
 * given back (open file descriptors and mappings stay within {@link #SLACK} of their number after
 * the first input).
 */
class ShmRingFuzzTest
{
    static final int OPT_RAW = 1;
    static final int OPT_FORGE = 2;
    static final int OPT_REJECT = 4;
    static final int OPT_READ = 8;
    static final int OPT_HEAD = 16;
    static final int RECORD_HEADER = 3 + 4 + 4 + 4 + 8 + 4 + 4 + 8 + 2;

    private static final long QUAL = 7100;
    private static final int RING = 65536;
    /** guard | A | guard | B | guard ({@link GuardedRegions}) */
    private static final int A_SIZE = 8192;
    private static final int[] TYPES = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE, RdmapOpcode.RDMA_WRITE,
        RdmapOpcode.RDMA_READ_REQUEST, RdmapOpcode.RDMA_READ_RESPONSE, RdmapOpcode.TERMINATE, Frame.PAD, Frame.CLOSE};

    private static Path dir;
    private static ShmNode victim;
    private static FuzzVictim v;
    private static Lmr a;
    private static Lmr b;
    /** File descriptors and mappings after the first input (null before), and how many more may be open. */
    private static long[] baseline;
    private static final int SLACK = 64;
    /**
     * What the endpoints of the last inputs went through, for a late event's message (endpoints compare by identity).
     */
    private static final Map<Endpoint, StringBuilder> HISTORY = new java.util.LinkedHashMap<>()
    {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<Endpoint, StringBuilder> eldest)
        {
            // a long run makes millions of inputs
            return size() > 256;
        }
    };
    private static int inputs;
    private static Endpoint current;

    @BeforeAll
    static void open()
    {
        dir = TestFiles.freshDir();
        victim = ShmNode.open(dir, "victim", "ring_size=" + RING);
        v = new FuzzVictim(victim, A_SIZE);
        a = v.a;
        b = v.b;
        victim.ia.pspCreate(QUAL, v.crEvd, PspFlags.CONSUMER_FLAG);
    }

    @AfterAll
    static void close()
    {
        if (Hostile.STRAY_INTERRUPTS.get() > 0)
        {
            System.out.println("ShmRingFuzzTest: input threads resumed after " + Hostile.STRAY_INTERRUPTS.get()
                + " interrupts no time box asked for");
        }
        v.close();
        victim.close();
        TestFiles.delete(dir);
    }

    // ---------------------------------------------------------------- seeds

    static Stream<Arguments> seeds()
    {
        final byte[] payload = new byte[40];
        Arrays.fill(payload, (byte) 7);
        final List<Arguments> seeds = new ArrayList<>();
        final ByteArrayOutputStream records = new ByteArrayOutputStream();
        record(records, 0, Frame.FLAG_LAST, 0, 1, 0, 0, 0, 0, 0, 0, payload);
        record(records, 2, Frame.FLAG_LAST, 0, 0, 0, 0, 100, 0, 0, 0, payload);
        record(records, 3, Frame.FLAG_LAST, 0, 1, 0x77, 64, 0x5000, 0, 0, 200, new byte[0]);
        record(records, 4, Frame.FLAG_LAST, 0, 0, 0, 0, READ_SINK, 0, 0, 0, new byte[READ_SIZE]);
        record(records, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, payload);
        record(records, 1, Frame.FLAG_LAST, 0, 2, 0, payload.length, 0, 0, 0, 0, payload);
        seeds.add(arguments(concat(new byte[] {0}, records.toByteArray())));
        seeds.add(arguments(concat(new byte[] {OPT_READ}, records.toByteArray())));
        final ByteArrayOutputStream bad = new ByteArrayOutputStream();
        record(bad, 2, Frame.FLAG_LAST, 0, 0, 0, 0, A_SIZE - 8, 0, 0, 0, payload);
        seeds.add(arguments(concat(new byte[] {0}, bad.toByteArray())));
        final ByteArrayOutputStream close = new ByteArrayOutputStream();
        record(close, 7, Frame.FLAG_LAST, 0, 0, 0, 0, 0, 0, 0, 0, new byte[0]);
        seeds.add(arguments(concat(new byte[] {OPT_REJECT}, close.toByteArray())));
        // a request whose private data length is forged
        seeds.add(arguments(new byte[] {OPT_FORGE, 0, 72 - 56, 4, 0x40, 0, 0, 0}));
        // raw ring bytes: one Send record, tail after it
        final ByteBuffer ring = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
        ring.putInt(Frame.LENGTH, 64).putInt(Frame.TYPE, Frame.typeWord(RdmapOpcode.SEND, Frame.FLAG_LAST))
            .putInt(Frame.MSN, 1);
        seeds.add(arguments(concat(new byte[] {OPT_RAW, 0, 64}, ring.array())));
        return seeds.stream();
    }

    private static void record(final ByteArrayOutputStream out, final int type, final int flags, final int delta,
        final int msn, final int stag, final int mo, final long to, final int srcStag, final int term, final long srcTo,
        final byte[] payload)
    {
        final ByteBuffer r = ByteBuffer.allocate(RECORD_HEADER);
        r.put((byte) type).put((byte) flags).put((byte) delta).putInt(msn).putInt(stag).putInt(mo).putLong(to)
            .putInt(srcStag).putInt(term).putLong(srcTo).putShort((short) payload.length);
        out.writeBytes(r.array());
        out.writeBytes(payload);
    }

    private static byte[] concat(final byte[] x, final byte[] y)
    {
        final byte[] z = Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, z, x.length, y.length);
        return z;
    }

    // ---------------------------------------------------------------- the target

    @MethodSource("seeds")
    @FuzzTest(maxDuration = "6s")
    void bytesFromAPeerProcess(final byte[] input) throws Exception
    {
        FuzzInput.run("shm-fuzz-input", () -> oneInput(input), e ->
        {
            if (current != null)
            {
                note(current, "ended by " + e);
            }
        });
    }

    private void oneInput(final byte[] input) throws Exception
    {
        if (input == null || input.length < 1)
        {
            return;
        }
        final ByteBuffer in = ByteBuffer.wrap(input, 1, input.length - 1);
        final int options = input[0];
        v.clear();
        v.regionA().fill((byte) 0x11);
        final Endpoint ep = victim.ia.epCreate(victim.pz, v.recvEvd, v.reqEvd, v.connEvd, null);
        HISTORY.put(ep, new StringBuilder().append("input ").append(++inputs).append(" (options ")
            .append(options).append(", ").append(input.length).append(" bytes): ").append(Arrays
            .toString(Arrays.copyOf(input, Math.min(input.length, 64)))));
        current = ep;
        final Map<Long, EventDispatcher> posted = new HashMap<>();
        Hostile h = null;
        try
        {
            final byte[][] forged = new byte[1][];
            h = Hostile.request(dir.resolve("victim"), QUAL, f -> forged[0] = forge(f, options, in));
            if (request(h, ep, options, forged[0] != null, posted))
            {
                if ((options & OPT_READ) != 0)
                {
                    v.postRead(ep, posted);
                }
                if ((options & OPT_RAW) != 0)
                {
                    raw(h, options, in);
                }
                else
                {
                    records(h, in);
                }
                // the peer is done: what it published is read, then the connection ends
                h.file.markGone(true, ConnectionFile.GONE_CLOSED);
                final DatEvent end = next(v.connEvd, "the end of the connection");
                note(ep, "ended " + end.number() + " of " + (end.connection.epHandle == ep ? "itself" : "another"));
                assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN)
                    || end.is(EventNumber.CONNECTION_EVENT_DISCONNECTED),
                    end.toString());
                victimTerminates(h, end);
            }
            v.accountFor(posted, Hostile.STRAY_INTERRUPTS);
        }
        finally
        {
            if (h != null)
            {
                h.close();
            }
            ep.free();
        }
        assertEquals(List.of(), v.failures, "the provider logged or threw");
        v.checkMemory();
        checkLeaks();
    }

    /**
     * Ended connections give their files back: open file descriptors and mappings of files in
     * the provider's directory stay near their number after the first input.
     */
    private static void checkLeaks()
    {
        if (baseline == null)
        {
            baseline = new long[] {FuzzVictim.openFds(), mappings()};
            return;
        }
        final long[] now = {FuzzVictim.settle(FuzzVictim::openFds, baseline[0] + SLACK),
            FuzzVictim.settle(ShmRingFuzzTest::mappings, baseline[1] + SLACK)};
        assertTrue(now[0] <= baseline[0] + SLACK && now[1] <= baseline[1] + SLACK, "file descriptors " + now[0]
            + " and mappings of connection files " + now[1] + ", after the first input " + baseline[0] + " and "
            + baseline[1] + ": ended connections keep theirs");
    }

    /**
     * Mappings of files under the provider's directory. Read with java.io, which an interrupt does
     * not close (Jazzer interrupts the fuzzing thread when its time is up, and NIO channels would
     * end the last input with ClosedByInterruptException).
     */
    private static long mappings()
    {
        final String where = dir.toString();
        long maps = 0;
        try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.FileReader("/proc/self/maps")))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                if (line.contains(where))
                {
                    maps++;
                }
            }
        }
        catch (final java.io.IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
        return maps;
    }

    /** Overwrites request bytes of the file as the input says; returns them, or null. */
    private static byte[] forge(final ConnectionFile f, final int options, final ByteBuffer in)
    {
        if ((options & OPT_FORGE) == 0 || in.remaining() < 3)
        {
            return null;
        }
        final int offset = 56 + (in.getShort() & 0xFFFF) % (2048 - 56);
        final int n = Math.min(in.get() & 0xFF, Math.min(in.remaining(), 2048 - offset));
        final byte[] bytes = new byte[n];
        in.get(bytes);
        MemorySegment.copy(bytes, 0, f.segment(), ValueLayout.JAVA_BYTE, offset, n);
        return bytes;
    }

    /**
     * The request: raised (then accepted, or rejected if asked) or, if forged, perhaps refused.
     * Returns whether a connection is up.
     */
    private static boolean request(final Hostile h, final Endpoint ep, final int options, final boolean forged,
        final Map<Long, EventDispatcher> posted) throws InterruptedException
    {
        final DatEvent cr = new DatEvent();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (v.crEvd.dequeue(cr) != DatStatus.SUCCESS)
        {
            if (h.file.state() == ConnectionFile.REJECTED_NON_PEER)
            {
                note(ep, "refused");
                assertTrue(forged, "an unforged request was refused");
                FuzzVictim.assertNoEvent(v.crEvd, "a request both refused and raised");
                return false;
            }
            assertTrue(System.nanoTime() < deadline, "the request was neither raised nor refused within 5 s");
            Hostile.pause();
        }
        assertTrue(cr.is(EventNumber.CONNECTION_REQUEST_EVENT), cr.toString());
        // the consumer sees the private data the file holds
        final CrParam p = new CrParam();
        cr.crArrival.crHandle.query(CrParam.FIELD_ALL, p);
        final byte[] inFile = h.file.privateData(true);
        assertArrayEquals(inFile, Arrays.copyOf(p.privateData == null ? new byte[0] : p.privateData,
            p.privateDataSize), "private data of the request");
        if ((options & OPT_REJECT) != 0)
        {
            note(ep, "rejected");
            cr.crArrival.crHandle.reject();
            awaitState(h, ConnectionFile.REJECTED_PEER);
            return false;
        }
        v.postRecv(ep, posted, 1, 0, RECV_SIZE);
        v.postRecv(ep, posted, 2, RECV_SIZE, RECV_SIZE);
        cr.crArrival.crHandle.accept(ep, null);
        final long until = System.nanoTime() + 5_000_000_000L;
        while (h.file.state() == ConnectionFile.REQUESTED && System.nanoTime() < until)
        {
            Hostile.pause();
        }
        if (h.file.state() != ConnectionFile.ACCEPTED)
        {
            // the endpoint cannot serve what the request asked for
            assertEquals(ConnectionFile.REJECTED_NON_PEER, h.file.state(), "state after accept");
            final DatEvent ev = next(v.connEvd, "the failed accept");
            note(ep, "accept failed: " + ev.number() + " of " + (ev.connection.epHandle == ep ? "itself" : "another"));
            assertTrue(ev.is(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR), ev.toString());
            return false;
        }
        h.establish();
        final DatEvent up = next(v.connEvd, "ESTABLISHED");
        note(ep, "up: " + up.number());
        assertTrue(up.is(EventNumber.CONNECTION_EVENT_ESTABLISHED), up + (up.connection.epHandle == ep
            ? " of this input's endpoint" : " of an earlier input's endpoint " + up.connection.epHandle + ", "
            + java.util.Objects.requireNonNullElse(HISTORY.get(up.connection.epHandle), "an input over 256 ago")
            + "; this is input " + inputs));
        return true;
    }

    private static void note(final Endpoint ep, final String what)
    {
        final StringBuilder h = HISTORY.get(ep);
        if (h != null)
        {
            h.append("; ").append(what);
        }
    }

    private static void awaitState(final Hostile h, final int state) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (h.file.state() != state)
        {
            assertTrue(System.nanoTime() < deadline, "state " + h.file.state() + ", not " + state + ", after 5 s");
            Hostile.pause();
        }
    }

    /** Writes records through the ring's own rules, fields from the input. */
    private static void records(final Hostile h, final ByteBuffer in)
    {
        while (in.remaining() >= RECORD_HEADER)
        {
            final int typeByte = in.get() & 0xFF;
            final int flags = in.get();
            final int delta = in.get();
            final int msn = in.getInt();
            int stag = in.getInt();
            final int mo = in.getInt();
            long to = in.getLong();
            int srcStag = in.getInt();
            final int term = in.getInt();
            long srcTo = in.getLong();
            final int n = Math.min(in.getShort() & 0x7FF, in.remaining());
            final int type = typeByte < 0x80 ? TYPES[typeByte & 7] : typeByte;
            if (type == RdmapOpcode.RDMA_WRITE || type == RdmapOpcode.RDMA_READ_RESPONSE)
            {
                final long[] r = resolve(stag, to);
                stag = (int) r[0];
                to = r[1];
            }
            else if (type == RdmapOpcode.RDMA_READ_REQUEST)
            {
                final long[] r = resolve(srcStag, srcTo);
                srcStag = (int) r[0];
                srcTo = r[1];
            }
            // the fields the type's header holds (the rest would be payload)
            final int header = Frame.headerLength(type, flags);
            final long at = h.tx.claim(header + n);
            if (at < 0)
            {
                return;
            }
            final MemorySegment d = h.tx.data();
            Frame.header(d, at, type, flags);
            d.set(ValueLayout.JAVA_INT, at + Frame.MSN, msn);
            d.set(ValueLayout.JAVA_INT, at + Frame.MO, mo);
            if (header >= Frame.STAG + 4)
            {
                d.set(ValueLayout.JAVA_INT, at + Frame.STAG, stag);
                d.set(ValueLayout.JAVA_LONG, at + Frame.TO, to);
            }
            if (header >= Frame.HEADER)
            {
                d.set(ValueLayout.JAVA_INT, at + Frame.SRC_STAG, srcStag);
                d.set(ValueLayout.JAVA_INT, at + Frame.TERM, term);
                d.set(ValueLayout.JAVA_LONG, at + Frame.SRC_TO, srcTo);
            }
            MemorySegment.copy(in.array(), in.arrayOffset() + in.position(), d, ValueLayout.JAVA_BYTE,
                at + header, n);
            in.position(in.position() + n);
            // the length word, perhaps off by delta, publishes the record
            h.tx.commit(header + n + delta);
        }
    }

    /** Raw bytes at the start of the ring and a forged tail (and head of the victim's ring). */
    private static void raw(final Hostile h, final int options, final ByteBuffer in)
    {
        if (in.remaining() < 2)
        {
            return;
        }
        final long tail = in.getShort() & 0xFFFF;
        if ((options & OPT_HEAD) != 0 && in.remaining() >= 8)
        {
            Shared.setLongRelease(h.rx.control(), SpscRing.HEAD, in.getLong());
        }
        final int n = Math.min(in.remaining(), RING);
        MemorySegment.copy(in.array(), in.arrayOffset() + in.position(), h.tx.data(), ValueLayout.JAVA_BYTE, 0, n);
        in.position(in.position() + n);
        Shared.setLongRelease(h.tx.control(), SpscRing.TAIL, tail);
    }

    private static long[] resolve(final int stag, final long offset)
    {
        return switch (stag & 3)
        {
            case 0 -> new long[] {a.rmrContext(), a.registeredAddress() + offset};
            case 1 -> new long[] {b.lmrContext(), b.registeredAddress() + offset};
            case 2 -> new long[] {a.rmrContext() ^ 0x100, a.registeredAddress() + offset};
            default -> new long[] {stag, offset};
        };
    }

    /** The victim's own records: a Terminate never reports an exception inside it. */
    private static void victimTerminates(final Hostile h, final DatEvent end)
    {
        final MemorySegment d = h.rx.data();
        final long tail = Shared.getLongAcquire(h.rx.control(), SpscRing.TAIL);
        final long mask = h.rx.capacity() - 1;
        long pos = 0;
        boolean terminated = false;
        while (pos < tail)
        {
            final long at = pos & mask;
            final int length = d.get(ValueLayout.JAVA_INT, at + Frame.LENGTH);
            final int type = Frame.typeAt(d, at);
            assertTrue(length >= 8 && length <= h.rx.capacity() - at, "the victim's record of " + length + " bytes");
            if (type == RdmapOpcode.TERMINATE)
            {
                final TerminateInfo t = Frame.terminateInfo(d, at);
                assertFalse(localCatastrophic(t), "an exception inside the provider: " + t);
                terminated = true;
            }
            pos += type == Frame.PAD ? length : SpscRing.aligned(length);
        }
        if (terminated)
        {
            assertTrue(end.is(EventNumber.CONNECTION_EVENT_BROKEN), "a Terminate, then " + end);
        }
    }

    static boolean localCatastrophic(final TerminateInfo t)
    {
        return switch (t.layer())
        {
            case TerminateCodes.LAYER_RDMAP -> t.etype() == TerminateCodes.RDMAP_LOCAL_CATASTROPHIC;
            case TerminateCodes.LAYER_DDP -> t.etype() == TerminateCodes.DDP_LOCAL_CATASTROPHIC;
            default -> t.code() == TerminateCodes.LLP_LOCAL_CATASTROPHIC;
        };
    }

    private static DatEvent next(final EventDispatcher evd, final String what)
    {
        return FuzzInput.next(evd, what, Hostile.STRAY_INTERRUPTS);
    }
}

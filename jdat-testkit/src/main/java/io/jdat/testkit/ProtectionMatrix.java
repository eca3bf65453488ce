package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderInfo;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.Rmr;
import io.jdat.RmrTriplet;
import io.jdat.spi.DatProviderLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The protection matrix (DESIGN.md "memory safety"; digest §2.4, §2.5, §3.2 row 26, §3.4, §4.4):
 * every way a remote access can be wrong, each through the public API of two IAs of one provider
 * connected through its real channel. For each, the initiator's DTO completes with the spec's
 * status, the DTO posted behind it is flushed, both endpoints see
 * {@code DAT_CONNECTION_EVENT_BROKEN} and leave CONNECTED, the receives posted on both sides are
 * flushed, and no byte of the target changed: the target's LMR covers the middle of a larger
 * segment, and the whole segment is checksummed before and after (so are the initiator's).
 *
 * <p>Each provider module's tests run it through a subclass (loopback in jdat-core, tcp, shm)
 * that opens the provider's IAs; the cross-process ones also run
 * {@link #violationAcrossTwoProcesses} with the target in a second JVM. Each case prints one
 * {@code MATRIX} line with what it saw.
 */
public abstract class ProtectionMatrix
{
    public static final long SECOND = 1_000_000L;
    /** Each side's memory: a segment of which only the middle is registered. */
    public static final int SEGMENT = 64 << 10;
    public static final int REGION_AT = 16 << 10;
    public static final int REGION = 16 << 10;
    /** The length of the violating access. */
    public static final int LEN = 256;

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final List<InterfaceAdapter> opened = new ArrayList<>();
    private final Map<ProviderInfo, DatProviderLibrary> registered = new LinkedHashMap<>();
    private final Arena arena = Arena.ofShared();

    /** For a provider's test class, which names the provider and opens its IAs. */
    protected ProtectionMatrix()
    {
    }

    /** The provider's name as the MATRIX lines print it. */
    protected abstract String provider();

    /** Opens a fresh IA of the provider under test; the matrix closes it (abruptly). */
    protected abstract InterfaceAdapter open(String role);

    /** Called once every IA of the test is closed and what {@link #openRegistered} registered is removed. */
    protected void closed()
    {
    }

    /**
     * For {@link #open}: registers {@code library} under a fresh name with {@code instanceData}
     * ({@code dat_registry_add_provider}) and opens its IA. The name is removed again once every
     * IA of the test is closed.
     */
    protected final InterfaceAdapter openRegistered(final DatProviderLibrary library, final String instanceData)
    {
        final ProviderInfo info = ProviderInfo.of(provider() + "-prot" + ProcessHandle.current().pid() + "-"
            + NAMES.incrementAndGet(), Dat.THREADSAFE);
        library.providerInit(info, instanceData);
        registered.put(info, library);
        return Dat.iaOpen(info.iaName(), 64, new DatOut<EventDispatcher>());
    }

    /**
     * Whether an RDMA Write completes only after the target placed it (loopback, shm: the
     * completion means the data is at the target) or once its bytes left (tcp: as in iWARP,
     * nothing acknowledges an RDMA Write, so the Data Source completes it when it was sent). In
     * the second case a Write the target refuses has already completed successfully when the
     * Terminate arrives; the connection still breaks and what was posted behind it is flushed.
     */
    protected abstract boolean writeCompletesWhenPlaced();

    @AfterEach
    protected final void closeAll()
    {
        for (final InterfaceAdapter ia : opened)
        {
            try
            {
                ia.close(CloseFlags.ABRUPT_FLAG);
            }
            catch (final DatException e)
            {
                // closed by the test
            }
        }
        arena.close();
        registered.forEach((info, library) -> library.providerFini(info));
        registered.clear();
        closed();
    }

    // ---------------------------------------------------------------- the violations

    /** The remote operation that carries a violation. */
    enum Op
    {
        WRITE, READ
    }

    /** One way a remote access can be wrong: what the target registers, and the triplet used. */
    enum Violation
    {
        /** An STag the target never handed out. */
        UNKNOWN_STAG(true, true),
        /** The context of an LMR the target freed (dat_lmr_free: later access fails, REMOTE_ACCESS). */
        FREED_LMR(true, true),
        /** The context of an RMR that was unbound again (a zero-length dat_rmr_bind). */
        UNBOUND_RMR(true, true),
        /** The old context of an RMR bound again elsewhere (dat_rmr_bind: the previous context is invalid). */
        REBOUND_RMR(true, true),
        /** The context of an LMR of another PZ of the target (digest §1.2). */
        WRONG_PZ(true, true),
        /** A Read of an LMR registered without DAT_MEM_PRIV_REMOTE_READ_FLAG. */
        NO_REMOTE_READ(false, true),
        /** A Write into an LMR registered without DAT_MEM_PRIV_REMOTE_WRITE_FLAG. */
        NO_REMOTE_WRITE(true, false),
        /** The access ends one byte past the region. */
        ONE_BYTE_PAST_THE_END(true, true),
        /** The access starts one byte before the region. */
        ONE_BYTE_BEFORE_THE_START(true, true),
        /** The target address is near 2^64, so address + length wraps to a small number. */
        OFFSET_WRAP(true, true);

        final boolean write;
        final boolean read;

        Violation(final boolean write, final boolean read)
        {
            this.write = write;
            this.read = read;
        }
    }

    static Stream<Arguments> violations()
    {
        return Arrays.stream(Violation.values()).flatMap(v -> Stream.of(Op.values())
            .filter(op -> op == Op.WRITE ? v.write : v.read)
            .map(op -> Arguments.of(v, op)));
    }

    @ParameterizedTest(name = "{0} by RDMA {1}")
    @MethodSource("violations")
    void violationFailsTheDtoBreaksBothSidesAndChangesNoByte(final Violation v, final Op op)
    {
        final Pair p = connectedPair();
        final Target t = prepare(v, p.target);
        final Local local = new Local(p.initiator);
        final Checked targetBytes = new Checked(t.segment);
        final Checked goodBytes = new Checked(t.good.memory());
        final Checked initiatorBytes = new Checked(local.segment);

        final LmrTriplet[] iov = {LmrTriplet.of(local.lmr, 0, LEN)};
        if (op == Op.WRITE)
        {
            p.initiator.ep.postRdmaWrite(1, iov, 1, t.remote, CompletionFlags.DEFAULT_FLAG);
        }
        else
        {
            p.initiator.ep.postRdmaRead(1, iov, 1, t.remote, CompletionFlags.DEFAULT_FLAG);
        }
        // a valid Read behind it: it would succeed on a connection that survived
        p.initiator.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(local.lmr, LEN, LEN)}, 2,
            new RmrTriplet(t.good.rmrContext(), t.good.registeredAddress(), LEN), CompletionFlags.DEFAULT_FLAG);

        final DtoStatus expected = op == Op.READ || writeCompletesWhenPlaced() ? DtoStatus.ERR_REMOTE_ACCESS
            : DtoStatus.SUCCESS;
        final DatEvent first = next(p.initiator.req, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(1, first.dto.userCookie, first.toString());
        assertEquals(expected, first.dto.status, first.toString());
        final DatEvent second = next(p.initiator.req, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(2, second.dto.userCookie, second.toString());
        assertEquals(DtoStatus.ERR_FLUSHED, second.dto.status, second.toString());

        next(p.initiator.conn, EventNumber.CONNECTION_EVENT_BROKEN);
        next(p.target.conn, EventNumber.CONNECTION_EVENT_BROKEN);
        assertEquals(EpState.DISCONNECTED, state(p.initiator.ep));
        assertEquals(EpState.DISCONNECTED, state(p.target.ep));
        recvFlushed(p.initiator);
        recvFlushed(p.target);
        assertEquals(DatStatus.QUEUE_EMPTY, p.initiator.conn.dequeue(new DatEvent()), "one connection event only");
        assertEquals(DatStatus.QUEUE_EMPTY, p.target.conn.dequeue(new DatEvent()), "one connection event only");

        final int changed = targetBytes.changed() + goodBytes.changed() + initiatorBytes.changed();
        System.out.println("MATRIX " + provider() + " " + v + " " + op + ": dto=" + first.dto.status
            + " behind=" + second.dto.status + " initiator=BROKEN target=BROKEN recvs=FLUSHED bytesChanged="
            + changed + " targetCrc=" + targetBytes.crc());
        targetBytes.assertUnchanged("the target's segment");
        goodBytes.assertUnchanged("the target's other LMR");
        initiatorBytes.assertUnchanged("the initiator's segment");
    }

    /**
     * A zero-length access exactly at the end of the region is legal: its range [end, end) lies
     * inside the region whether or not the STag of a zero-length access is checked (RFC 5040 and
     * 5041 need no buffer for zero bytes; the ready-to-receive message of RFC 6581 is a zero-length
     * RDMA Write with STag 0). It completes with success, places nothing, and the connection stays
     * up: the Read behind it returns the target's bytes.
     */
    @ParameterizedTest(name = "zero length at the edge by RDMA {0}")
    @EnumSource(Op.class)
    void zeroLengthAccessAtTheEdgeIsLegalAndChangesNoByte(final Op op)
    {
        final Pair p = connectedPair();
        final Target t = prepare(null, p.target);
        final Local local = new Local(p.initiator);
        final Checked targetBytes = new Checked(t.segment);
        final Checked goodBytes = new Checked(t.good.memory());

        final RmrTriplet edge = new RmrTriplet(t.lmr.rmrContext(), t.lmr.registeredAddress() + REGION, 0);
        if (op == Op.WRITE)
        {
            p.initiator.ep.postRdmaWrite(0, new LmrTriplet[0], 1, edge, CompletionFlags.DEFAULT_FLAG);
        }
        else
        {
            p.initiator.ep.postRdmaRead(0, new LmrTriplet[0], 1, edge, CompletionFlags.DEFAULT_FLAG);
        }
        p.initiator.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(local.lmr, LEN, LEN)}, 2,
            new RmrTriplet(t.good.rmrContext(), t.good.registeredAddress(), LEN), CompletionFlags.DEFAULT_FLAG);

        final DatEvent first = next(p.initiator.req, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(1, first.dto.userCookie, first.toString());
        assertEquals(DtoStatus.SUCCESS, first.dto.status, first.toString());
        assertEquals(0, first.dto.transferredLength);
        final DatEvent second = next(p.initiator.req, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(2, second.dto.userCookie, second.toString());
        assertEquals(DtoStatus.SUCCESS, second.dto.status, second.toString());
        assertEquals(-1, MemorySegment.mismatch(t.good.memory(), 0, LEN, local.lmr.memory(), LEN, 2 * LEN),
            "the Read behind it brought the target's bytes");

        assertEquals(EpState.CONNECTED, state(p.initiator.ep));
        assertEquals(EpState.CONNECTED, state(p.target.ep));
        assertEquals(DatStatus.QUEUE_EMPTY, p.initiator.conn.dequeue(new DatEvent()), "no connection event");
        assertEquals(DatStatus.QUEUE_EMPTY, p.target.conn.dequeue(new DatEvent()), "no connection event");
        final int changed = targetBytes.changed() + goodBytes.changed();
        System.out.println("MATRIX " + provider() + " ZERO_LENGTH_AT_THE_EDGE " + op + ": dto=" + first.dto.status
            + " behind=" + second.dto.status + " connection=CONNECTED bytesChanged=" + changed);
        targetBytes.assertUnchanged("the target's segment");
        goodBytes.assertUnchanged("the target's other LMR");
    }

    /**
     * An RDMA Read whose sink lacks DAT_MEM_PRIV_LOCAL_WRITE_FLAG: the Read Response would write
     * where the consumer gave no right to, so dat_ep_post_rdma_read refuses it with
     * DAT_PRIVILEGES_VIOLATION (digest §2.8); nothing is sent, nothing is written, and the
     * connection stays up. (A sink that loses its rights after the post, because its LMR is freed
     * before the response, is in the provider's hostile-peer tests.)
     */
    @Test
    void readIntoASinkWithoutLocalWriteIsRefusedAtPostAndChangesNoByte()
    {
        final Pair p = connectedPair();
        final Target t = prepare(null, p.target);
        final MemorySegment sinkSegment = p.initiator.memory(SEGMENT);
        final Lmr sink = p.initiator.lmr(sinkSegment.asSlice(REGION_AT, REGION), MemPriv.LOCAL_READ_FLAG, null);
        final Checked sinkBytes = new Checked(sinkSegment);
        final Checked targetBytes = new Checked(t.segment);

        DatException refused = null;
        try
        {
            p.initiator.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, LEN)}, 1,
                new RmrTriplet(t.lmr.rmrContext(), t.lmr.registeredAddress(), LEN), CompletionFlags.DEFAULT_FLAG);
        }
        catch (final DatException e)
        {
            refused = e;
        }
        assertNotNull(refused, "the post was accepted");
        assertEquals(DatReturnType.PRIVILEGES_VIOLATION, refused.type(), refused.getMessage());
        assertEquals(DatReturnSubtype.PRIVILEGES_WRITE, refused.subtype(), refused.getMessage());

        // nothing was posted: the connection carries a valid Read on
        final Local local = new Local(p.initiator);
        p.initiator.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(local.lmr, 0, LEN)}, 2,
            new RmrTriplet(t.lmr.rmrContext(), t.lmr.registeredAddress(), LEN), CompletionFlags.DEFAULT_FLAG);
        final DatEvent read = next(p.initiator.req, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(2, read.dto.userCookie, read.toString());
        assertEquals(DtoStatus.SUCCESS, read.dto.status, read.toString());
        assertEquals(EpState.CONNECTED, state(p.initiator.ep));
        assertEquals(DatStatus.QUEUE_EMPTY, p.target.conn.dequeue(new DatEvent()), "no connection event");
        System.out.println("MATRIX " + provider() + " READ_SINK_WITHOUT_LOCAL_WRITE READ: post="
            + refused.status() + " connection=CONNECTED bytesChanged=" + (sinkBytes.changed() + targetBytes.changed()));
        sinkBytes.assertUnchanged("the sink's segment");
        targetBytes.assertUnchanged("the target's segment");
    }

    // ---------------------------------------------------------------- across two processes

    /**
     * A target in a second JVM ({@link PeerProcess}): the {@code main} of a class that listens,
     * prints {@code READY} (and the qualifier if it chose one), then prints what
     * {@link #serveAsTarget} returns and exits 0, or prints {@code FAIL} and exits 1.
     */
    public static final class SecondJvm implements AutoCloseable
    {
        final IaAddress address;
        final long qual;
        private final PeerProcess process;

        public SecondJvm(final IaAddress address, final long qual, final Class<?> main, final String... args)
            throws Exception
        {
            process = new PeerProcess(main, args);
            final String ready = process.await("READY", 30);
            this.address = address;
            this.qual = ready.isEmpty() ? qual : Long.parseLong(ready);
        }

        /** The rest of the first line starting with {@code prefix}; fails on FAIL or after {@code seconds}. */
        String await(final String prefix, final long seconds) throws InterruptedException
        {
            return process.await(prefix, seconds);
        }

        int exit() throws InterruptedException
        {
            return process.exit(10);
        }

        @Override
        public void close()
        {
            process.close();
        }
    }

    /**
     * One violation across two processes: the target in another JVM exposes an LMR over the
     * middle of a segment; this side writes one byte past its end, then posts a valid Read of it.
     * The Write fails as in the matrix, the Read is flushed, this side breaks, and the target
     * reports that it broke, that its receive was flushed and that its segment's checksum did not
     * change.
     */
    protected void violationAcrossTwoProcesses(final SecondJvm remote) throws Exception
    {
        final Side initiator = new Side("initiator", 2);
        initiator.ep.connect(remote.address, remote.qual, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        final DatEvent up = next(initiator.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        final ByteBuffer exposed = ByteBuffer.wrap(up.connection.privateData, 0, up.connection.privateDataSize);
        final int context = exposed.getInt();
        final long address = exposed.getLong();
        final Lmr buffer = initiator.lmr(initiator.memory(LEN), MemPriv.ALL_FLAG, null);
        initiator.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, LEN)}, 100, CompletionFlags.DEFAULT_FLAG);
        final Local local = new Local(initiator);
        final Checked initiatorBytes = new Checked(local.segment);

        initiator.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local.lmr, 0, LEN)}, 1,
            new RmrTriplet(context, address + REGION - LEN + 1, LEN), CompletionFlags.DEFAULT_FLAG);
        initiator.ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(local.lmr, LEN, LEN)}, 2,
            new RmrTriplet(context, address, LEN), CompletionFlags.DEFAULT_FLAG);
        final DatEvent first = next(initiator.req, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(1, first.dto.userCookie, first.toString());
        assertEquals(writeCompletesWhenPlaced() ? DtoStatus.ERR_REMOTE_ACCESS : DtoStatus.SUCCESS, first.dto.status,
            first.toString());
        final DatEvent second = next(initiator.req, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(2, second.dto.userCookie, second.toString());
        assertEquals(DtoStatus.ERR_FLUSHED, second.dto.status, second.toString());
        next(initiator.conn, EventNumber.CONNECTION_EVENT_BROKEN);
        assertEquals(EpState.DISCONNECTED, state(initiator.ep));
        recvFlushed(initiator);
        initiatorBytes.assertUnchanged("the initiator's segment");

        // BROKEN crcBefore crcAfter bytesChanged recvStatus
        final String[] target = remote.await("BROKEN ", 10).split(" ");
        assertEquals(4, target.length, Arrays.toString(target));
        assertEquals(target[0], target[1], "the target's checksum before and after");
        assertEquals("0", target[2], "bytes changed at the target");
        assertEquals(DtoStatus.ERR_FLUSHED.name(), target[3], "the target's receive");
        assertEquals(0, remote.exit());
        System.out.println("MATRIX " + provider() + " ONE_BYTE_PAST_THE_END WRITE (two processes): dto="
            + first.dto.status + " behind=" + second.dto.status + " initiator=BROKEN target=BROKEN recvs=FLUSHED"
            + " bytesChanged=" + target[2] + " targetCrc=" + target[0] + "/" + target[1]);
    }

    /**
     * What the {@code main} of a {@link SecondJvm} does once its IA listens through a PSP on
     * {@code crEvd}: prints {@code READY} with {@code qual} (if not null), then the line of
     * {@link #serveAsTarget}; on any failure prints {@code FAIL}. Returns the exit code.
     */
    protected static int runTarget(final InterfaceAdapter ia, final EventDispatcher crEvd, final String qual)
    {
        try
        {
            System.out.println(qual == null ? "READY" : "READY " + qual);
            System.out.println(serveAsTarget(ia, crEvd));
            return 0;
        }
        catch (final Throwable t)
        {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            return 1;
        }
        finally
        {
            System.out.flush();
        }
    }

    /**
     * The target's side of {@link #violationAcrossTwoProcesses}, run in the second JVM after it
     * listens ({@link #runTarget}): accepts one request with an LMR (all rights) over the middle
     * of a random segment, its context and address as private data, with a receive posted; waits
     * until the connection breaks. Returns {@code BROKEN crcBefore crcAfter bytesChanged recvStatus}.
     */
    static String serveAsTarget(final InterfaceAdapter ia, final EventDispatcher crEvd)
    {
        final ProtectionZone pz = ia.pzCreate();
        final EventDispatcher recv = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
        final EventDispatcher req = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
        final Endpoint ep = ia.epCreate(pz, recv, req, conn, null);
        try (Arena memory = Arena.ofConfined())
        {
            final MemorySegment segment = memory.allocate(SEGMENT, 4096);
            final byte[] random = new byte[SEGMENT];
            new Random(1).nextBytes(random);
            MemorySegment.copy(random, 0, segment, ValueLayout.JAVA_BYTE, 0, SEGMENT);
            final MemorySegment region = segment.asSlice(REGION_AT, REGION);
            final Lmr lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(region), REGION, pz,
                MemPriv.ALL_FLAG);
            final MemorySegment buffer = memory.allocate(LEN, 64);
            final Lmr bufferLmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(buffer), LEN, pz,
                MemPriv.ALL_FLAG);
            ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(bufferLmr, 0, LEN)}, 100, CompletionFlags.DEFAULT_FLAG);
            final Checked bytes = new Checked(segment);
            final byte[] exposed = ByteBuffer.allocate(12).putInt(lmr.rmrContext()).putLong(lmr.registeredAddress())
                .array();
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep, exposed);
            next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            next(conn, EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent flushed = next(recv, EventNumber.DTO_COMPLETION_EVENT);
            final String[] crc = bytes.crc().split("/");
            final String line = "BROKEN " + crc[0] + " " + crc[1] + " " + bytes.changed() + " " + flushed.dto.status;
            ep.free();
            lmr.free();
            bufferLmr.free();
            return line;
        }
    }

    // ---------------------------------------------------------------- the target's side

    /**
     * What the target registered: its segment, the LMR over its middle (null once freed), the
     * triplet the initiator uses, and a second, valid LMR for the Read posted behind.
     */
    record Target(MemorySegment segment, Lmr lmr, RmrTriplet remote, Lmr good)
    {
    }

    /** Registers what {@code v} needs on the target ({@code null}: a valid region only). */
    private Target prepare(final Violation v, final Side target)
    {
        final MemorySegment segment = target.memory(SEGMENT);
        final MemorySegment region = segment.asSlice(REGION_AT, REGION);
        final Lmr good = target.lmr(target.memory(LEN), MemPriv.ALL_FLAG, null);
        if (v == null)
        {
            final Lmr lmr = target.lmr(region, MemPriv.ALL_FLAG, null);
            return new Target(segment, lmr, new RmrTriplet(lmr.rmrContext(), lmr.registeredAddress(), LEN), good);
        }
        final long base = region.address();
        final int local = MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG;
        return switch (v)
        {
            case UNKNOWN_STAG ->
            {
                final Lmr lmr = target.lmr(region, MemPriv.ALL_FLAG, null);
                // the same key, an index 4096 above: a table slot nothing was ever registered in
                yield new Target(segment, lmr, new RmrTriplet(lmr.rmrContext() + (4096 << 8), base, LEN), good);
            }
            case FREED_LMR ->
            {
                final Lmr lmr = target.lmr(region, MemPriv.ALL_FLAG, null);
                final int context = lmr.rmrContext();
                lmr.free();
                yield new Target(segment, null, new RmrTriplet(context, base, LEN), good);
            }
            case UNBOUND_RMR ->
            {
                final Lmr lmr = target.lmr(region, local, null);
                assertEquals(0, lmr.rmrContext(), "an LMR without remote rights has no rmr_context");
                final Rmr rmr = target.pz.rmrCreate();
                final int context = bind(target, rmr, LmrTriplet.of(lmr, 0, REGION), 11);
                // a zero-length bind unbinds (dat_rmr_bind)
                bind(target, rmr, new LmrTriplet(0, 0, 0), 12);
                yield new Target(segment, lmr, new RmrTriplet(context, base, LEN), good);
            }
            case REBOUND_RMR ->
            {
                final Lmr lmr = target.lmr(region, local, null);
                final Rmr rmr = target.pz.rmrCreate();
                final int old = bind(target, rmr, LmrTriplet.of(lmr, 0, REGION / 2), 11);
                final int now = bind(target, rmr, LmrTriplet.of(lmr, REGION / 2, REGION / 2), 12);
                assertNotEquals(old, now, "a rebind hands out a new context");
                yield new Target(segment, lmr, new RmrTriplet(old, base, LEN), good);
            }
            case WRONG_PZ ->
            {
                final ProtectionZone other = target.ia.pzCreate();
                final Lmr lmr = target.lmr(region, MemPriv.ALL_FLAG, other);
                yield new Target(segment, lmr, new RmrTriplet(lmr.rmrContext(), base, LEN), good);
            }
            case NO_REMOTE_READ ->
            {
                final Lmr lmr = target.lmr(region, local | MemPriv.REMOTE_WRITE_FLAG, null);
                yield new Target(segment, lmr, new RmrTriplet(lmr.rmrContext(), base, LEN), good);
            }
            case NO_REMOTE_WRITE ->
            {
                final Lmr lmr = target.lmr(region, local | MemPriv.REMOTE_READ_FLAG, null);
                yield new Target(segment, lmr, new RmrTriplet(lmr.rmrContext(), base, LEN), good);
            }
            case ONE_BYTE_PAST_THE_END ->
            {
                final Lmr lmr = target.lmr(region, MemPriv.ALL_FLAG, null);
                yield new Target(segment, lmr, new RmrTriplet(lmr.rmrContext(), base + REGION - LEN + 1, LEN), good);
            }
            case ONE_BYTE_BEFORE_THE_START ->
            {
                final Lmr lmr = target.lmr(region, MemPriv.ALL_FLAG, null);
                yield new Target(segment, lmr, new RmrTriplet(lmr.rmrContext(), base - 1, LEN), good);
            }
            case OFFSET_WRAP ->
            {
                final Lmr lmr = target.lmr(region, MemPriv.ALL_FLAG, null);
                // 2^64 - LEN/2: the address plus the length is LEN/2 after the wrap
                yield new Target(segment, lmr, new RmrTriplet(lmr.rmrContext(), -(LEN / 2), LEN), good);
            }
        };
    }

    /** Binds {@code rmr} through the target's endpoint with both remote rights; waits for the completion. */
    private static int bind(final Side target, final Rmr rmr, final LmrTriplet triplet, final long cookie)
    {
        final int context = rmr.bind(triplet, MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG, target.ep, cookie,
            CompletionFlags.DEFAULT_FLAG);
        final DatEvent done = next(target.req, EventNumber.RMR_BIND_COMPLETION_EVENT);
        assertEquals(cookie, done.rmrBind.userCookie, done.toString());
        assertEquals(DtoStatus.SUCCESS, done.rmrBind.status, done.toString());
        return context;
    }

    /** The initiator's memory: an LMR over the middle of a segment full of a pattern. */
    private static final class Local
    {
        final MemorySegment segment;
        final Lmr lmr;

        Local(final Side initiator)
        {
            segment = initiator.memory(SEGMENT);
            lmr = initiator.lmr(segment.asSlice(REGION_AT, REGION), MemPriv.ALL_FLAG, null);
        }
    }

    // ---------------------------------------------------------------- plumbing

    /** One side: an IA, its PZ and address, and one endpoint with its own EVDs. */
    private final class Side
    {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final IaAddress address;
        final EventDispatcher recv;
        final EventDispatcher req;
        final EventDispatcher conn;
        final Endpoint ep;
        private final Random random;

        Side(final String role, final long seed)
        {
            ia = open(role);
            opened.add(ia);
            pz = ia.pzCreate();
            final IaAttr a = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, a, 0, null);
            address = a.iaAddress;
            recv = ia.evdCreate(64, null, EvdFlags.DTO_FLAG);
            req = ia.evdCreate(64, null, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
            conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            ep = ia.epCreate(pz, recv, req, conn, null);
            random = new Random(seed);
        }

        /** Memory full of random bytes (so that any change shows). */
        MemorySegment memory(final long size)
        {
            final MemorySegment m = arena.allocate(size, 4096);
            final byte[] bytes = new byte[(int) size];
            random.nextBytes(bytes);
            MemorySegment.copy(bytes, 0, m, ValueLayout.JAVA_BYTE, 0, bytes.length);
            return m;
        }

        Lmr lmr(final MemorySegment m, final int privileges, final ProtectionZone in)
        {
            return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), in == null ? pz : in,
                privileges);
        }
    }

    private record Pair(Side initiator, Side target)
    {
    }

    /**
     * The initiator connected to the target through a PSP, each with one receive posted (into an
     * LMR of its own, outside the segments checked).
     */
    private Pair connectedPair()
    {
        final Side target = new Side("target", 1);
        final Side initiator = new Side("initiator", 2);
        final EventDispatcher crEvd = target.ia.evdCreate(4, null, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = target.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        initiator.ep.connect(target.address, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(target.ep, null);
        next(target.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        next(initiator.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
        for (final Side s : new Side[] {initiator, target})
        {
            final Lmr buffer = s.lmr(s.memory(LEN), MemPriv.ALL_FLAG, null);
            s.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, LEN)}, 100, CompletionFlags.DEFAULT_FLAG);
        }
        return new Pair(initiator, target);
    }

    private static void recvFlushed(final Side s)
    {
        final DatEvent ev = next(s.recv, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(100, ev.dto.userCookie, ev.toString());
        assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status, ev.toString());
    }

    private static EpState state(final Endpoint ep)
    {
        final EpParam p = new EpParam();
        ep.query(EpParam.FIELD_EP_STATE, p);
        return p.epState;
    }

    /** The next event of an EVD within 5 s, which must be {@code expected}. */
    public static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(5 * SECOND, 1, ev, new DatCount());
        if (s != DatStatus.SUCCESS)
        {
            fail("no " + expected + " within 5 s");
        }
        assertTrue(ev.is(expected), "expected " + expected + ", got " + ev);
        return ev;
    }

    /** A copy and a checksum of some memory, to compare later. */
    public static final class Checked
    {
        private final MemorySegment memory;
        private final byte[] before;
        private final long crc;

        public Checked(final MemorySegment memory)
        {
            this.memory = memory;
            this.before = memory.toArray(ValueLayout.JAVA_BYTE);
            this.crc = crc(before);
        }

        private static long crc(final byte[] bytes)
        {
            final CRC32C c = new CRC32C();
            c.update(bytes);
            return c.getValue();
        }

        /** How many bytes differ from the copy. */
        public int changed()
        {
            final byte[] now = memory.toArray(ValueLayout.JAVA_BYTE);
            int n = 0;
            for (int i = 0; i < now.length; i++)
            {
                if (now[i] != before[i])
                {
                    n++;
                }
            }
            return n;
        }

        /** The checksum before and now, as {@code before/now}. */
        public String crc()
        {
            return String.format("%08x/%08x", crc, crc(memory.toArray(ValueLayout.JAVA_BYTE)));
        }

        public void assertUnchanged(final String what)
        {
            final byte[] now = memory.toArray(ValueLayout.JAVA_BYTE);
            assertEquals(crc, crc(now), what + ": checksum");
            assertEquals(-1, Arrays.mismatch(before, now), what + ": first changed byte");
        }
    }
}

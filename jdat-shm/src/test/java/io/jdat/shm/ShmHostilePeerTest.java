package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A hostile peer writes garbage into the ring, its records and the words the victim reads; the
 * victim places nothing outside registered memory (here: nothing at all, since nothing it sends is
 * valid), breaks the connection and flushes its work.
 *
 * <p>The tests of a peer that shrinks a shared file run in a JVM of their own with {@code -Xint}
 * (tag {@value #INTERPRETED}): there a fault is raised at the access, inside the {@code catch}
 * written for it. Compiled code raises it at a later safepoint poll, possibly outside any such
 * {@code catch}; that case is not handled (docs/reliability.md).
 */
class ShmHostilePeerTest
{
    /** The JUnit tag of the tests that run interpreted (jdat-shm's pom). */
    static final String INTERPRETED = "interpreted";

    private static final int ALL = 64 << 10;
    private static final int REGISTERED_AT = 16 << 10;
    private static final int REGISTERED = 16 << 10;
    private static final byte FILL = 0x5A;

    private Path dir;
    private ShmNode victim;
    private EventDispatcher crEvd;
    private ShmNode.Ep ep;
    private MemorySegment memory;
    private Lmr lmr;

    @BeforeEach
    void victim()
    {
        dir = TestFiles.freshDir();
        // complete_written=true: the forged head's Send below completes once written, whichever
        // thread wrote it, so its outcome does not depend on when a round reads the forged word
        victim = ShmNode.open(dir, "victim", "ring_size=65536 complete_written=true");
        crEvd = victim.evd(8, EvdFlags.CR_FLAG);
        victim.ia.pspCreate(7000, crEvd, PspFlags.CONSUMER_FLAG);
        ep = victim.ep(null);
        // only the middle of this memory is registered; all of it must keep its bytes
        memory = victim.memory(ALL);
        memory.fill(FILL);
        lmr = victim.lmr(memory.asSlice(REGISTERED_AT, REGISTERED), MemPriv.ALL_FLAG);
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 4096)}, 1, 0);
    }

    @AfterEach
    void clean()
    {
        victim.close();
        TestFiles.delete(dir);
    }

    /** A hostile peer connected to the victim's endpoint. */
    private Hostile connected() throws InterruptedException
    {
        final Hostile h = Hostile.request(dir.resolve("victim"), 7000, f ->
        {
        });
        final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        cr.crArrival.crHandle.accept(ep.ep(), null);
        h.establish();
        next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return h;
    }

    /** The victim broke the connection, flushed its Recv, and no byte of its memory changed. */
    private void victimBrokeAndPlacedNothing()
    {
        next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
        final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
        final byte[] now = memory.toArray(ValueLayout.JAVA_BYTE);
        final byte[] before = new byte[ALL];
        Arrays.fill(before, FILL);
        assertEquals(-1, Arrays.mismatch(before, now), "a byte of the victim's memory changed");
    }

    private long base()
    {
        return lmr.registeredAddress();
    }

    @Test
    void writeThatRunsPastTheRegisteredRegionPlacesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            final byte[] junk = new byte[64];
            Arrays.fill(junk, (byte) 0xEE);
            h.record(RdmapOpcode.RDMA_WRITE, Frame.FLAG_LAST, 0, lmr.rmrContext(), 0, base() + REGISTERED - 8, junk);
            victimBrokeAndPlacedNothing();
            assertEquals(RdmapOpcode.TERMINATE, h.awaitVictimRecord(), "the victim sent a Terminate");
        }
    }

    @Test
    void writeWithAForgedStagPlacesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            h.record(RdmapOpcode.RDMA_WRITE, Frame.FLAG_LAST, 0, lmr.rmrContext() ^ 0x0100_0000, 0, base(),
                new byte[128]);
            victimBrokeAndPlacedNothing();
            assertEquals(RdmapOpcode.TERMINATE, h.awaitVictimRecord(), "the victim sent a Terminate");
        }
    }

    @Test
    void readRequestBeyondTheRegionIsRefused() throws Exception
    {
        try (Hostile h = connected())
        {
            final long at = h.tx.claim(Frame.HEADER);
            Frame.header(h.tx.data(), at, RdmapOpcode.RDMA_READ_REQUEST, Frame.FLAG_LAST);
            Frame.readRequest(h.tx.data(), at, 1, 0x1234, 0, 1 << 20, lmr.rmrContext(), base());
            h.tx.commit();
            victimBrokeAndPlacedNothing();
            assertEquals(RdmapOpcode.TERMINATE, h.awaitVictimRecord(), "the victim sent a Terminate");
        }
    }

    /**
     * A direct record: {@code length} bytes at {@code offset} of shared memory m-PID-SEQ, to {@code stag}/{@code to}.
     */
    private static void direct(final Hostile h, final int type, final int stag, final long to, final int pid,
        final int seq, final int length, final long offset)
    {
        final long at = h.tx.claim(Frame.HEADER);
        Frame.header(h.tx.data(), at, type, Frame.FLAG_LAST | Frame.FLAG_DIRECT);
        Frame.tagged(h.tx.data(), at, stag, to);
        Frame.direct(h.tx.data(), at, pid, seq, length, offset);
        h.tx.commit();
    }

    @Test
    void directWriteNamingNoSharedMemoryPlacesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            direct(h, RdmapOpcode.RDMA_WRITE, lmr.rmrContext(), base(), (int) ProcessHandle.current().pid(), 999_999,
                64, 0);
            victimBrokeAndPlacedNothing();
            assertEquals(RdmapOpcode.TERMINATE, h.awaitVictimRecord(), "the victim sent a Terminate");
        }
    }

    @Test
    void directWriteBeyondTheSharedMemoryPlacesNothing() throws Exception
    {
        try (Hostile h = connected(); ShmMemory shared = ShmMemory.allocate(dir, 4096))
        {
            shared.memory().fill((byte) 0xEE);
            direct(h, RdmapOpcode.RDMA_WRITE, lmr.rmrContext(), base(), shared.pid, shared.seq, 200, 4000);
            victimBrokeAndPlacedNothing();
            assertEquals(RdmapOpcode.TERMINATE, h.awaitVictimRecord(), "the victim sent a Terminate");
        }
    }

    @Test
    void directWritePastTheRegisteredRegionIsRefusedByTheEngine() throws Exception
    {
        try (Hostile h = connected(); ShmMemory shared = ShmMemory.allocate(dir, 65536))
        {
            shared.memory().fill((byte) 0xEE);
            // the shared memory holds the bytes, but the target range runs 8 bytes past the LMR
            direct(h, RdmapOpcode.RDMA_WRITE, lmr.rmrContext(), base() + REGISTERED - 56, shared.pid, shared.seq,
                64, 0);
            victimBrokeAndPlacedNothing();
            assertEquals(RdmapOpcode.TERMINATE, h.awaitVictimRecord(), "the victim sent a Terminate");
        }
    }

    @Test
    void directFlagOnASendBreaksTheConnection() throws Exception
    {
        try (Hostile h = connected(); ShmMemory shared = ShmMemory.allocate(dir, 4096))
        {
            direct(h, RdmapOpcode.SEND, 0, 0, shared.pid, shared.seq, 64, 0);
            victimBrokeAndPlacedNothing();
        }
    }

    @Test
    void recordLongerThanTheRingBreaksTheConnection() throws Exception
    {
        try (Hostile h = connected())
        {
            final MemorySegment d = h.tx.data();
            d.set(ValueLayout.JAVA_INT, Frame.LENGTH, 0x7FFF_FFF8);
            d.set(ValueLayout.JAVA_INT, Frame.TYPE, Frame.typeWord(RdmapOpcode.RDMA_WRITE, 0));
            d.set(ValueLayout.JAVA_INT, Frame.STAG, lmr.rmrContext());
            d.set(ValueLayout.JAVA_LONG, Frame.TO, base());
            Shared.setLongRelease(h.tx.control(), SpscRing.TAIL, 64);
            victimBrokeAndPlacedNothing();
        }
    }

    /**
     * A PAD at the ring's start as long as the whole ring: consuming it comes back to the same
     * bytes, so a receive that took it would read it again forever, inside whichever thread
     * polls (a consumer's {@code dat_evd_wait} would never return, its timeout included). Found by
     * {@code ShmRingFuzzTest}.
     */
    @Test
    void padSpanningTheWholeRingBreaksTheConnection() throws Exception
    {
        try (Hostile h = connected())
        {
            final MemorySegment d = h.tx.data();
            d.set(ValueLayout.JAVA_INT, Frame.TYPE, Frame.PAD);
            Shared.setIntRelease(d, Frame.LENGTH, (int) h.tx.capacity());
            victimBrokeAndPlacedNothing();
        }
    }

    /**
     * A peer that filled its ring with records that tile it exactly, and never zeroed the length
     * word after the last one as a producer does, then said it went (its "gone" word): every
     * record is a valid Write, so the victim reads them again on every lap. Its rounds take 64
     * records at a time, but the drain of what a peer wrote before it went read until no record
     * was left, inside the I/O thread, under the progress lock, forever: no other connection of
     * the port moved and this one never ended. A ring holds at most one ring's worth of records,
     * so the drain stops there and ends the connection.
     */
    @Test
    void aPeerThatWentLeavingARingOfRecordsThatLapsIsNotReadForever() throws Exception
    {
        try (Hostile h = connected())
        {
            final MemorySegment d = h.tx.data();
            final int size = 4096;
            // from the end back to 0: the record at 0, stored last, publishes the lot
            for (long at = h.tx.capacity() - size; at >= 0; at -= size)
            {
                Frame.header(d, at, RdmapOpcode.RDMA_WRITE, Frame.FLAG_LAST);
                Frame.tagged(d, at, lmr.rmrContext(), base());
                Shared.setIntRelease(d, at + Frame.LENGTH, size);
            }
            h.file.markGone(true, ConnectionFile.GONE_CLOSED);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
        }
    }

    /**
     * A record is published by its length word, which the producer stores last, and never by the
     * tail: a whole Send under a forged tail, its length word still zero, is not delivered (nor is
     * anything broken); the same record is, once the word is stored. (While the tail published
     * records, the forged tail delivered it at once.)
     */
    @Test
    void forgedTailPublishesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            final byte[] payload = new byte[64];
            Arrays.fill(payload, (byte) 0x22);
            final int header = Frame.headerLength(RdmapOpcode.SEND, 0);
            final long at = h.tx.claim(header + payload.length);
            final MemorySegment d = h.tx.data();
            d.set(ValueLayout.JAVA_INT, at + Frame.LENGTH, 0);
            Frame.header(d, at, RdmapOpcode.SEND, Frame.FLAG_LAST);
            d.set(ValueLayout.JAVA_INT, at + Frame.MSN, 1);
            d.set(ValueLayout.JAVA_INT, at + Frame.MO, 0);
            MemorySegment.copy(payload, 0, d, ValueLayout.JAVA_BYTE, at + header, payload.length);
            Shared.setLongRelease(h.tx.control(), SpscRing.TAIL, 3L * 65536);
            Thread.sleep(300);
            final DatEvent none = new DatEvent();
            assertEquals(DatStatus.QUEUE_EMPTY, ep.recv().dequeue(none), "delivered under a forged tail: " + none);
            assertEquals(DatStatus.QUEUE_EMPTY, ep.conn().dequeue(none), "the connection: " + none);
            h.tx.commit();
            final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
            assertEquals(payload.length, recv.dto.transferredLength, recv.toString());
        }
    }

    /**
     * The cut word of an abort (SpscRing's withdrawal) is the peer's too: one beyond what it
     * published, one inside a record, or a cut moved with no withdrawal breaks the connection
     * before the victim delivers the record it ends, and places nothing.
     */
    @Test
    void withdrawnCutBeyondWhatWasPublishedBreaksTheConnection() throws Exception
    {
        hostileCut(SpscRing.WITHDRAWN | 4096);
    }

    @Test
    void withdrawnCutInsideARecordBreaksTheConnection() throws Exception
    {
        hostileCut(SpscRing.WITHDRAWN | SpscRing.ALIGN);
    }

    @Test
    void cutMovedWithNoWithdrawalBreaksTheConnection() throws Exception
    {
        hostileCut(SpscRing.aligned(Frame.headerLength(RdmapOpcode.SEND, 0) + 64));
    }

    /** Sets the cut word of the victim's receive ring to {@code cut}, then writes one Send. */
    private void hostileCut(final long cut) throws InterruptedException
    {
        try (Hostile h = connected())
        {
            Shared.setLongVolatile(h.tx.control(), SpscRing.CUT, cut);
            final byte[] junk = new byte[64];
            Arrays.fill(junk, (byte) 0xEE);
            h.record(RdmapOpcode.SEND, Frame.FLAG_LAST, 1, 0, 0, 0, junk);
            victimBrokeAndPlacedNothing();
        }
    }

    /** A withdrawn cut behind the one the victim claimed last: the next record is not delivered. */
    @Test
    void withdrawnCutGoingBackwardsBreaksTheConnection() throws Exception
    {
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 4096, 4096)}, 2, 0);
        try (Hostile h = connected())
        {
            final byte[] first = new byte[64];
            Arrays.fill(first, (byte) 0x11);
            h.record(RdmapOpcode.SEND, Frame.FLAG_LAST, 1, 0, 0, 0, first);
            final DatEvent placed = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, placed.dto.status, placed.toString());
            Shared.setLongVolatile(h.tx.control(), SpscRing.CUT, SpscRing.WITHDRAWN);
            final byte[] second = new byte[64];
            Arrays.fill(second, (byte) 0xEE);
            h.record(RdmapOpcode.SEND, Frame.FLAG_LAST, 2, 0, 0, 0, second);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
            final byte[] rest = memory.asSlice(REGISTERED_AT + 4096).toArray(ValueLayout.JAVA_BYTE);
            final byte[] before = new byte[rest.length];
            Arrays.fill(before, FILL);
            assertEquals(-1, Arrays.mismatch(before, rest), "the second Send was placed");
        }
    }

    @Test
    void randomBytesInTheRingBreakTheConnection() throws Exception
    {
        try (Hostile h = connected())
        {
            final byte[] junk = new byte[8192];
            new Random(42).nextBytes(junk);
            MemorySegment.copy(junk, 0, h.tx.data(), ValueLayout.JAVA_BYTE, 0, junk.length);
            Shared.setLongRelease(h.tx.control(), SpscRing.TAIL, junk.length);
            victimBrokeAndPlacedNothing();
        }
    }

    /**
     * A head behind the last one loaded, ahead of what the victim published, or off the record
     * grid: each is impossible, and each breaks the connection.
     */
    @ParameterizedTest(name = "head={0}")
    @ValueSource(longs = {-4096, 1 << 20, 8})
    void forgedHeadOfTheVictimsRingBreaksTheConnection(final long head) throws Exception
    {
        try (Hostile h = connected())
        {
            // the victim's producer reads this word to learn how much it may write
            Shared.setLongRelease(h.rx.control(), SpscRing.HEAD, head);
            // rounds of the victim's run meanwhile: with nothing of its own in the ring they do not
            // read the head, so the forged word is found only after the Send below was written
            Thread.sleep(100);
            final Lmr out = victim.lmr(4096);
            ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(out, 0, 100)}, 2, 0);
            victimBrokeAndPlacedNothing();
            // the Send fit where the head last loaded (0) left room: written and complete, by its
            // post or by a round, before anything read the forged word (a full round reads it
            // only once a record of ours waits), which then breaks the connection
            final DatEvent send = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, send.dto.status, send.toString());
        }
    }

    @Test
    void forgedRequestHeaderIsRefusedBeforeTheConsumerSeesIt() throws Exception
    {
        final Consumer<ConnectionFile> hugePrivateData = f -> f.segment().set(ValueLayout.JAVA_INT, 72, 1 << 30);
        try (Hostile h = Hostile.request(dir.resolve("victim"), 7000, hugePrivateData))
        {
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (h.file.state() == ConnectionFile.REQUESTED && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            assertEquals(ConnectionFile.REJECTED_NON_PEER, h.file.state());
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.TIMEOUT_EXPIRED, crEvd.wait(SECOND / 10, 1, ev, new DatCount()),
                "no connection request reached the consumer: " + ev);
        }
    }

    /**
     * A peer may shrink the connection file that both sides map. A read or write of the mapping
     * beyond the end then faults (SIGBUS), which the JVM turns into an {@code InternalError} that
     * it may throw later than the faulting access. The victim breaks the connection and flushes its
     * work, nothing escapes into a DAT call, and its IA goes on serving: a second peer connects.
     */
    @Test
    @Tag(INTERPRETED)
    void aPeerThatShrinksTheConnectionFileBreaksTheConnection() throws Exception
    {
        try (Hostile h = connected())
        {
            shrink(h.file.path);
            victimBrokeAndPlacedNothing();
        }
        aPeerConnects(7000, victim.ep(null));
    }

    /**
     * The listener's file is writable by every peer that may ask (they post into its slots), so a
     * peer may shrink it too. The victim's process survives and its IA still takes requests on
     * another service point.
     */
    @Test
    @Tag(INTERPRETED)
    void aPeerThatShrinksTheListenerFileLeavesTheIaServing() throws Exception
    {
        shrink(ShmDirectory.listenerPath(dir.resolve("victim"), 7000));
        final DatEvent ev = new DatEvent();
        assertEquals(DatStatus.TIMEOUT_EXPIRED, crEvd.wait(SECOND / 5, 1, ev, new DatCount()), ev.toString());
        victim.ia.pspCreate(7001, crEvd, PspFlags.CONSUMER_FLAG);
        aPeerConnects(7001, ep);
    }

    /**
     * A requester shrinks its connection file after its request reached the consumer: the accept
     * completes in error, not with the mapping's fault.
     */
    @Test
    @Tag(INTERPRETED)
    void aRequesterThatShrinksItsFileBeforeTheAcceptIsNotConnected() throws Exception
    {
        try (Hostile h = Hostile.request(dir.resolve("victim"), 7000, f ->
        {
        }))
        {
            final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            shrink(h.file.path);
            cr.crArrival.crHandle.accept(ep.ep(), null);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        }
    }

    /** Shrinks a file of the victim's directory to nothing, as any process that can write it may. */
    private static void shrink(final Path file) throws java.io.IOException
    {
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            fc.truncate(0);
        }
    }

    /** A well-behaved peer asks on {@code qual} and is connected to {@code to}. */
    private void aPeerConnects(final long qual, final ShmNode.Ep to) throws InterruptedException
    {
        try (Hostile h = Hostile.request(dir.resolve("victim"), qual, f ->
        {
        }))
        {
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(to.ep(), null);
            h.establish();
            next(to.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    /**
     * The other way round: the victim asks, and the listener's side shrinks the victim's
     * connection file before it answers. The victim's connect ends with a refusal, not a fault.
     */
    @Test
    @Tag(INTERPRETED)
    void aListenerThatShrinksTheRequestersFileRefusesTheConnect() throws Exception
    {
        final ShmNode other = ShmNode.open(dir, "other", "");
        try
        {
            final EventDispatcher otherCr = other.evd(8, EvdFlags.CR_FLAG);
            other.ia.pspCreate(7100, otherCr, PspFlags.CONSUMER_FLAG);
            ep.ep().connect(other.address, 7100, 5 * SECOND, null, io.jdat.Qos.BEST_EFFORT, 0);
            next(otherCr, EventNumber.CONNECTION_REQUEST_EVENT);
            try (var files = java.nio.file.Files.newDirectoryStream(dir.resolve("other"), "c-*"))
            {
                for (final Path p : files)
                {
                    shrink(p);
                }
            }
            // refused by the fault at once, not timed out after the connect's 5 s
            next(ep.conn(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
        finally
        {
            other.close();
        }
    }
}

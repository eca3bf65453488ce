package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static io.jdat.testkit.ProtectionMatrix.LEN;
import static io.jdat.testkit.ProtectionMatrix.REGION;
import static io.jdat.testkit.ProtectionMatrix.REGION_AT;
import static io.jdat.testkit.ProtectionMatrix.SEGMENT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.RmrTriplet;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.testkit.ProtectionMatrix;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The two rows of the protection matrix a consumer cannot produce through the API, because the
 * offender is the peer's side of an RDMA Read: a Read Response into a sink whose LMR was freed
 * after the Read was posted, and a Read Response nobody asked for into memory without remote
 * rights. A {@link Hostile} peer writes them into the ring; jdat places nothing (its LMR covers
 * the middle of a larger segment, all of it checksummed), answers with the RFC 5041
 * tagged-buffer Terminate, and breaks the connection.
 */
class ShmReadResponseProtectionTest
{
    private static final long QUAL = 7000;

    private Path dir;
    private ShmNode victim;
    private EventDispatcher crEvd;
    private ShmNode.Ep ep;
    private MemorySegment segment;

    @BeforeEach
    void victim()
    {
        dir = TestFiles.freshDir();
        victim = ShmNode.open(dir, "victim", "ring_size=65536");
        crEvd = victim.evd(8, EvdFlags.CR_FLAG);
        victim.ia.pspCreate(QUAL, crEvd, PspFlags.CONSUMER_FLAG);
        ep = victim.ep(null);
        final Lmr buffer = victim.lmr(LEN);
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffer, 0, LEN)}, 100, CompletionFlags.DEFAULT_FLAG);
        segment = victim.memory(SEGMENT);
        final byte[] random = new byte[SEGMENT];
        new Random(3).nextBytes(random);
        MemorySegment.copy(random, 0, segment, ValueLayout.JAVA_BYTE, 0, SEGMENT);
    }

    @AfterEach
    void clean()
    {
        victim.close();
        TestFiles.delete(dir);
    }

    private Hostile connected() throws InterruptedException
    {
        final Hostile h = Hostile.request(dir.resolve("victim"), QUAL, f ->
        {
        });
        next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
        h.establish();
        next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return h;
    }

    /** The victim broke, flushed its receive, and its next record is a Terminate with this tagged-buffer code. */
    private void terminatedAndBroken(final Hostile h, final int code) throws InterruptedException
    {
        next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
        final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(DtoStatus.ERR_FLUSHED, recv.dto.status, recv.toString());
        assertEquals(RdmapOpcode.TERMINATE, h.awaitVictimRecord(), "the victim sent a Terminate");
        final TerminateInfo info = Frame.terminateInfo(h.rx.data(), h.rx.readIndex());
        assertEquals(TerminateCodes.LAYER_DDP, info.layer(), info.toString());
        assertEquals(TerminateCodes.DDP_TAGGED_BUFFER, info.etype(), info.toString());
        assertEquals(code, info.code(), info.toString());
    }

    private static byte[] junk()
    {
        final byte[] b = new byte[LEN];
        Arrays.fill(b, (byte) 0xA5);
        return b;
    }

    @Test
    void readResponseIntoASinkFreedAfterThePostFailsWithLocalProtectionAndPlacesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            final Lmr sink = victim.lmr(segment.asSlice(REGION_AT, REGION), MemPriv.ALL_FLAG);
            ep.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, LEN)}, 1,
                new RmrTriplet(0x1234_5601, 0x10_0000, LEN), CompletionFlags.DEFAULT_FLAG);
            assertEquals(RdmapOpcode.RDMA_READ_REQUEST, h.awaitVictimRecord(), "the victim sent a Read Request");
            final MemorySegment d = h.rx.data();
            final long at = h.rx.readIndex();
            final int sinkStag = d.get(ValueLayout.JAVA_INT, at + Frame.STAG);
            final long sinkTo = d.get(ValueLayout.JAVA_LONG, at + Frame.TO);
            assertEquals(LEN, d.get(ValueLayout.JAVA_INT, at + Frame.MO), "the size asked for");
            h.rx.consume(SpscRing.aligned(d.get(ValueLayout.JAVA_INT, at + Frame.LENGTH)));
            final ProtectionMatrix.Checked bytes = new ProtectionMatrix.Checked(segment);

            // dat_lmr_free with the Read outstanding: the sink has no rights any more
            sink.free();
            h.record(RdmapOpcode.RDMA_READ_RESPONSE, Frame.FLAG_LAST, 0, sinkStag, 0, sinkTo, junk());

            final DatEvent read = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(1, read.dto.userCookie, read.toString());
            assertEquals(DtoStatus.ERR_LOCAL_PROTECTION, read.dto.status, read.toString());
            terminatedAndBroken(h, TerminateCodes.DDP_TAGGED_INVALID_STAG);
            System.out.println("MATRIX shm READ_RESPONSE_TO_FREED_SINK READ: dto=" + read.dto.status
                + " terminate=DDP/tagged/invalid STag victim=BROKEN recvs=FLUSHED bytesChanged=" + bytes.changed()
                + " crc=" + bytes.crc());
            bytes.assertUnchanged("the segment around the sink");
        }
    }

    @Test
    void readResponseNobodyAskedForIntoMemoryWithoutRemoteRightsPlacesNothing() throws Exception
    {
        try (Hostile h = connected())
        {
            final Lmr lmr = victim.lmr(segment.asSlice(REGION_AT, REGION),
                MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
            final ProtectionMatrix.Checked bytes = new ProtectionMatrix.Checked(segment);
            h.record(RdmapOpcode.RDMA_READ_RESPONSE, Frame.FLAG_LAST, 0, lmr.lmrContext(), 0, lmr.registeredAddress(),
                junk());
            terminatedAndBroken(h, TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED);
            System.out.println("MATRIX shm UNSOLICITED_READ_RESPONSE -: terminate=DDP/tagged/STag not associated"
                + " victim=BROKEN recvs=FLUSHED bytesChanged=" + bytes.changed() + " crc=" + bytes.crc());
            bytes.assertUnchanged("the segment around the LMR");
        }
    }
}

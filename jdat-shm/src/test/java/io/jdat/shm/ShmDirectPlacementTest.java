package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jdat.CloseFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.testkit.PeerProcess;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RDMA Writes and Reads between two processes, out of and into shared ({@link ShmMemory}) and
 * ordinary memory ({@link Direct} draws the layout). Data out of shared memory travels as
 * references the receiving engine places from (counted in the transport attributes); data out of
 * ordinary memory streams through the ring. Either way every byte arrives, and no byte around the
 * target ranges changes, on either side.
 */
class ShmDirectPlacementTest
{
    private static final long QUAL = 5100;

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void writesAndReadsBetweenSharedAndOrdinaryMemoryOfTwoProcesses() throws Exception
    {
        try (PeerProcess server = ShmPeer.start(dir, "srv", QUAL, "direct");
            ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            server.awaitExactly("READY", 30);
            final Direct d = new Direct(client, dir);
            Direct.fill(d.shared.memory(), Direct.SLOT_A, Direct.CLIENT_SHARED);
            Direct.fill(d.ordinary, Direct.SLOT_A, Direct.CLIENT_ORDINARY);
            final ShmNode.Ep ep = client.ep(null);
            ep.ep().connect(IaAddress.named("srv"), QUAL, 10 * SECOND, null, Qos.BEST_EFFORT, 0);
            final DatEvent up = next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(24, up.connection.privateDataSize);
            final ByteBuffer pd = ByteBuffer.wrap(up.connection.privateData, 0, 24);
            final int sharedRmr = pd.getInt();
            final long sharedBase = pd.getLong();
            final int ordinaryRmr = pd.getInt();
            final long ordinaryBase = pd.getLong();

            // into each of the server's memories: from the client's shared memory, then its ordinary memory
            write(ep, d.sharedLmr, new RmrTriplet(sharedRmr, sharedBase + Direct.SLOT_A, Direct.LENGTH), 1);
            write(ep, d.ordinaryLmr, new RmrTriplet(sharedRmr, sharedBase + Direct.SLOT_B, Direct.LENGTH), 2);
            write(ep, d.sharedLmr, new RmrTriplet(ordinaryRmr, ordinaryBase + Direct.SLOT_A, Direct.LENGTH), 3);
            write(ep, d.ordinaryLmr, new RmrTriplet(ordinaryRmr, ordinaryBase + Direct.SLOT_B, Direct.LENGTH), 4);
            // out of each of the server's memories into each of the client's
            final RmrTriplet fromShared = new RmrTriplet(sharedRmr, sharedBase + Direct.SOURCE, Direct.LENGTH);
            final RmrTriplet fromOrdinary = new RmrTriplet(ordinaryRmr, ordinaryBase + Direct.SOURCE, Direct.LENGTH);
            read(ep, d.sharedLmr, Direct.SINK_SHARED, fromShared, 5);
            read(ep, d.sharedLmr, Direct.SINK_ORDINARY, fromOrdinary, 6);
            read(ep, d.ordinaryLmr, Direct.SINK_SHARED, fromShared, 7);
            read(ep, d.ordinaryLmr, Direct.SINK_ORDINARY, fromOrdinary, 8);
            for (int cookie = 1; cookie <= 8; cookie++)
            {
                final DatEvent done = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, done.dto.status, done.toString());
                assertEquals(cookie, done.dto.userCookie);
                assertEquals(Direct.LENGTH, done.dto.transferredLength);
            }

            assertNull(Direct.check("client shared memory", d.shared.memory(), Direct.SLOT_A, Direct.CLIENT_SHARED,
                Direct.SINK_SHARED, Direct.SERVER_SHARED, Direct.SINK_ORDINARY, Direct.SERVER_ORDINARY));
            assertNull(Direct.check("client ordinary memory", d.ordinary, Direct.SLOT_A, Direct.CLIENT_ORDINARY,
                Direct.SINK_SHARED, Direct.SERVER_SHARED, Direct.SINK_ORDINARY, Direct.SERVER_ORDINARY));
            final IaAttr attr = new IaAttr();
            client.ia.query(IaAttr.FIELD_ALL, attr, 0, null);
            assertEquals(Long.toString(2L * Direct.LENGTH), attr.transportAttr("jdat.shm.direct_bytes_sent"),
                "the Writes out of shared memory went direct, the others did not");
            assertEquals(Long.toString(2L * Direct.LENGTH), attr.transportAttr("jdat.shm.direct_bytes_received"),
                "the Reads out of the server's shared memory came direct, the others did not");

            // the server checks both its memories when this Send arrives
            final Lmr msg = client.lmr(64);
            ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(msg, 0, 8)}, 9, 0);
            assertEquals(DtoStatus.SUCCESS, next(ep.req(), EventNumber.DTO_COMPLETION_EVENT).dto.status);
            server.awaitExactly("VERIFIED", 20);
            ep.ep().disconnect(CloseFlags.GRACEFUL_FLAG);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(0, server.exit(10), server.output());
            msg.free();
            d.close();
        }
    }

    private static void write(final ShmNode.Ep ep, final Lmr source, final RmrTriplet target, final long cookie)
    {
        ep.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(source, Direct.SLOT_A, Direct.LENGTH)}, cookie,
            target, 0);
    }

    private static void read(final ShmNode.Ep ep, final Lmr sink, final int at, final RmrTriplet source,
        final long cookie)
    {
        ep.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(sink, at, Direct.LENGTH)}, cookie, source, 0);
    }
}

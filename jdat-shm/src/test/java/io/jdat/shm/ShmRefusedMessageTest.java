package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On shm a Write, and a Send under {@code complete_written=false}, completes once the target
 * consumed its last record, which means it was placed. A message the target's engine refuses is
 * therefore not a success: it completes with the error the target's Terminate names (digest §4.4),
 * not with DAT_DTO_SUCCESS ahead of it. A Send of one record under
 * {@code complete_written=true} completes with success once written into the ring, whether its
 * post wrote it or a progress round did, and the refusal breaks the connection after it.
 */
class ShmRefusedMessageTest
{
    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void writeIntoMemoryWithoutRemoteWriteCompletesWithRemoteAccess()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final ShmNode.Ep[] p = ShmNode.connect(client, server, 4711);
            final Lmr target = server.lmr(server.memory(4096), MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_READ_FLAG);
            final Lmr source = client.lmr(4096);
            p[0].ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(source, 0, 64)}, 1,
                new RmrTriplet(target.rmrContext(), target.registeredAddress(), 64), 0);
            final DatEvent write = next(p[0].req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.ERR_REMOTE_ACCESS, write.dto.status, write.toString());
            next(p[0].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            next(p[1].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @Test
    void sendWithNoReceivePostedCompletesWithReceiverNotReady()
    {
        assertEquals(DtoStatus.ERR_RECEIVER_NOT_READY, sendToNoReceive("complete_written=false"));
    }

    @Test
    void sendWrittenByItsPostCompletesAndTheRefusalBreaksTheConnection()
    {
        assertEquals(DtoStatus.SUCCESS, sendToNoReceive("complete_written=true"));
    }

    /**
     * The same Send, fenced behind an RDMA Read that the server, its I/O thread parked, answers
     * only later: the engine's thread that places the Read Response starts the Send, which never
     * goes through its post's {@code sendNow}; a progress round writes it, and it completes as the
     * one its post wrote does.
     */
    @Test
    void sendWrittenByARoundCompletesAndTheRefusalBreaksTheConnection() throws InterruptedException
    {
        try (ShmNode server = ShmNode.open(dir, "srv", "idle_spin_ns=0 idle_yield_ns=0 idle_park_min_ns=300000000"
            + " idle_park_max_ns=300000000 futex=false");
            ShmNode client = ShmNode.open(dir, "cli", "complete_written=true"))
        {
            final ShmNode.Ep[] p = ShmNode.connect(client, server, 4711);
            final Lmr remote = server.lmr(4096);
            final Lmr local = client.lmr(4096);
            // the server's I/O thread parks: the Read waits for it, and the Send for the Read
            Thread.sleep(100);
            p[0].ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 64)}, 1,
                new RmrTriplet(remote.rmrContext(), remote.registeredAddress(), 64), 0);
            p[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(local, 64, 64)}, 2,
                CompletionFlags.BARRIER_FENCE_FLAG);
            final DatEvent read = next(p[0].req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(1, read.dto.userCookie);
            assertEquals(DtoStatus.SUCCESS, read.dto.status, read.toString());
            final DatEvent send = next(p[0].req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(2, send.dto.userCookie);
            assertEquals(DtoStatus.SUCCESS, send.dto.status, send.toString());
            next(p[0].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            next(p[1].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    /**
     * One 64-byte Send from a client opened with {@code clientData} to a server that posted no
     * receive: both ends break; returns the Send's completion status.
     */
    private DtoStatus sendToNoReceive(final String clientData)
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", clientData))
        {
            final ShmNode.Ep[] p = ShmNode.connect(client, server, 4711);
            final Lmr source = client.lmr(4096);
            p[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(source, 0, 64)}, 1, 0);
            final DatEvent send = next(p[0].req(), EventNumber.DTO_COMPLETION_EVENT);
            next(p[0].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            next(p[1].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            return send.dto.status;
        }
    }
}

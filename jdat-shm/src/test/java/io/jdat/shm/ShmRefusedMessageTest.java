package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On shm a Send or Write completes once the target consumed its last record, which means it was
 * placed. A message the target's engine refuses is therefore not a success: it completes with the
 * error the target's Terminate names (digest §4.4), not with DAT_DTO_SUCCESS ahead of it.
 */
class ShmRefusedMessageTest
{
    private Path dir;

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        TestFiles.delete(dir);
    }

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
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final ShmNode.Ep[] p = ShmNode.connect(client, server, 4711);
            final Lmr source = client.lmr(4096);
            p[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(source, 0, 64)}, 1, 0);
            final DatEvent send = next(p[0].req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.ERR_RECEIVER_NOT_READY, send.dto.status, send.toString());
            next(p[0].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            next(p[1].conn(), EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }
}

package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transaction with validation between this JVM and a second one; and Sends reported complete
 * right before an abrupt disconnect, which the other process receives all the same.
 */
class ShmTwoProcessTest
{
    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void transactionWithValidationAcrossTwoProcesses() throws Exception
    {
        try (PeerProcess server = ShmPeer.start(dir, "srv", 5000, "validate");
            ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            server.awaitExactly("READY", 30);
            ShmNode.TRANSACTION.run(client.lmr(Transaction.LMR_SIZE), client.ep(null).side(), IaAddress.named("srv"),
                5000);
            server.awaitExactly("OK", 10);
            assertEquals(0, server.exit(10), server.output());
            assertTrue(TestFiles.files(dir.resolve("srv")).stream().noneMatch(n -> n.startsWith("c-")),
                "no connection file is left");
        }
    }

    /**
     * The client's Sends complete once written while the server's process looks at nothing (its
     * I/O thread parked, no consumer in an EVD); the client disconnects abruptly at once. The
     * disconnect takes back nothing already reported complete: the server, waking, receives
     * every Send, then sees the disconnect.
     */
    @Test
    void sendsCompletedBeforeAnAbruptDisconnectReachTheOtherProcess() throws Exception
    {
        try (PeerProcess server = ShmPeer.start(dir, "srv", 5001, "late");
            ShmNode client = ShmNode.open(dir, "cli", "complete_written=true"))
        {
            server.awaitExactly("READY", 30);
            final ShmNode.Ep ep = client.ep(null);
            final Lmr source = client.lmr(ShmPeer.LATE_SENDS * ShmPeer.LATE_LEN);
            for (int i = 0; i < ShmPeer.LATE_SENDS * ShmPeer.LATE_LEN; i++)
            {
                source.memory().set(ValueLayout.JAVA_BYTE, i, ShmPeer.lateByte(i));
            }
            ep.ep().connect(IaAddress.named("srv"), 5001, 20 * ShmNode.SECOND, null, Qos.BEST_EFFORT, 0);
            // the server's I/O thread sees the request when its park of up to 5 s ends
            final DatEvent up = new DatEvent();
            assertEquals(DatStatus.SUCCESS, ep.conn().wait(20 * ShmNode.SECOND, 1, up, new DatCount()));
            assertTrue(up.is(EventNumber.CONNECTION_EVENT_ESTABLISHED), up.toString());
            // the server's I/O thread goes to sleep after the handshake
            Thread.sleep(300);
            for (int i = 0; i < ShmPeer.LATE_SENDS; i++)
            {
                ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(source, (long) i * ShmPeer.LATE_LEN,
                    ShmPeer.LATE_LEN)}, i, 0);
            }
            for (int i = 0; i < ShmPeer.LATE_SENDS; i++)
            {
                final DatEvent sent = ShmNode.next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(i, sent.dto.userCookie);
                assertEquals(DtoStatus.SUCCESS, sent.dto.status, sent.toString());
            }
            ep.ep().disconnect(CloseFlags.ABRUPT_FLAG);
            ShmNode.next(ep.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            server.awaitExactly("RECEIVED", 20);
            assertEquals(0, server.exit(10), server.output());
        }
    }
}

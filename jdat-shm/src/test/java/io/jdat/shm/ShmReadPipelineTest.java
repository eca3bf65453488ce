package io.jdat.shm;

import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.testkit.BytePattern;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RDMA Reads pipelined deeper than the read credits (ORD = IRD = 4, 16 posted at once): the
 * requester issues the next Read Request as soon as a Read Response is placed, so the responder
 * must count that response's IRD slot free before it takes the new request (an RDMA Read the
 * responder took over its IRD would break the connection with DAT_DTO_ERR_RECEIVER_NOT_READY at
 * the requester).
 */
class ShmReadPipelineTest
{
    private static final int READS = 16;
    private static final int SIZE = 4096;
    private static final int ROUNDS = 25;

    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void readsPipelinedBeyondTheCreditsAllComplete()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final ShmNode.Ep c = ShmNode.connect(client, server, 4711)[0];
            final Lmr source = server.lmr((long) READS * SIZE);
            final Lmr sink = client.lmr((long) READS * SIZE);
            for (int round = 0; round < ROUNDS; round++)
            {
                for (int i = 0; i < READS; i++)
                {
                    BytePattern.fill(source.memory(), (long) i * SIZE, SIZE, round * READS + i);
                }
                for (int i = 0; i < READS; i++)
                {
                    c.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(sink, (long) i * SIZE, SIZE)}, i,
                        new RmrTriplet(source.rmrContext(), source.registeredAddress() + (long) i * SIZE, SIZE), 0);
                }
                for (int i = 0; i < READS; i++)
                {
                    final DatEvent done = next(c.req(), EventNumber.DTO_COMPLETION_EVENT);
                    assertEquals(DtoStatus.SUCCESS, done.dto.status, "round " + round + ", read " + i);
                    assertEquals(i, done.dto.userCookie);
                    assertEquals(SIZE, done.dto.transferredLength);
                }
                for (int i = 0; i < READS; i++)
                {
                    assertEquals(-1, BytePattern.mismatch(sink.memory(), (long) i * SIZE, SIZE, round * READS + i),
                        "round " + round + ", read " + i + " in the sink");
                }
            }
        }
    }
}

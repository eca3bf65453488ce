package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.IaAddress;
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A transaction with validation between this JVM and a second one. */
class ShmTwoProcessTest
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
}

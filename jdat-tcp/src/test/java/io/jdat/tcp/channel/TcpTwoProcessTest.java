package io.jdat.tcp.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.IaAddress;
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A transaction with validation between this JVM and a second one, over TCP. */
class TcpTwoProcessTest
{
    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"crc=false", "crc=true mss=1448"})
    void transactionWithValidationAcrossTwoProcesses(final String instanceData) throws Exception
    {
        try (PeerProcess server = TcpPeer.start("validate", instanceData);
            TcpNode client = TcpNode.open(instanceData))
        {
            final long port = Long.parseLong(server.await("READY ", 30));
            TcpNode.TRANSACTION.run(client.lmr(Transaction.LMR_SIZE), client.ep(null).side(),
                IaAddress.parse("127.0.0.1"), port);
            server.await("OK", 10);
            assertEquals(0, server.exit(10), server.output());
        }
    }
}

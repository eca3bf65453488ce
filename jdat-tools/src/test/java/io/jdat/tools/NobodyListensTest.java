package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A client that connects where nobody listens is told so in words first, with the DAT event
 * after it, on tcp (a refused TCP connect) and shm (no listening file for the qualifier).
 */
class NobodyListensTest
{
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"tcp, rping", "shm, rping", "tcp, perf", "shm, perf"})
    void theClientSaysNobodyListensThenTheDatEvent(final String provider, final String tool) throws IOException
    {
        final String address = provider.equals("tcp") ? "127.0.0.1" : "shm";
        final int port = portNobodyListensOn(provider);
        final Run r = tool.equals("rping")
            ? Run.jdat("rping", "--provider", provider, "-c", "-a", address, "-p", Integer.toString(port), "-C", "1",
                "--timeout", "10")
            : Run.jdat("perf", "--provider", provider, "--connect", address + ":" + port, "--timeout", "10");
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        final String said = "nobody is listening at " + address + ":" + port;
        final int words = r.err().indexOf(said);
        assertTrue(words >= 0, "expected '" + said + "':\n" + r.all());
        assertTrue(r.err().indexOf("CONNECTION_EVENT_NON_PEER_REJECTED") > words, r.all());
    }

    /** A TCP port nobody listens on; for shm a random qualifier (no listening file has it). */
    private static int portNobodyListensOn(final String provider) throws IOException
    {
        if (!provider.equals("tcp"))
        {
            return ThreadLocalRandom.current().nextInt(20_000, 60_000);
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }
}

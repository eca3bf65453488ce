package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The {@code tcp} provider as the {@code jdat} command sees it: listed, and the demo passes over it. */
class TcpProviderTest
{
    @Test
    void providersListsTcpAndItsLibrary()
    {
        final Run r = Run.jdat("providers");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().matches("(?s).*\\n  tcp +u1\\.2 +threadsafe +tcp .*"), r.all());
        assertTrue(r.out().contains("io.jdat.tcp.channel.TcpLibrary"), r.all());
    }

    @Test
    void demoOverTcpVerifiesEveryTransferAndExitsZero()
    {
        final Run r = Run.jdat("demo", "--provider", "tcp");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("IA address 127.0.0.1"), r.all());
        assertTrue(r.out().contains("Send/Recv of 4096 bytes"), r.all());
        assertTrue(r.out().contains("RDMA Write of 16384 bytes"), r.all());
        assertTrue(r.out().contains("RDMA Read of 16384 bytes"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
    }
}

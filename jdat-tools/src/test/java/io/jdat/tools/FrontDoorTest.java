package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@code jdat providers}, {@code jdat demo} and the command line's error handling. */
class FrontDoorTest
{
    @Test
    void providersListsLoopbackAndItsLibrary()
    {
        final Run r = Run.jdat("providers");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().matches("(?s).*\\n  loopback +u1\\.2 +threadsafe +loopback .*"), r.all());
        assertTrue(r.out().contains("io.jdat.loopback.LoopbackLibrary"), r.all());
        assertTrue(r.out().contains("Registry file: "), r.all());
        assertTrue(r.out().contains("Skipped lines:"), r.all());
    }

    @Test
    void demoVerifiesEveryTransferAndExitsZero()
    {
        final Run r = Run.jdat("demo");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("Send/Recv of 4096 bytes"), r.all());
        assertTrue(r.out().contains("RDMA Write of 16384 bytes"), r.all());
        assertTrue(r.out().contains("RDMA Read of 16384 bytes"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
        assertTrue(r.err().isEmpty(), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void demoWithAnSrqAndAnRspOnEachSoftwareProvider(final String provider)
    {
        final Run r = Run.jdat("demo", "--srq", "--rsp", "-P", provider);
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("one SRQ shared by two endpoints"), r.all());
        assertTrue(r.out().contains("low-watermark event (2 left, below 3) reached the async EVD before any"),
            r.all());
        assertTrue(r.out().contains("connection through an RSP"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"send", "write", "read", "srq"})
    void demoCatchesCorruptedData(final String transfer)
    {
        final Run r = transfer.equals("srq") ? Run.jdat("demo", "--srq", "--inject-corruption", transfer)
            : Run.jdat("demo", "--inject-corruption", transfer);
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        assertTrue(r.err().contains("data differs at byte"), r.all());
        assertTrue(!r.out().contains("all checks passed"), r.all());
    }

    @Test
    void unknownProviderIsOneLineAndExitTwo()
    {
        final Run r = Run.jdat("demo", "--provider", "no-such-ia");
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        assertTrue(r.err().contains("unknown provider 'no-such-ia'"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo --no-such-option", "no-such-command", "providers extra", "", "demo -P"})
    void badCommandLinesAreOneLineAndExitTwo(final String line)
    {
        final Run r = Run.jdat(line.isEmpty() ? new String[0] : line.split(" "));
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
    }
}

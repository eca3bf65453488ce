package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat test} and {@code jdat dtest} on the providers that leave the JVM (tcp over
 * 127.0.0.1, shm through shared files), client and server in this process, small counts.
 */
class ToolsOnOtherProvidersTest
{
    private static void assertPassed(final Run r)
    {
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
    }

    /** On dapltest's wire, the default: the server in this process must have passed too. */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void transactionWithValidationThroughAPspAndThroughRsps(final String provider)
    {
        assertPassedOnDapltestsWire(Run.jdat("test", "client", "-P", provider, "transaction", "-V", "-i", "10", "-t",
            "2", "-w", "2"));
        assertPassedOnDapltestsWire(Run.jdat("test", "client", "-P", provider, "transaction", "-V", "-i", "10",
            "--rsp", "--cno",
            "client", "SR", "256", "server", "SR", "256", "client", "RR", "8192", "2", "server", "RW", "100"));
    }

    private static void assertPassedOnDapltestsWire(final Run r)
    {
        assertPassed(r);
        assertTrue(r.out().contains("session 1: dapltest transaction passed"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void performanceOfWritesChecksTheData(final String provider)
    {
        assertPassed(Run.jdat("test", "client", "-P", provider, "performance", "--jdat-protocol", "-i", "100", "RW",
            "65536"));
        assertPassed(Run.jdat("test", "client", "-P", provider, "performance", "--jdat-protocol", "-i", "100", "-p",
            "4", "RW", "1000", "3"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void performanceOfPipelinedReadsChecksTheData(final String provider)
    {
        // 8 Reads outstanding on 8 read credits: each completion is followed at once by a Read on its credit
        assertPassed(Run.jdat("test", "client", "-P", provider, "performance", "--jdat-protocol", "-i", "200", "-p",
            "8", "RR", "4096"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void corruptionIsCaught(final String provider)
    {
        final Run t = Run.jdat("test", "client", "-P", provider, "--inject-corruption", "transaction",
            "--jdat-protocol", "-V", "-i", "5");
        assertEquals(Jdat.EXIT_FAILED, t.code(), t.all());
        assertTrue(t.oneErrorLine() && t.err().contains("data differs at byte"), t.all());
        final Run d = Run.jdat("dtest", "-P", provider, "--inject-fault", "write");
        assertEquals(Jdat.EXIT_FAILED, d.code(), d.all());
        assertTrue(d.oneErrorLine()
            && d.err().contains("RDMA Write data of the peer in the buffer of client ep: byte 32"),
            d.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void dtestLimitAndFftPass(final String provider)
    {
        assertPassed(Run.jdat("dtest", "-P", provider, "-B", "20", "-b", "1000"));
        final Run l = Run.jdat("test", "client", "-P", provider, "limit", "--max", "20", "--max-lmr-size", "2M");
        assertEquals(0, l.code(), l.all());
        assertTrue(l.out().contains("all limit tests passed"), l.all());
        final Run f = Run.jdat("test", "client", "-P", provider, "fft");
        assertEquals(0, f.code(), f.all());
        assertTrue(f.out().matches("(?s).*all \\d+ cases passed.*"), f.all());
    }
}

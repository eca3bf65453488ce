package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code jdat dtest} (digest §8.2) on loopback, client and server in this process. */
class DtestTest
{
    @Test
    void defaultFlowPassesAndPrintsTimings()
    {
        final Run r = Run.jdat("dtest");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().matches("(?s).*client: RDMA Write burst: 10 x 64 bytes \\+ Send in [0-9.]+ us .*"), r.all());
        assertTrue(r.out().matches("(?s).*client: RDMA Read: 640 bytes in [0-9.]+ us .*"), r.all());
        assertTrue(r.out().matches("(?s).*client: ping-pong: 10 round trips of 64 bytes: mean [0-9.]+ us.*"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
        assertTrue(r.err().isEmpty(), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--poll", "--cno", "-b 1", "-b 65536 -B 3", "-B 200 -b 4000 --poll"})
    void everyCompletionModeAndSizePasses(final String options)
    {
        final Run r = Run.jdat(("dtest " + options).split(" "));
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"write", "read", "pingpong"})
    void corruptedDataFailsTheRun(final String where)
    {
        final Run r = Run.jdat("dtest", "--inject-corruption", where);
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        assertTrue(r.err().contains("data differs at byte 32 of 64"), r.all());
        assertTrue(r.err().contains(switch (where)
        {
            case "write" -> "RDMA Write 0 of the peer's burst, in the buffer of client ep";
            case "read" -> "RDMA Read sink of client ep";
            default -> "ping-pong message 0 received by client ep";
        }), r.all());
        assertFalse(r.out().contains("all checks passed"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"dtest -b 0", "dtest -B 0", "dtest -B x", "dtest --poll --cno", "dtest --listen --connect x",
        "dtest --connect somewhere:1", "dtest --timeout -1", "dtest --bogus", "dtest -P no-such-ia"})
    void badOptionsAreOneLineAndExitTwo(final String line)
    {
        final Run r = Run.jdat(line.split(" "));
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
    }

    @Test
    void hasHelp()
    {
        final Run r = Run.jdat("dtest", "--help");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().startsWith("Usage: jdat dtest"), r.all());
    }
}

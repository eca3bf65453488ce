package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code jdat dtest} on loopback, client and server in this process, through dtest's phases. */
class DtestTest
{
    @Test
    void defaultFlowPassesAndPrintsTimings()
    {
        final Run r = Run.jdat("dtest");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().matches("(?s).*client: RDMA Write: 10 x 64 bytes, then a Send each way, in [0-9.]+ us; "
            + "the peer's data checked.*"), r.all());
        assertTrue(r.out().matches("(?s).*client: RDMA Read: 4 x 64 bytes in [0-9.]+ us .*"), r.all());
        assertTrue(r.out().matches("(?s).*client: ping-pong: 100 round trips of 64 bytes: mean [0-9.]+ us.*"), r.all());
        assertTrue(r.out().matches("(?s).*server: ping-pong: answered 100 messages of 64 bytes.*"), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
        assertTrue(r.err().isEmpty(), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-p", "-c", "-b 1", "-b 65536 -B 3", "-B 200 -b 4000 -p", "-u", "-w -B 30 -S 7",
        "-W -B 20", "-D -b 100 -B 10", "-W -a -b 64 -B 3", "-p -D -a -i 7 -b 30 -B 3"})
    void everyModeAndSizePasses(final String options)
    {
        final Run r = Run.jdat(("dtest " + options).split(" "));
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("all checks passed"), r.all());
    }

    @Test
    void writePingPongWithAllSizesRunsDtestsSeries()
    {
        // dtest -W -a -b 64: 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64
        final Run r = Run.jdat("dtest", "-W", "-a", "-b", "64", "-B", "2");
        assertEquals(0, r.code(), r.all());
        final String sizes = r.out().lines().filter(l -> l.startsWith("client: RDMA Write ping-pong"))
            .map(l -> l.replaceAll(".* 2 x (\\d+) bytes.*", "$1")).reduce((a, b) -> a + " " + b).orElse("");
        assertEquals("1 2 3 4 5 7 8 9 15 16 17 31 32 33 63 64", sizes, r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"write", "read", "pingpong"})
    void corruptedDataFailsTheRun(final String where)
    {
        final Run r = Run.jdat("dtest", "--inject-fault", where);
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        assertTrue(r.err().contains(switch (where)
        {
            case "write" -> "RDMA Write data of the peer in the buffer of client ep: byte 32 of 64";
            case "read" -> "RDMA Read sink of client ep: byte 63 of 64";
            default -> "ping-pong message 0 received by client ep: first byte 0x55, expected 0xaa";
        }), r.all());
        assertFalse(r.out().contains("all checks passed"), r.all());
    }

    @Test
    void corruptedEchoFailsTheWritePingPongDataCheck()
    {
        final Run r = Run.jdat("dtest", "-D", "-b", "64", "--inject-fault", "write");
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine() && r.err().contains("the server's echo of write 1 differs at byte 0"), r.all());
    }

    @Test
    void wrongPrivateDataIsRejectedByTheServer()
    {
        final Run r = Run.jdat("dtest", "--inject-fault", "privateData");
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine() && r.err().contains("server: rejected the connection: the peer's connection "
            + "request private data byte 0 is 7, dtest's is 1"), r.all());
    }

    @Test
    void aTripletOfTheWrongSizeFailsTheRun()
    {
        final Run r = Run.jdat("dtest", "--inject-fault", "tripletSize");
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine() && r.err().contains("the peer sent 20 bytes, dtest's RMR triplet is 16"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"dtest -b 0", "dtest -B 0", "dtest -B x", "dtest -p -c", "dtest -s -h x", "dtest -s",
        "dtest -h localhost", "dtest --timeout -1", "dtest --bogus", "dtest -P no-such-ia", "dtest -a", "dtest -w -W",
        "dtest -W -i 4", "dtest --advertise 10.0.0.1", "dtest -P tcp -s --advertise ::1",
        "dtest -P tcp -s --advertise-provider", "dtest --connect-address 10.0.0.1", "dtest -b 9000000"})
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
        assertTrue(r.out().contains("--connect-address") && r.out().contains("--advertise"), r.all());
    }
}

package io.jdat.tools.perf;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which rows the server's thread polls in: what a baseline's server end must match. */
class PerfServerPollsTest
{
    private static RowSpec row(final Op op, final RowSpec.Kind kind, final boolean bidirectional)
    {
        return new RowSpec(op, kind, 1 << 20, 100, 10, bidirectional, 1);
    }

    @Test
    void theTargetOfOneWayRdmaWaits()
    {
        assertFalse(PerfServer.polls(row(Op.write, RowSpec.Kind.bw, false), false));
        assertFalse(PerfServer.polls(row(Op.read, RowSpec.Kind.bw, false), false));
    }

    @Test
    void underInlinePollBothSidesOfOneWayRdmaSpin()
    {
        assertTrue(PerfServer.polls(row(Op.write, RowSpec.Kind.bw, false), true));
        assertTrue(PerfServer.polls(row(Op.read, RowSpec.Kind.bw, false), true));
    }

    @Test
    void aServerWithAStreamOfItsOwnPolls()
    {
        assertTrue(PerfServer.polls(row(Op.send, RowSpec.Kind.bw, false), false));
        assertTrue(PerfServer.polls(row(Op.write, RowSpec.Kind.bw, true), false));
        assertTrue(PerfServer.polls(row(Op.read, RowSpec.Kind.bw, true), false));
    }

    @Test
    void latencyRowsPollAsTheClientAsked()
    {
        assertTrue(PerfServer.polls(row(Op.send, RowSpec.Kind.lat, false), true));
        assertFalse(PerfServer.polls(row(Op.write, RowSpec.Kind.lat, false), false));
    }
}

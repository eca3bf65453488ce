package io.jdat.tools.dapltest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** dapltest's messages against the bytes the real dapltest sent (shared/interop/dapl captures). */
class DapltestWireTest
{
    private static String hex(final MemorySegment m, final long from, final int n)
    {
        return HexFormat.of().formatHex(m.asSlice(from, n).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void clientInfoCarriesDapltestsTestTypesAndRefusesOthers()
    {
        // dapltest's DT_TEST_TYPE: transaction 1, performance 2, limit 3, quit 4, FFT 5
        final int[] wire = {1, 2, 3, 4, 5};
        final DapltestWire.TestType[] types = {DapltestWire.TestType.TRANSACTION, DapltestWire.TestType.PERFORMANCE,
            DapltestWire.TestType.LIMIT, DapltestWire.TestType.QUIT, DapltestWire.TestType.FFT};
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment m = a.allocate(DapltestWire.CONTROL_SIZE);
            for (int i = 0; i < types.length; i++)
            {
                DapltestWire.clientInfo(m, types[i], 7);
                assertEquals(wire[i], m.get(ValueLayout.JAVA_INT_UNALIGNED, 8), types[i].name());
                assertEquals(new DapltestWire.ClientInfo(types[i], 7),
                    DapltestWire.clientInfo(m, DapltestWire.CONTROL_SIZE));
            }
            for (final int bad : new int[] {0, 6, -1})
            {
                m.set(ValueLayout.JAVA_INT_UNALIGNED, 8, bad);
                assertTrue(assertThrows(CheckFailed.class, () -> DapltestWire.clientInfo(m, DapltestWire.CONTROL_SIZE))
                    .getMessage().contains("test type " + Integer.toUnsignedString(bad) + ", dapltest's are 1 to 5"));
            }
        }
    }

    @Test
    void clientInfoAndTransactionCmdAreLaidOutAsDapltestSendsThem()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment m = a.allocate(DapltestWire.CONTROL_SIZE);
            DapltestWire.clientInfo(m, DapltestWire.TestType.TRANSACTION, 1);
            assertEquals("06000000" + "01000000" + "01000000" + "01000000" + "00000000", hex(m, 0, 20));
            // the captured -T T: 10 iterations, 1 thread, 1 EP, ops (0,2,1,256) (1,2,1,256) (0,1,1,4096) (1,0,1,4096)
            final List<TestOp> ops = TestOp.parse(List.of("client", "SR", "256", "server", "SR", "256", "client",
                "RW", "4096", "server", "RR", "4096"));
            final TransactionParams p = new TransactionParams(1, 1, 10, false, Completion.WAIT, false, ops, false);
            DapltestWire.transactionCmd(m, "10.0.2.100", p, 62000, "ofa-v2-iwarp");
            assertEquals("06000000" + "01000000" + "31302e302e322e313030" + "00", hex(m, 0, 19));
            assertEquals("0a000000" + "01000000" + "01000000", hex(m, 264, 12));
            assertEquals("30f2000000000000", hex(m, 296, 8));
            assertEquals("ofa-v2-iwarp", new String(m.asSlice(304, 12).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals("04000000", hex(m, 564, 4));
            assertEquals("00000000" + "02000000" + "01000000" + "00010000" + "00000000", hex(m, 568, 20));
            assertEquals("01000000" + "00000000" + "01000000" + "00100000" + "00000000", hex(m, 568 + 60, 20));
        }
    }

    @Test
    void aPerformanceCmdCarriesRdmaReadOrWriteAndNothingElse()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment m = a.allocate(DapltestWire.CONTROL_SIZE);
            // transfer_type as in Transaction_Cmd: RR 0, RW 1; dapltest's performance test has no SR
            for (final TestOp.Type t : new TestOp.Type[] {TestOp.Type.RR, TestOp.Type.RW})
            {
                final DapltestWire.PerformanceCmd cmd = new DapltestWire.PerformanceCmd(t, 64, 2, 10, 4, true);
                DapltestWire.performanceCmd(m, "server", "ofa-v2-iwarp", cmd);
                assertEquals(t == TestOp.Type.RR ? 0 : 1, m.get(ValueLayout.JAVA_INT_UNALIGNED, 540), t.name());
                assertEquals(cmd, DapltestWire.performance(m, DapltestWire.CONTROL_SIZE));
            }
            assertThrows(IllegalArgumentException.class,
                () -> new DapltestWire.PerformanceCmd(TestOp.Type.SR, 64, 2, 10, 4, true));
            m.set(ValueLayout.JAVA_INT_UNALIGNED, 540, 2);
            assertTrue(assertThrows(CheckFailed.class, () -> DapltestWire.performance(m, DapltestWire.CONTROL_SIZE))
                .getMessage().contains("transfer_type 2,"));
        }
    }

    @Test
    void serverInfoNamesTheFirstTestPortAndAnythingElseIsNamed()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment m = a.allocate(DapltestWire.CONTROL_SIZE);
            m.copyFrom(MemorySegment.ofArray(HexFormat.of().parseHex("060000000100000031f20000")));
            assertEquals(62001, DapltestWire.firstPort(m, 8192));
            assertTrue(assertThrows(CheckFailed.class, () -> DapltestWire.firstPort(m, 100)).getMessage()
                .contains("Server_Info is 100 bytes, dapltest's is 8192"));
            m.set(ValueLayout.JAVA_BYTE, 0, (byte) 5);
            assertTrue(assertThrows(CheckFailed.class, () -> DapltestWire.firstPort(m, 8192)).getMessage()
                .contains("dapltest version 5, this client 6"));
        }
    }

    @Test
    void theRemoteMemoryTableIsPackedLittleEndian()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment m = a.allocate(DapltestWire.RMI_SIZE);
            final List<long[]> entries = new ArrayList<>();
            entries.add(null);
            entries.add(null);
            entries.add(new long[] {0xfd77b800L, 0x7f1550007d00L});
            DapltestWire.putRmi(m, entries);
            // op 2 as the captured server sent it
            assertEquals("00b877fd" + "007d0050157f0000", hex(m, 24, 12));
            assertEquals("000000000000000000000000", hex(m, 0, 12));
            assertArrayEquals(new long[] {0xfd77b800L, 0x7f1550007d00L}, DapltestWire.rmi(m, 2));
            assertEquals(1200, DapltestWire.RMI_SIZE);
        }
    }

    @Test
    void validationAppendsDapltestsThreeBarriers()
    {
        final List<TestOp> ops = DapltestClient.withBarriers(TestOp.parse(List.of("client", "SR", "256")), true);
        assertEquals(4, ops.size());
        assertEquals(new TestOp(false, TestOp.Type.SR, 4096, 1, false), ops.get(1));
        assertEquals(new TestOp(true, TestOp.Type.SR, 4096, 1, false), ops.get(2));
        assertEquals(new TestOp(false, TestOp.Type.SR, 4096, 1, false), ops.get(3));
    }
}

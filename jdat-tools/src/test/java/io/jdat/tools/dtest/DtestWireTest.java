package io.jdat.tools.dtest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.tools.kit.CheckFailed;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** dtest's wire formats against the bytes captured from the real dtest (shared/interop/dapl). */
class DtestWireTest
{
    @Test
    void theOutOfBandMessageIsDtestsText() throws Exception
    {
        final byte[] m = OobMessage.of((Inet4Address) InetAddress.getByName("10.0.2.15"), "ofa-v2-iwarp").encode();
        assertEquals(128, m.length);
        final String text = "0000:00000000:00000000:0f02000a:ofa-v2-iwarp";
        assertEquals(text, new String(m, 0, text.length(), StandardCharsets.US_ASCII));
        for (int i = text.length(); i < 128; i++)
        {
            assertEquals(0, m[i]);
        }
        final OobMessage back = OobMessage.parse(m, 128);
        assertEquals(InetAddress.getByName("10.0.2.15"), back.address());
        assertEquals("ofa-v2-iwarp", back.provider());
        // 10.0.2.100, as the captures show it
        assertTrue(new String(OobMessage.of((Inet4Address) InetAddress.getByName("10.0.2.100"), "x").encode(),
            StandardCharsets.US_ASCII).startsWith("0000:00000000:00000000:6402000a:x"));
    }

    @Test
    void aShortOrMalformedMessageIsNamed()
    {
        final byte[] m = OobMessage.of(null, "p").encode();
        assertTrue(assertThrows(CheckFailed.class, () -> OobMessage.parse(m, 127)).getMessage()
            .contains("is 127 bytes, dtest's is 128"));
        assertEquals(null, OobMessage.parse(m, 128).address());
        final byte[] g = new byte[128];
        g[0] = (byte) 0xff;
        assertTrue(assertThrows(CheckFailed.class, () -> OobMessage.parse(g, 128)).getMessage().contains("\\xff"));
    }

    @Test
    void theTripletIsBigEndianAsCaptured()
    {
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment s = a.allocate(16);
            DtestWire.putTriplet(s, 0x561e17795000L, 0x200, 0x01c95a00);
            assertEquals("0000561e17795000" + "00000200" + "01c95a00",
                HexFormat.of().formatHex(s.toArray(ValueLayout.JAVA_BYTE)));
            final DtestWire.Triplet t = DtestWire.triplet(s, 16, "test");
            assertEquals(0x561e17795000L, t.address());
            assertEquals(0x200, t.length());
            assertEquals(0x01c95a00, t.rmrContext());
            assertTrue(assertThrows(CheckFailed.class, () -> DtestWire.triplet(s, 15, "Recv")).getMessage()
                .contains("Recv: the peer sent 15 bytes, dtest's RMR triplet is 16"));
        }
    }

    @Test
    void privateDataIsOneToFortyEightAnsweredPlusOne()
    {
        final byte[] pd = DtestWire.requestData();
        assertEquals(48, pd.length);
        assertEquals(1, pd[0]);
        assertEquals(48, pd[47]);
        final byte[] reply = DtestWire.replyTo(pd);
        assertEquals(2, reply[0]);
        assertEquals(49, reply[47]);
        DtestWire.checkReply(reply);
        assertTrue(assertThrows(CheckFailed.class, () -> DtestWire.replyTo(new byte[4])).getMessage()
            .contains("carries 4 bytes of private data, dtest's carries 48"));
        assertTrue(assertThrows(CheckFailed.class, () -> DtestWire.checkReply(pd)).getMessage()
            .contains("accept private data byte 0 is 1, dtest's is 2"));
        final byte[] copy = pd.clone();
        assertArrayEquals(pd, copy);
    }
}

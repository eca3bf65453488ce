package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: the MPA Request and Reply a peer sends to open a connection (RFC 5044, RFC 6581),
 * as {@link Mpa#decode} reads them, then what jdat makes of an acceptable one.
 *
 * <p>Input: byte 0 bit 0 says which frame the decoder expects (1 Request, as a responder; 0 Reply,
 * as an initiator); the rest is what arrived on the socket. For every input:
 * <ul>
 *   <li>decode throws nothing, and only a complete frame moves the buffer's position, by exactly
 *       its length;</li>
 *   <li>it works on partial input: a prefix is NEED_MORE or the verdict of the whole (an error
 *       found on the first bytes stays that error, a frame found stays that frame); bytes behind a
 *       frame are EXTRA_DATA;</li>
 *   <li>a frame encodes back to exactly the bytes it came from;</li>
 *   <li>the answer to an acceptable Request (jdat's Reply or reject) decodes, and the initiator's
 *       own check accepts the Reply and sees the reject as a rejection; a Reply is checked against
 *       Requests of both revisions without throwing.</li>
 * </ul>
 */
class MpaFuzzTest
{
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

    static Stream<Arguments> mpa()
    {
        return Stream.of(
            arguments(seed(true, Mpa.FLAG_ENHANCED | Mpa.FLAG_CRC, Mpa.REVISION_2, Mpa.IrdOrd.of(4, 4), HELLO)),
            arguments(seed(true, 0, Mpa.REVISION_1, null, HELLO)),
            arguments(seed(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, new Mpa.IrdOrd(1, 1, true, false, true, false),
                new byte[0])),
            arguments(seed(false, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(2, 1), HELLO)),
            arguments(seed(false, Mpa.FLAG_REJECT, Mpa.REVISION_1, null, new byte[0])));
    }

    private static byte[] seed(final boolean request, final int flags, final int revision, final Mpa.IrdOrd word,
        final byte[] privateData)
    {
        final ByteBuffer b = ByteBuffer.allocate(1 + Mpa.MAX_FRAME_LENGTH);
        b.put((byte) (request ? 1 : 0));
        Mpa.encode(b, request, flags, revision, word, privateData);
        return Arrays.copyOf(b.array(), b.position());
    }

    @MethodSource("mpa")
    @FuzzTest(maxDuration = "3s")
    void mpaFramesFromAPeer(final byte[] input)
    {
        if (input == null || input.length == 0)
        {
            return;
        }
        final boolean expectRequest = (input[0] & 1) != 0;
        final byte[] bytes = Arrays.copyOfRange(input, 1, input.length);

        final Mpa.Result whole = decodeAt(bytes, bytes.length, expectRequest);
        // a stream is read as it arrives: every prefix must agree with the whole
        final int checked = Math.min(bytes.length, Mpa.MAX_FRAME_LENGTH + 1);
        for (int k = 0; k < checked; k++)
        {
            consistent(decodeAt(bytes, k, expectRequest), whole, k, bytes.length);
        }
        if (whole.status() == Mpa.Status.FRAME || whole.status() == Mpa.Status.EXTRA_DATA)
        {
            final Mpa.Frame frame = whole.frame();
            assertEquals(whole.status() == Mpa.Status.EXTRA_DATA, bytes.length > frame.frameLength());
            assertArrayEquals(Arrays.copyOf(bytes, frame.frameLength()), encode(frame), "re-encoded " + frame);
            if (whole.status() == Mpa.Status.FRAME)
            {
                if (expectRequest)
                {
                    answer(frame);
                }
                else
                {
                    check(frame);
                }
            }
        }
    }

    /** Decodes the first {@code n} bytes, placed behind some other bytes, and checks the position rule. */
    private static Mpa.Result decodeAt(final byte[] bytes, final int n, final boolean expectRequest)
    {
        final int before = 3;
        final ByteBuffer b = ByteBuffer.allocate(before + n);
        b.position(before);
        b.put(bytes, 0, n);
        b.position(before);
        final Mpa.Result r = Mpa.decode(b, expectRequest);
        assertNotNull(r);
        assertNotNull(r.status());
        assertEquals(before + n, b.limit());
        if (r.status() == Mpa.Status.FRAME)
        {
            assertEquals(before + r.frame().frameLength(), b.position(), "a frame moves the position past itself");
            assertEquals(n, r.frame().frameLength());
        }
        else
        {
            assertEquals(before, b.position(), r.status() + " moved the position");
        }
        switch (r.status())
        {
            case NEED_MORE, BAD_KEY -> assertNull(r.frame());
            case BAD_REVISION, PRIVATE_DATA_TOO_LONG, MARKERS_REQUESTED, ENHANCED_WITHOUT_IRD_ORD ->
            {
                assertNotNull(r.frame());
                assertEquals(0, r.frame().privateData().length);
            }
            case FRAME, EXTRA_DATA ->
            {
                final Mpa.Frame f = r.frame();
                assertEquals(expectRequest, f.request());
                assertTrue(f.pdLength() <= Mpa.MAX_PRIVATE_DATA_LENGTH, f.toString());
                assertEquals(f.pdLength() - (f.irdOrd() != null ? Mpa.IRD_ORD_LENGTH : 0), f.privateData().length);
                assertTrue(f.revision() == Mpa.REVISION_1 || f.revision() == Mpa.REVISION_2, f.toString());
            }
        }
        return r;
    }

    /** What a prefix of {@code k} bytes may say, given what all {@code n} bytes say. */
    private static void consistent(final Mpa.Result prefix, final Mpa.Result whole, final int k, final int n)
    {
        final String where = "prefix of " + k + " of " + n + " bytes: " + prefix.status() + ", whole: "
            + whole.status();
        switch (whole.status())
        {
            case NEED_MORE -> assertEquals(Mpa.Status.NEED_MORE, prefix.status(), where);
            case FRAME, EXTRA_DATA ->
            {
                final int length = whole.frame().frameLength();
                if (k < length)
                {
                    assertEquals(Mpa.Status.NEED_MORE, prefix.status(), where);
                }
                else
                {
                    assertEquals(k == length ? Mpa.Status.FRAME : Mpa.Status.EXTRA_DATA, prefix.status(), where);
                    assertEquals(whole.frame(), prefix.frame(), where);
                }
            }
            default ->
            {
                // an error: before it shows, the prefix needs more; once it shows, it is the same error
                if (prefix.status() != Mpa.Status.NEED_MORE)
                {
                    assertEquals(whole.status(), prefix.status(), where);
                    assertEquals(whole.frame(), prefix.frame(), where);
                }
            }
        }
        if (prefix.status() != Mpa.Status.NEED_MORE && prefix.status().isError()
            && prefix.status() != Mpa.Status.EXTRA_DATA)
        {
            assertEquals(prefix.status(), whole.status(), "an error, once seen, is final: " + where);
        }
    }

    private static byte[] encode(final Mpa.Frame f)
    {
        final ByteBuffer b = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        final int n = Mpa.encode(b, f.request(), f.flags(), f.revision(), f.irdOrd(), f.privateData());
        assertEquals(n, b.position());
        return Arrays.copyOf(b.array(), n);
    }

    /** The responder's answers to an acceptable Request: its Reply is accepted, its reject is a rejection. */
    private static void answer(final Mpa.Frame request)
    {
        if (request.markers())
        {
            return;
        }
        for (final boolean localCrc : new boolean[] {false, true})
        {
            final Mpa.IrdOrd word = request.enhanced() ? Mpa.replyIrdOrd(request.irdOrd(), 3, 2) : null;
            final ByteBuffer b = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
            Mpa.encodeReply(b, request, localCrc, word, HELLO);
            b.flip();
            final Mpa.Result reply = Mpa.decode(b, false);
            assertEquals(Mpa.Status.FRAME, reply.status(), "jdat's own Reply to " + request);
            assertEquals(Mpa.ReplyCheck.ACCEPTED, Mpa.checkReply(request, reply.frame()),
                "jdat's own Reply " + reply.frame() + " to " + request);
            assertEquals(localCrc || request.crc(), Mpa.crcInUse(request, reply.frame()));
        }
        final ByteBuffer b = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeReject(b, request, request.privateData());
        b.flip();
        final Mpa.Result reject = Mpa.decode(b, false);
        assertEquals(Mpa.Status.FRAME, reject.status(), "jdat's reject of " + request);
        assertEquals(Mpa.ReplyCheck.REJECTED, Mpa.checkReply(request, reject.frame()));
    }

    /** An initiator checks any Reply against the Request it sent, either revision, without throwing. */
    private static void check(final Mpa.Frame reply)
    {
        final Mpa.Frame rev1 = new Mpa.Frame(true, 0, Mpa.REVISION_1, 0, null, new byte[0]);
        final Mpa.Frame rev2 = new Mpa.Frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IRD_ORD_LENGTH,
            new Mpa.IrdOrd(4, 4, true, false, true, false), new byte[0]);
        for (final Mpa.Frame request : new Mpa.Frame[] {rev1, rev2})
        {
            final Mpa.ReplyCheck verdict = Mpa.checkReply(request, reply);
            assertNotNull(verdict);
            if (verdict == Mpa.ReplyCheck.ACCEPTED)
            {
                assertTrue(!reply.reject() && !reply.markers() && reply.revision() <= request.revision(),
                    reply.toString());
                assertTrue(!request.enhanced() || reply.irdOrd() != null, reply.toString());
            }
        }
    }
}

package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

/**
 * The RDMAP messages of one direction of one connection, put together from the FPDUs Wireshark
 * decoded. Folding checks the DDP rules on the way (RFC 5041, RFC 5040): the segments of an
 * untagged message share its queue number and MSN and their MOs run on from 0 without a gap;
 * those of a tagged message share its STag and their TOs run on; only the last has the L bit;
 * Sends are on queue 0, Read Requests on queue 1, Terminates on queue 2.
 */
public final class WireMessages
{
    private WireMessages()
    {
    }

    /** One message: what it says (opcode and its fields, see {@link #describe}) and its FPDU count. */
    public record Message(String text, int segments)
    {
        @Override
        public String toString()
        {
            return text + (segments > 1 ? " [" + segments + " FPDUs]" : "");
        }
    }

    /** The messages of a capture's one connection, each way. */
    public record Connection(List<Message> fromClient, List<Message> fromServer)
    {
    }

    /**
     * The messages of the one connection that {@code fpdus} hold (checked: they are all of one TCP
     * stream), the server being the side on {@code serverPort}.
     */
    public static Connection ofOneConnection(final List<TsharkCapture.Fpdu> fpdus, final int serverPort)
    {
        assertEquals(1, fpdus.stream().mapToInt(TsharkCapture.Fpdu::stream).distinct().count(), "one connection");
        final int stream = fpdus.get(0).stream();
        final int clientPort = fpdus.stream().mapToInt(TsharkCapture.Fpdu::srcPort).filter(p -> p != serverPort)
            .findFirst().orElseThrow();
        return new Connection(of(fpdus, stream, clientPort), of(fpdus, stream, serverPort));
    }

    /** The messages sent from {@code srcPort} on TCP stream {@code stream}, in order. */
    public static List<Message> of(final List<TsharkCapture.Fpdu> fpdus, final int stream, final int srcPort)
    {
        final List<Message> messages = new ArrayList<>();
        TsharkCapture.Fpdu first = null;
        long payload = 0;
        int segments = 0;
        for (final TsharkCapture.Fpdu f : fpdus)
        {
            if (f.stream() != stream || f.srcPort() != srcPort)
            {
                continue;
            }
            if (first == null)
            {
                first = f;
                assertTrue(f.tagged() || f.mo() == 0, "an untagged message starts at MO 0: " + f);
            }
            else
            {
                assertEquals(first.opcode(), f.opcode(), "segments of one message: " + first + " / " + f);
                assertEquals(first.tagged(), f.tagged(), f.toString());
                if (f.tagged())
                {
                    assertEquals(first.stag(), f.stag(), "STag of a continuing segment: " + f);
                    assertEquals(first.to() + payload, f.to(), "TO of a continuing segment: " + f);
                }
                else
                {
                    assertEquals(first.qn(), f.qn(), "queue of a continuing segment: " + f);
                    assertEquals(first.msn(), f.msn(), "MSN of a continuing segment: " + f);
                    assertEquals(payload, f.mo(), "MO of a continuing segment: " + f);
                }
            }
            payload += f.payload();
            segments++;
            if (f.last())
            {
                messages.add(new Message(describe(first, payload), segments));
                first = null;
                payload = 0;
                segments = 0;
            }
        }
        assertTrue(first == null, "a message without its last segment: " + first);
        return messages;
    }

    /** The text of a message whose first FPDU is {@code f}, carrying {@code length} bytes in all. */
    static String describe(final TsharkCapture.Fpdu f, final long length)
    {
        return switch (f.opcode())
        {
            case 0 -> write("WRITE", f.stag(), f.to(), length);
            case 1 -> readRequest(checkQueue(f, 1).msn(), f.sinkStag(), f.sinkTo(), f.readSize(), f.srcStag(),
                f.srcTo());
            case 2 -> write("READ_RESPONSE", f.stag(), f.to(), length);
            case 3 -> send(false, checkQueue(f, 0).msn(), length);
            case 5 -> send(true, checkQueue(f, 0).msn(), length);
            case 7 -> terminate(checkQueue(f, 2).msn(), f.termLayer(), f.termType(), f.termCode());
            default -> "OPCODE " + f.opcode();
        };
    }

    private static TsharkCapture.Fpdu checkQueue(final TsharkCapture.Fpdu f, final int queue)
    {
        assertEquals(queue, f.qn(), "the queue number of " + f);
        return f;
    }

    public static String write(final String what, final long stag, final long to, final long length)
    {
        return what + " stag=" + hex(stag) + " to=" + hex(to) + " length=" + length;
    }

    public static String send(final boolean solicited, final long msn, final long length)
    {
        return (solicited ? "SEND_SE" : "SEND") + " msn=" + msn + " length=" + length;
    }

    public static String readRequest(final long msn, final long sinkStag, final long sinkTo, final long size,
        final long srcStag, final long srcTo)
    {
        return "READ_REQUEST msn=" + msn + " sink=" + hex(sinkStag) + "@" + hex(sinkTo) + " size=" + size + " src="
            + hex(srcStag) + "@" + hex(srcTo);
    }

    public static String terminate(final long msn, final int layer, final int type, final int code)
    {
        return "TERMINATE msn=" + msn + " layer=" + layer + " type=" + type + " code=" + code;
    }

    public static String hex(final long value)
    {
        return "0x" + Long.toHexString(value);
    }

    /** The texts alone, for comparing with what a test expects. */
    public static List<String> texts(final List<Message> messages)
    {
        return messages.stream().map(Message::text).toList();
    }
}

package io.jdat.tools;

import static io.jdat.testkit.WireMessages.readRequest;
import static io.jdat.testkit.WireMessages.send;
import static io.jdat.testkit.WireMessages.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testkit.TsharkCapture;
import io.jdat.testkit.WireMessages;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A {@code jdat rping} session over tcp as Wireshark sees it: the server runs in a second JVM
 * (its IA from a {@code dat.conf}, with {@code crc=true} in the CRC run: the responder alone
 * asks, and CRC must be used), the client in this one; tshark captures the server's port. Both
 * exit 0 with every ping verified; tshark's decode has no malformed frame, no error, a good CRC
 * on every FPDU when CRC is on, and exactly rping's messages: from the client the
 * ready-to-receive Write, then per ping a Send (MSN 2i+1) advertising its start buffer, the
 * RDMA Read Response carrying that buffer and a Send (MSN 2i+2) advertising its RDMA buffer;
 * from the server per ping the RDMA Read Request (MSN i+1) of the start buffer, a Send, the RDMA
 * Write of the echo into the RDMA buffer and a Send.
 */
@Tag("tshark")
class RpingCaptureTest
{
    /** rping's {addr, rkey, size} advertisement: 16 bytes. */
    private static final int INFO = 16;

    @ParameterizedTest(name = "crc={0} -S {1} -C {2}")
    @CsvSource({"false, 64, 10", "true, 65536, 10"})
    void anRpingSessionDecodesAsMpaDdpRdmap(final boolean crc, final int size, final int count) throws Exception
    {
        final Path directory = Files.createTempDirectory("jdat-rping-capture");
        final Path conf = directory.resolve("dat.conf");
        final String instance = crc ? "crc=true" : "";
        Files.writeString(conf, "tcp-server u1.2 threadsafe default tcp jdat.0.1 \"" + instance + "\" \"\"\n"
            + "tcp-server u1.2 nonthreadsafe default tcp jdat.0.1 \"" + instance + "\" \"\"\n");
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final Process server = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "--enable-native-access=ALL-UNNAMED", "-Djdat.conf=" + conf, "-cp", System.getProperty("java.class.path"),
            Jdat.class.getName(), "rping", "-P", "tcp-server", "-s", "-a", "127.0.0.1", "-p", "0", "-C",
            Integer.toString(count), "-S", Integer.toString(size), "--timeout", "20")
            .redirectErrorStream(true).start();
        final StringBuilder serverOut = new StringBuilder();
        try (BufferedReader lines = new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)))
        {
            final int port = listeningPort(lines, serverOut);
            try (TsharkCapture capture = TsharkCapture.start("lo", "tcp port " + port))
            {
                boolean passed = false;
                try
                {
                    final Run client = Run.jdat("rping", "-P", "tcp", "-c", "-a", "127.0.0.1", "-p",
                        Integer.toString(port), "-C", Integer.toString(count), "-S", Integer.toString(size),
                        "--timeout", "20");
                    assertEquals(0, client.code(), client.all());
                    assertTrue(client.out().contains("rping client: " + count + " pings of " + size
                        + " bytes, every byte verified"), client.all());
                    assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server did not exit: " + serverOut);
                    for (String line = lines.readLine(); line != null; line = lines.readLine())
                    {
                        serverOut.append(line).append('\n');
                    }
                    assertEquals(0, server.exitValue(), serverOut.toString());
                    capture.stop();
                    check(capture, crc, port, size, count);
                    passed = true;
                }
                finally
                {
                    if (!passed)
                    {
                        capture.keep();
                    }
                }
            }
        }
        finally
        {
            server.destroyForcibly();
            Files.deleteIfExists(conf);
            Files.deleteIfExists(directory);
        }
    }

    private static void check(final TsharkCapture capture, final boolean crc, final int port, final int size,
        final int count) throws Exception
    {
        // the client (Request) does not ask; the server's Reply says whether CRC is on
        for (final TsharkCapture.MpaFrame frame : capture.handshake())
        {
            assertEquals(frame.srcPort() == port && crc, frame.crc(), "the CRC flag: " + frame);
        }

        final List<TsharkCapture.Fpdu> fpdus = capture.fpdus();
        final WireMessages.Connection connection = WireMessages.ofOneConnection(fpdus, port);
        final List<WireMessages.Message> fromClient = connection.fromClient();
        final List<WireMessages.Message> fromServer = connection.fromServer();

        // the buffers' STags and addresses are the processes' own: taken from the first ping,
        // then every ping must use the same
        final TsharkCapture.Fpdu firstRead = fpdus.stream().filter(f -> f.opcode() == 1).findFirst().orElseThrow();
        final TsharkCapture.Fpdu firstWrite = fpdus.stream()
            .filter(f -> f.opcode() == 0 && f.srcPort() == port).findFirst().orElseThrow();
        assertNotEquals(firstRead.srcStag(), firstWrite.stag(), "the client's two buffers");
        final List<String> client = new ArrayList<>();
        final List<String> server = new ArrayList<>();
        client.add(write("WRITE", 0, 0, 0));
        for (int i = 0; i < count; i++)
        {
            client.add(send(false, 2L * i + 1, INFO));
            client.add(write("READ_RESPONSE", firstRead.sinkStag(), firstRead.sinkTo(), size));
            client.add(send(false, 2L * i + 2, INFO));
            server.add(readRequest(i + 1, firstRead.sinkStag(), firstRead.sinkTo(), size, firstRead.srcStag(),
                firstRead.srcTo()));
            server.add(send(false, 2L * i + 1, INFO));
            server.add(write("WRITE", firstWrite.stag(), firstWrite.to(), size));
            server.add(send(false, 2L * i + 2, INFO));
        }
        assertEquals(client, WireMessages.texts(fromClient), "client to server: " + fromClient);
        assertEquals(server, WireMessages.texts(fromServer), "server to client: " + fromServer);

        final int[] verdicts = capture.crcVerdicts();
        assertEquals(0, verdicts[1], "FPDUs with a bad CRC");
        assertEquals(crc ? fpdus.size() : 0, verdicts[0], "FPDUs whose CRC Wireshark checked and found good");
    }

    /** Reads the server's output until it says where it listens. */
    private static int listeningPort(final BufferedReader lines, final StringBuilder seen) throws IOException
    {
        final Pattern listening = Pattern.compile("listening on \\S+ port (\\d+)");
        for (String line = lines.readLine(); line != null; line = lines.readLine())
        {
            seen.append(line).append('\n');
            final Matcher m = listening.matcher(line);
            if (m.find())
            {
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("the rping server ended before listening:\n" + seen);
    }
}

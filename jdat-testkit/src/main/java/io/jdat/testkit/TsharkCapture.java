package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A live tshark capture to a pcapng file, and Wireshark's reading of it: the iWARP dissectors
 * ({@code iwarp_mpa}, {@code iwarp_ddp_rdmap}) give every FPDU with its DDP and RDMAP header
 * fields, the frames they call malformed and their CRC verdicts. A missing tshark, or one that
 * cannot capture here, skips the test or fails it in CI ({@link RequiredTools}).
 */
public final class TsharkCapture implements AutoCloseable
{
    private static final long TIMEOUT_SECONDS = 30;
    /** The fields of one frame, in this order, as {@code tshark -T fields} prints them. */
    private static final String[] FIELDS = {"frame.number", "tcp.stream", "tcp.srcport", "iwarp_mpa.ulpdulength",
        "iwarp_ddp.tagged_flag", "iwarp_ddp.last_flag", "iwarp_rdma.opcode", "iwarp_ddp.stag",
        "iwarp_ddp.tagged_offset", "iwarp_ddp.qn", "iwarp_ddp.msn", "iwarp_ddp.mo", "iwarp_rdma.sinkstag",
        "iwarp_rdma.sinkto", "iwarp_rdma.rdmardsz", "iwarp_rdma.srcstag", "iwarp_rdma.srcto",
        "iwarp_rdma.term_layer", "iwarp_rdma.term_etype_rdma", "iwarp_rdma.term_etype_ddp",
        "iwarp_rdma.term_etype_llp", "iwarp_rdma.term_errcode_rdma", "iwarp_rdma.term_errcode_ddp_tagged",
        "iwarp_rdma.term_errcode_ddp_untagged", "iwarp_rdma.term_errcode_llp"};

    private final Path directory;
    private final Path pcap;
    private final Process process;
    private final StringBuilder output;
    private final Thread reader;
    private boolean keep;

    private TsharkCapture(final Path directory, final Path pcap, final Process process, final Thread reader,
        final StringBuilder output)
    {
        this.directory = directory;
        this.pcap = pcap;
        this.process = process;
        this.reader = reader;
        this.output = output;
    }

    /**
     * Starts capturing on {@code iface} with the capture filter {@code filter}; returns once tshark
     * demonstrably captures: "Capturing on" comes a little before the first packet is taken, so
     * UDP datagrams to a port of this JVM (captured too) are sent until tshark shows one.
     */
    public static TsharkCapture start(final String iface, final String filter) throws IOException, InterruptedException
    {
        RequiredTools.require(RequiredTools.onPath("tshark"),
            "tshark is not installed: the Wireshark check of the tcp provider's wire format cannot run "
                + "(apt-get install tshark)");
        final Path directory = Files.createTempDirectory("jdat-tshark");
        final Path pcap = directory.resolve("capture.pcapng");
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            final int probePort = probe.getLocalPort();
            final Process p = new ProcessBuilder("tshark", "-l", "-P", "-i", iface, "-f",
                "(" + filter + ") or (udp dst port " + probePort + ")", "-w", pcap.toString())
                .redirectErrorStream(true).start();
            final StringBuilder out = new StringBuilder();
            final String marker = "→ " + probePort + " ";
            final CountDownLatch capturing = new CountDownLatch(1);
            final Thread reader = Thread.ofPlatform().name("tshark-capture-output").daemon().start(() ->
                drain(p.getInputStream(), out, marker, capturing));
            final TsharkCapture capture = new TsharkCapture(directory, pcap, p, reader, out);
            final byte[] hello = "jdat capture probe".getBytes(StandardCharsets.US_ASCII);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            boolean started = false;
            while (!started && p.isAlive() && System.nanoTime() - deadline < 0)
            {
                probe.send(new DatagramPacket(hello, hello.length, InetAddress.getLoopbackAddress(), probePort));
                started = capturing.await(50, TimeUnit.MILLISECONDS);
            }
            if (!started)
            {
                capture.close();
                RequiredTools.require(false, "tshark cannot capture on " + iface + " here (root or capture rights "
                    + "needed): " + capture.output());
            }
            return capture;
        }
    }

    /** What tshark printed while capturing. */
    public String output()
    {
        synchronized (output)
        {
            return output.toString();
        }
    }

    public Path pcap()
    {
        return pcap;
    }

    /** Ends the capture once what is in flight was written; the file is then complete. */
    public void stop() throws InterruptedException
    {
        if (!process.isAlive())
        {
            return;
        }
        // the last frames reach the capture a moment after they were sent
        Thread.sleep(400);
        process.destroy();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
        }
        reader.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
    }

    /** The capture file stays after {@link #close()} (for a failed test: it says where). */
    public void keep()
    {
        keep = true;
    }

    @Override
    public void close()
    {
        try
        {
            stop();
        }
        catch (final InterruptedException e)
        {
            // the files go all the same; the caller still sees that it was interrupted
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        if (keep)
        {
            System.err.println("tshark capture kept in " + pcap);
            return;
        }
        try (Stream<Path> files = Files.walk(directory))
        {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException e)
        {
            // a temporary directory left behind
        }
    }

    /** Runs {@code tshark -r} on the capture with the options; its standard output. */
    public String read(final String... options) throws IOException, InterruptedException
    {
        // payloads are arbitrary bytes: keep the RPC-over-RDMA and SMB Direct heuristics from
        // parsing them as their own protocols (and reporting those as malformed)
        final List<String> command = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-o",
            "tcp.try_heuristic_first:TRUE", "--disable-protocol", "rpcordma", "--disable-protocol", "smb_direct"));
        command.addAll(List.of(options));
        final Path out = directory.resolve("tshark-" + System.nanoTime() + ".out");
        final Process p = new ProcessBuilder(command).redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(TIMEOUT_SECONDS * 2, TimeUnit.SECONDS), "tshark -r did not finish");
        final String text = Files.readString(out, StandardCharsets.UTF_8);
        Files.delete(out);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    /** The frames Wireshark calls malformed, as "frame: protocols". */
    public List<String> malformed() throws IOException, InterruptedException
    {
        return read("-Y", "_ws.malformed || _ws.expert.severity == error", "-T", "fields", "-e", "frame.number",
            "-e", "frame.protocols").lines().filter(l -> !l.isBlank()).toList();
    }

    /** An MPA Request or Reply as Wireshark read it: its TCP source port and whether its CRC flag is set. */
    public record MpaFrame(int srcPort, boolean crc)
    {
    }

    /**
     * Checks that Wireshark calls no frame malformed or in error and that the capture holds one
     * MPA Request and one Reply; returns those two.
     */
    public List<MpaFrame> handshake() throws IOException, InterruptedException
    {
        assertEquals(List.of(), malformed(), "frames Wireshark calls malformed or in error");
        final String text = read("-Y", "iwarp_mpa.req || iwarp_mpa.rep", "-T", "fields", "-e", "tcp.srcport", "-e",
            "iwarp_mpa.crc_flag");
        final List<MpaFrame> frames = new ArrayList<>();
        for (final String line : text.lines().filter(l -> !l.isBlank()).toList())
        {
            final String[] f = line.split("\t");
            frames.add(new MpaFrame(Integer.parseInt(f[0]), f[1].equals("1") || f[1].equalsIgnoreCase("true")));
        }
        assertEquals(2, frames.size(), "one MPA Request and one Reply: " + text);
        return frames;
    }

    /** The CRC verdicts of every FPDU: how many Wireshark found good and how many bad. */
    public int[] crcVerdicts() throws IOException, InterruptedException
    {
        final String verbose = read("-V", "-Y", "iwarp_mpa");
        return new int[] {count(verbose, "Good CRC32"), count(verbose, "Bad CRC32")};
    }

    /** Every FPDU of the capture in stream order, as the dissectors read it. */
    public List<Fpdu> fpdus() throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("-Y", "iwarp_ddp_rdmap", "-T", "fields", "-E",
            "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"));
        for (final String f : FIELDS)
        {
            command.add("-e");
            command.add(f);
        }
        final List<Fpdu> all = new ArrayList<>();
        for (final String line : read(command.toArray(new String[0])).lines().toList())
        {
            if (!line.isBlank())
            {
                Fpdu.parseFrame(line, all);
            }
        }
        return all;
    }

    private static int count(final String text, final String needle)
    {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1))
        {
            n++;
        }
        return n;
    }

    private static void drain(final InputStream in, final StringBuilder output, final String marker,
        final CountDownLatch capturing)
    {
        try
        {
            final byte[] chunk = new byte[512];
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk))
            {
                synchronized (output)
                {
                    output.append(new String(chunk, 0, n, StandardCharsets.UTF_8));
                    if (output.indexOf(marker) >= 0)
                    {
                        capturing.countDown();
                    }
                }
            }
        }
        catch (final IOException ignored)
        {
            // the process ended
        }
    }

    /**
     * One FPDU as Wireshark decoded it: its DDP fields (queue number, MSN and MO when untagged;
     * STag and TO when tagged), RDMAP opcode, the payload length (ULPDU less the DDP/RDMAP header)
     * and, by opcode, the Read Request's or the Terminate's fields (-1 where not present).
     */
    public record Fpdu(int frame, int stream, int srcPort, int opcode, boolean tagged, boolean last, long qn,
        long msn, long mo, long stag, long to, int payload, long sinkStag, long sinkTo, long readSize,
        long srcStag, long srcTo, int termLayer, int termType, int termCode)
    {
        /** DDP tagged header with the RDMAP control byte, and the untagged one (RFC 5041, RFC 5040). */
        static final int TAGGED_HEADER = 14;
        static final int UNTAGGED_HEADER = 18;

        /** Splits one frame's field line (several FPDUs: comma-separated values) into FPDUs. */
        static void parseFrame(final String line, final List<Fpdu> out)
        {
            final String[] col = line.split("\t", -1);
            final Values v = new Values(col);
            final int frame = Integer.parseInt(col[0]);
            final int stream = Integer.parseInt(col[1]);
            final int srcPort = Integer.parseInt(col[2]);
            final int n = v.count(3);
            for (int i = 0; i < n; i++)
            {
                final int ulpdu = (int) v.next(3);
                final boolean tagged = v.flag(4);
                final boolean last = v.flag(5);
                final int opcode = (int) v.next(6);
                long qn = -1;
                long msn = -1;
                long mo = -1;
                long stag = -1;
                long to = -1;
                if (tagged)
                {
                    stag = v.next(7);
                    to = v.next(8);
                }
                else
                {
                    qn = v.next(9);
                    msn = v.next(10);
                    mo = v.next(11);
                }
                long sinkStag = -1;
                long sinkTo = -1;
                long size = -1;
                long srcStag = -1;
                long srcTo = -1;
                if (opcode == 1)
                {
                    sinkStag = v.next(12);
                    sinkTo = v.next(13);
                    size = v.next(14);
                    srcStag = v.next(15);
                    srcTo = v.next(16);
                }
                int layer = -1;
                int type = -1;
                int code = -1;
                if (opcode == 7)
                {
                    layer = (int) v.next(17);
                    switch (layer)
                    {
                        case 0 ->
                        {
                            type = (int) v.next(18);
                            code = (int) v.next(21);
                        }
                        case 1 ->
                        {
                            type = (int) v.next(19);
                            code = (int) v.next(type == 1 ? 22 : 23);
                        }
                        default ->
                        {
                            type = (int) v.next(20);
                            code = (int) v.next(24);
                        }
                    }
                }
                out.add(new Fpdu(frame, stream, srcPort, opcode, tagged, last, qn, msn, mo, stag, to,
                    ulpdu - (tagged ? TAGGED_HEADER : UNTAGGED_HEADER), sinkStag, sinkTo, size, srcStag, srcTo,
                    layer, type, code));
            }
        }
    }

    /** The comma-separated values of each column of one frame, taken one by one. */
    private static final class Values
    {
        private final String[][] values;
        private final int[] taken;

        Values(final String[] columns)
        {
            values = new String[columns.length][];
            taken = new int[columns.length];
            for (int i = 0; i < columns.length; i++)
            {
                values[i] = columns[i].isEmpty() ? new String[0] : columns[i].split(",");
            }
        }

        int count(final int column)
        {
            return values[column].length;
        }

        long next(final int column)
        {
            if (taken[column] >= values[column].length)
            {
                throw new AssertionError("tshark gave fewer values of " + FIELDS[column] + " than FPDUs need: "
                    + String.join(",", values[column]));
            }
            final String s = values[column][taken[column]++].trim();
            return s.startsWith("0x") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseLong(s);
        }

        boolean flag(final int column)
        {
            if (taken[column] >= values[column].length)
            {
                throw new AssertionError("tshark gave fewer values of " + FIELDS[column] + " than FPDUs");
            }
            final String s = values[column][taken[column]++].trim();
            return s.equals("1") || s.equalsIgnoreCase("true");
        }
    }
}

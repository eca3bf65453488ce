package io.jdat.tools.dtest;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * One side of OFED dtest's flow, as {@code test/dtest/dtest.c} runs it, so that either side may
 * be the real dtest. Both sides post three receives for RMR triplets (and, here, the 100
 * ping-pong receives) before connecting, then:
 * <ol>
 * <li>each Sends its triplet ({@link DtestWire}): the buffer {@code rbuf} the peer may write and
 * read, {@code -b} bytes;</li>
 * <li>RDMA Write: {@code -B} writes of {@code -b} bytes of {@code sbuf} to the peer's triplet, one
 * in {@code -S} signalled; the client then Sends its triplet and awaits the server's, the server
 * awaits the client's and answers (with {@code -u} the server writes nothing);</li>
 * <li>RDMA Read: 4 sequential reads of {@code -b} bytes of the peer's {@code rbuf} into
 * {@code sbuf}, then a triplet Send each way;</li>
 * <li>ping-pong: after a pause of 1 s (dtest posts its receives then), 100 Sends of {@code -b}
 * bytes, the client's starting with 0x55, the server's answers with 0xaa;</li>
 * </ol>
 * then the client disconnects. {@code -w} stops after the writes; {@code -W} replaces all three
 * phases by an RDMA Write ping-pong: each side writes {@code -b} bytes whose last byte counts
 * 1..B and waits, polling the last byte of its own buffer, for the peer's write of the same
 * count ({@code -D}: the other bytes carry patterns that the server echoes and the client
 * checks).
 *
 * <p>What is checked here beyond dtest's own checks: the bytes the peer's writes placed, what the
 * reads brought back, the first byte of every ping and pong, and that the peer's buffer is as
 * long as this side's {@code -b}.
 */
final class DtestPeer
{
    /** The test-only faults of {@code --inject-fault}. */
    enum Fault
    {
        /** None. */
        none,
        /** One byte of the peer's RDMA Write data changed before it is checked. */
        write,
        /** One byte of the RDMA Read data changed before it is checked. */
        read,
        /** The first byte of the first ping-pong message changed before it is checked. */
        pingpong,
        /** The client's private data starts with 7 instead of 1. */
        privateData,
        /** The server accepts with the client's private data unchanged (1..48, not 2..49). */
        replyData,
        /** The first RMR triplet message is 20 bytes. */
        tripletSize,
        /** The server writes only 100 bytes of its out-of-band message, then closes. */
        shortOob
    }

    /**
     * One side's options, dtest's flags.
     *
     * @param size          {@code -b}: bytes per RDMA Write and per ping-pong message
     * @param burst         {@code -B}: RDMA Writes in the burst (and write ping-pong rounds)
     * @param signalRate    {@code -S}: one write in this many is signalled
     * @param uni           {@code -u}: the server writes nothing in the write phase
     * @param writeOnly     {@code -w}: only the write phase
     * @param writePingPong {@code -W}: the RDMA Write ping-pong instead of the three phases
     * @param dataCheck     {@code -D}: patterns in the write ping-pong, checked
     * @param sizes         the message sizes of the write ping-pong ({@code -a}, {@code -i}), in order
     * @param mode          {@code -p}, {@code -c}: how completions are awaited
     * @param timeoutMicros longest wait for any one event
     */
    record Params(int size, int burst, int signalRate, boolean uni, boolean writeOnly, boolean writePingPong,
        boolean dataCheck, List<Integer> sizes, Completion mode, long timeoutMicros)
    {
    }

    /**
     * What this side measured, in nanoseconds (0: the phase did not run).
     *
     * @param write    the RDMA Write phase, first post to the peer's message
     * @param read     the 4 RDMA Reads, post to completion, summed
     * @param pingPong ping-pong round trips (client), else empty
     * @param pingPongTotal the whole ping-pong, first message to last
     * @param writePingPongs per size of the write ping-pong: {size, nanos for the burst}
     */
    record Timings(long write, long read, Histogram pingPong, long pingPongTotal, List<long[]> writePingPongs)
    {
    }

    private static final int MSG_SLOTS = 3;
    private static final int MSG_SLOT = 64;
    private static final long SEND_COOKIE = 0xaaaa;
    private static final long READ_COOKIE = 0x9999;
    private static final long PP_COOKIE = 1000;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /** dtest's write ping-pong patterns, by write count modulo 5; the last one is random. */
    private static final byte[] PATTERNS = {0, (byte) 0xff, 0x55, (byte) 0xaa, 0};

    final Link link;
    private final boolean client;
    private final Params p;
    private final Fault fault;
    private final Consumer<String> log;
    private final Lmr msgRecv;
    private final Lmr msgSend;
    private final Lmr rbuf;
    private final Lmr sbuf;
    private final Lmr ppRecv;
    private final Lmr ppSend;
    private final LmrTriplet[] one = {new LmrTriplet()};
    private int nextMsg;
    private DtestWire.Triplet peer;

    /** Creates the endpoint and buffers and posts every receive, before any connection exists. */
    DtestPeer(final Node node, final boolean client, final Params p, final Fault fault, final Consumer<String> log)
    {
        this.client = client;
        this.p = p;
        this.fault = fault;
        this.log = log;
        final boolean pingPong = !p.writeOnly() && !p.writePingPong();
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = MSG_SLOTS + (pingPong ? DtestWire.PING_PONGS : 0);
        attr.maxRequestDtos = p.burst() + DtestWire.READS + MSG_SLOTS + 2;
        attr.maxRdmaReadIn = DtestWire.READS;
        attr.maxRdmaReadOut = DtestWire.READS;
        attr.maxRecvIov = 1;
        attr.maxRequestIov = 1;
        this.link = node.link((client ? "client" : "server") + " ep", attr, p.mode(), p.timeoutMicros());
        final int all = MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_READ_FLAG
            | MemPriv.REMOTE_WRITE_FLAG;
        this.msgRecv = node.register(MSG_SLOTS * MSG_SLOT, MemPriv.LOCAL_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG);
        this.msgSend = node.register(DtestWire.TRIPLET_SIZE + 8, MemPriv.LOCAL_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG);
        // rbuf: the peer writes and reads it; sbuf: the source of writes and the sink of reads
        this.rbuf = node.register(p.size(), all);
        this.sbuf = node.register(p.size(), all);
        this.ppRecv = pingPong ? node.register((long) p.size() * DtestWire.PING_PONGS, MemPriv.LOCAL_WRITE_FLAG
            | MemPriv.LOCAL_READ_FLAG) : null;
        this.ppSend = pingPong ? node.register(p.size(), MemPriv.LOCAL_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG) : null;
        // dtest's init_data, then the "blah" it puts into rbuf before connecting
        sbuf.memory().fill((byte) 'b');
        rbuf.memory().copyFrom(MemorySegment.ofArray(initialRbuf()));
        for (int i = 0; i < MSG_SLOTS; i++)
        {
            one[0].set(msgRecv, (long) i * MSG_SLOT, MSG_SLOT);
            link.ep.postRecv(1, one, i, CompletionFlags.DEFAULT_FLAG);
        }
        if (pingPong)
        {
            for (int i = 0; i < DtestWire.PING_PONGS; i++)
            {
                one[0].set(ppRecv, (long) i * p.size(), p.size());
                link.ep.postRecv(1, one, PP_COOKIE + i, CompletionFlags.DEFAULT_FLAG);
            }
        }
        DtestWire.putTriplet(msgSend.memory(), rbuf.registeredAddress(), p.size(), rbuf.rmrContext());
    }

    /** The test-only fault this side injects. */
    Fault fault()
    {
        return fault;
    }

    private byte[] initialRbuf()
    {
        return DtestWire.content("blah, blah, blah\n", 'a', p.size());
    }

    private static String side(final boolean ofClient)
    {
        return ofClient ? "client" : "server";
    }

    /** Runs the flow on a connected endpoint; throws {@link CheckFailed} at the first failed check. */
    Timings run()
    {
        exchange();
        if (p.writePingPong())
        {
            final List<long[]> runs = new ArrayList<>();
            for (final int len : p.sizes())
            {
                runs.add(new long[] {len, writePingPong(len)});
            }
            return new Timings(0, 0, new Histogram(3), 0, runs);
        }
        final long write = writePhase();
        if (p.writeOnly())
        {
            return new Timings(write, 0, new Histogram(3), 0, List.of());
        }
        final long read = readPhase();
        final Histogram rtt = new Histogram(3);
        final long total = pingPong(rtt);
        return new Timings(write, read, rtt, total, List.of());
    }

    private void sendTriplet(final String what)
    {
        final int length = fault == Fault.tripletSize && nextMsg == 0 ? DtestWire.TRIPLET_SIZE + 4
            : DtestWire.TRIPLET_SIZE;
        one[0].set(msgSend, 0, length);
        link.ep.postSend(1, one, SEND_COOKIE, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest(what, SEND_COOKIE, length);
    }

    private DtestWire.Triplet receiveTriplet(final String what)
    {
        final int index = nextMsg++;
        final DatEvent ev = link.expectRecv(what, index, -1);
        return DtestWire.triplet(msgRecv.memory().asSlice((long) index * MSG_SLOT, MSG_SLOT),
            ev.dto.transferredLength, what + " on " + link.name);
    }

    /** The triplets of both sides, each Sent at once after the connection is up. */
    private void exchange()
    {
        sendTriplet("Send of the RMR triplet");
        peer = receiveTriplet("Recv of the peer's RMR triplet");
        log.accept("received the peer's RMR triplet: " + peer);
        if (Integer.toUnsignedLong(peer.length()) != p.size())
        {
            throw new CheckFailed("the peer's buffer is " + Integer.toUnsignedLong(peer.length())
                + " bytes (its -b), this side's -b is " + p.size() + ": run both ends with the same -b");
        }
    }

    private RmrTriplet peerBuffer(final long length)
    {
        return new RmrTriplet(peer.rmrContext(), peer.address(), length);
    }

    /** dtest's {@code do_rdma_write_with_msg}. */
    private long writePhase()
    {
        sbuf.memory().copyFrom(MemorySegment.ofArray(DtestWire.content(side(client) + " RDMA write data...", 'b',
            p.size())));
        final long start = System.nanoTime();
        final boolean writes = !(p.uni() && !client);
        if (writes)
        {
            final RmrTriplet at = peerBuffer(p.size());
            for (int i = 0; i < p.burst(); i++)
            {
                final boolean signalled = (i + 1) % p.signalRate() == 0;
                one[0].set(sbuf, 0, p.size());
                link.ep.postRdmaWrite(1, one, i, at,
                    signalled ? CompletionFlags.DEFAULT_FLAG : CompletionFlags.SUPPRESS_FLAG);
                if (signalled)
                {
                    link.expectRequest("RDMA Write " + i, i, p.size());
                }
            }
        }
        if (client)
        {
            sendTriplet("Send after the RDMA Write burst");
            receiveTriplet("Recv of the server's message after its RDMA Writes");
        }
        else
        {
            receiveTriplet("Recv of the client's message after its RDMA Writes");
            sendTriplet("Send after the RDMA Write burst");
        }
        final long nanos = System.nanoTime() - start;
        final boolean peerWrote = !(p.uni() && client);
        if (fault == Fault.write)
        {
            flip(rbuf.memory(), p.size() / 2);
        }
        final byte[] expected = peerWrote ? DtestWire.content(side(!client) + " RDMA write data...", 'b', p.size())
            : initialRbuf();
        final long at = MemorySegment.ofArray(expected).mismatch(rbuf.memory());
        if (at >= 0)
        {
            throw new CheckFailed("RDMA Write data " + (peerWrote ? "of the peer" : "(none expected)") + " in the "
                + "buffer of " + link.name + ": byte " + at + " of " + p.size() + " is " + hex(rbuf.memory(), at)
                + ", expected " + String.format("0x%02x", expected[(int) at]));
        }
        log.accept("RDMA Write phase done, the peer's data checked");
        return nanos;
    }

    /** dtest's {@code do_rdma_read_with_msg}. */
    private long readPhase()
    {
        // what this side wrote into the peer's buffer (or the peer's initial "blah"), unless the
        // peer has already put its read string there: dtest reads whichever is there
        final boolean wrote = !(p.uni() && !client);
        final byte[] base = wrote ? DtestWire.content(side(client) + " RDMA write data...", 'b', p.size())
            : initialRbuf();
        final String peerText = side(!client) + " RDMA read data...";
        sbuf.memory().copyFrom(MemorySegment.ofArray(DtestWire.content("blah, blah, blah\n", 'b', p.size())));
        final byte[] mine = DtestWire.content(side(client) + " RDMA read data...", 'b', p.size());
        final int textEnd = Math.min(p.size(), (side(client) + " RDMA read data...").length() + 1);
        MemorySegment.copy(MemorySegment.ofArray(mine), 0, rbuf.memory(), 0, textEnd);
        final RmrTriplet from = peerBuffer(p.size());
        long nanos = 0;
        for (int i = 0; i < DtestWire.READS; i++)
        {
            one[0].set(sbuf, 0, p.size());
            final long start = System.nanoTime();
            link.ep.postRdmaRead(1, one, READ_COOKIE, from, CompletionFlags.DEFAULT_FLAG);
            link.expectRequest("RDMA Read " + i + " of the peer's buffer", READ_COOKIE, p.size());
            nanos += System.nanoTime() - start;
        }
        if (fault == Fault.read)
        {
            flip(sbuf.memory(), p.size() - 1);
        }
        final byte[] alt = DtestWire.content(peerText, 'b', Math.min(p.size(), peerText.length() + 1));
        for (int i = 0; i < p.size(); i++)
        {
            final byte b = sbuf.memory().get(ValueLayout.JAVA_BYTE, i);
            if (b != base[i] && !(i < alt.length && b == alt[i]))
            {
                throw new CheckFailed("RDMA Read sink of " + link.name + ": byte " + i + " of " + p.size() + " is "
                    + hex(sbuf.memory(), i) + ", expected " + String.format("0x%02x", base[i]) + (i < alt.length
                        ? String.format(" or 0x%02x", alt[i]) : "") + " (what this side wrote or the peer's '"
                    + peerText + "')");
            }
        }
        if (p.mode() == Completion.CNO)
        {
            pause(1000); // dtest -c gives the peer a second to finish its reads here
        }
        sendTriplet("Send after the RDMA Reads");
        receiveTriplet("Recv of the peer's message after its RDMA Reads");
        log.accept("RDMA Read phase done, " + DtestWire.READS + " reads checked");
        return nanos;
    }

    /** dtest's {@code do_ping_pong_msg}: 100 round trips of {@code -b} bytes, 0x55 out, 0xaa back. */
    private long pingPong(final Histogram rtt)
    {
        if (client)
        {
            // dtest posts its ping-pong receives after the read phase, then sleeps 1 s
            pause(1000);
        }
        long start = System.nanoTime();
        for (int i = 0; i < DtestWire.PING_PONGS; i++)
        {
            final long t0 = System.nanoTime();
            if (client)
            {
                send(i, DtestWire.PING);
            }
            link.expectRecv("ping-pong Recv " + i, PP_COOKIE + i, p.size());
            if (i == 0 && !client)
            {
                start = System.nanoTime(); // as dtest: the server's clock starts at the first ping
            }
            final long offset = (long) i * p.size();
            if (fault == Fault.pingpong && i == 0)
            {
                flip(ppRecv.memory(), offset);
            }
            final byte want = client ? DtestWire.PONG : DtestWire.PING;
            final byte got = ppRecv.memory().get(ValueLayout.JAVA_BYTE, offset);
            if (got != want)
            {
                throw new CheckFailed("ping-pong message " + i + " received by " + link.name + ": first byte "
                    + String.format("0x%02x, expected 0x%02x", got, want));
            }
            if (!client)
            {
                send(i, DtestWire.PONG);
            }
            else
            {
                rtt.recordValue(System.nanoTime() - t0);
            }
        }
        log.accept("ping-pong done: " + DtestWire.PING_PONGS + " messages each way");
        return System.nanoTime() - start;
    }

    private void send(final int i, final byte first)
    {
        ppSend.memory().set(ValueLayout.JAVA_BYTE, 0, first);
        one[0].set(ppSend, 0, p.size());
        link.ep.postSend(1, one, PP_COOKIE + i, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("ping-pong Send " + i, PP_COOKIE + i, p.size());
    }

    /**
     * dtest's {@code do_rdma_write_ping_pong} for one message size: the client writes first; each
     * side waits until the last byte of its own buffer holds the next count, then writes.
     */
    private long writePingPong(final int len)
    {
        final MemorySegment r = rbuf.memory();
        final MemorySegment s = sbuf.memory();
        final RmrTriplet at = peerBuffer(p.size());
        int rx = 0;
        int tx = 0;
        final long start = System.nanoTime();
        for (int i = 0; i <= p.burst(); i++)
        {
            if (rx < p.burst() && !(client && tx == 0))
            {
                rx++;
                awaitByte(r, len - 1, (byte) rx, "RDMA Write ping-pong, " + len + " bytes: the peer's write " + rx);
                if (p.dataCheck() && client)
                {
                    if (fault == Fault.write && rx == 1)
                    {
                        flip(r, 0);
                    }
                    final long bad = s.asSlice(0, len).mismatch(r.asSlice(0, len));
                    if (bad >= 0)
                    {
                        throw new CheckFailed("RDMA Write ping-pong, " + len + " bytes: the server's echo of write "
                            + rx + " differs at byte " + bad + ": " + hex(r, bad) + ", sent " + hex(s, bad));
                    }
                }
            }
            if (tx == p.burst())
            {
                break;
            }
            if (p.dataCheck())
            {
                pattern(len, tx % PATTERNS.length);
            }
            s.set(ValueLayout.JAVA_BYTE, len - 1, (byte) ++tx);
            one[0].set(sbuf, 0, len);
            link.ep.postRdmaWrite(1, one, tx, at, CompletionFlags.DEFAULT_FLAG);
            link.expectRequest("RDMA Write ping-pong, " + len + " bytes: write " + tx, tx, len);
        }
        log.accept("RDMA Write ping-pong of " + len + " bytes done");
        return System.nanoTime() - start;
    }

    /** dtest's {@code set_pat}: the client fills, the server checks byte 0 and echoes. */
    private void pattern(final int len, final int n)
    {
        if (len <= 1)
        {
            return;
        }
        final MemorySegment s = sbuf.memory();
        if (client)
        {
            if (n == PATTERNS.length - 1)
            {
                final byte[] random = new byte[len - 1];
                ThreadLocalRandom.current().nextBytes(random);
                MemorySegment.copy(MemorySegment.ofArray(random), 0, s, 0, len - 1);
            }
            else
            {
                s.asSlice(0, len - 1).fill(PATTERNS[n]);
            }
            return;
        }
        final MemorySegment r = rbuf.memory();
        if (n != PATTERNS.length - 1 && r.get(ValueLayout.JAVA_BYTE, 0) != PATTERNS[n])
        {
            throw new CheckFailed("RDMA Write ping-pong, " + len + " bytes: the client's write " + (n + 1) + " starts "
                + "with " + hex(r, 0) + ", its pattern is " + String.format("0x%02x", PATTERNS[n]));
        }
        MemorySegment.copy(r, 0, s, 0, len - 1);
    }

    private void awaitByte(final MemorySegment m, final long offset, final byte value, final String what)
    {
        final long deadline = System.nanoTime() + p.timeoutMicros() * 1000;
        int spins = 0;
        while ((byte) BYTE.getVolatile(m, offset) != value)
        {
            if ((++spins & 0x3ff) == 0)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new CheckFailed(what + " on " + link.name + ": last byte still " + hex(m, offset)
                        + " after " + p.timeoutMicros() / 1e6 + " s, expected " + String.format("0x%02x", value));
                }
                Thread.yield();
            }
            Thread.onSpinWait();
        }
    }

    private static void flip(final MemorySegment m, final long offset)
    {
        m.set(ValueLayout.JAVA_BYTE, offset, (byte) ~m.get(ValueLayout.JAVA_BYTE, offset));
    }

    private static String hex(final MemorySegment m, final long offset)
    {
        return String.format("0x%02x", m.get(ValueLayout.JAVA_BYTE, offset));
    }

    private static void pause(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new CheckFailed("interrupted");
        }
    }

    /** Frees the endpoint, its EVDs and the buffers; what cannot be freed is left to the IA close. */
    void free()
    {
        link.free();
        for (final Lmr l : new Lmr[] {msgRecv, msgSend, rbuf, sbuf, ppRecv, ppSend})
        {
            try
            {
                if (l != null)
                {
                    l.free();
                }
            }
            catch (final RuntimeException e)
            {
                // dat_ia_close frees it
            }
        }
    }
}

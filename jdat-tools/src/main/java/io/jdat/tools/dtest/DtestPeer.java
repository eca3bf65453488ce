package io.jdat.tools.dtest;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.dat.CheckFailed;
import io.jdat.tools.dat.Completion;
import io.jdat.tools.dat.Link;
import io.jdat.tools.dat.Message;
import io.jdat.tools.dat.Node;
import io.jdat.tools.dat.Pattern;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.HdrHistogram.Histogram;

/**
 * One side of dtest's flow (digest §8.2), the same on both sides except for who starts the
 * ping-pong: swap RMR information in a Send; an RDMA Write burst into the peer's buffer (every
 * write but the last suppressed) followed by a Send that tells the peer, which then checks
 * every byte; an RDMA Read of the peer's buffer, which gives back what this side wrote; a
 * Send/Recv ping-pong. Every completion is checked for status, endpoint, cookie and length.
 *
 * <p>Receives for every Send the peer will make are posted before the connection exists, one
 * slot each, in the order the Sends come.
 */
final class DtestPeer
{
    /** The test-only faults of {@code --inject-corruption}: damage one byte before a check. */
    enum Fault
    {
        none, write, read, pingpong
    }

    /**
     * What both sides must agree on; the client sends it as the connection's private data.
     *
     * @param size          bytes per RDMA Write and per ping-pong message (dtest {@code -b})
     * @param burst         RDMA Writes in the burst and ping-pong round trips (dtest {@code -B})
     * @param mode          how completions are awaited (dtest {@code -p}, {@code -c})
     * @param timeoutMicros longest wait for any one event
     */
    record Params(int size, int burst, Completion mode, long timeoutMicros)
    {
        private static final String MAGIC = "jdat-dtest 1";

        byte[] privateData()
        {
            return (MAGIC + " size=" + size + " burst=" + burst).getBytes(StandardCharsets.US_ASCII);
        }

        /** The client's parameters from its private data, with this side's completion mode. */
        static Params parse(final String privateData, final Completion mode, final long timeoutMicros)
        {
            if (!privateData.startsWith(MAGIC + " "))
            {
                throw new CheckFailed("connection request with unexpected private data '" + privateData + "'");
            }
            final Message m = Message.parse(privateData);
            return new Params(m.getInt("size"), m.getInt("burst"), mode, timeoutMicros);
        }
    }

    /**
     * What this side measured, in nanoseconds.
     *
     * @param params   what was run
     * @param write    RDMA Write burst and the Send after it, first post to the Send's completion
     * @param read     the RDMA Read of the peer's buffer, post to completion
     * @param pingPong round trips (the side that starts them), else empty
     */
    record Timings(Params params, long write, long read, Histogram pingPong)
    {
    }

    private static final int INFO_SLOTS = 3;
    private static final long SEND_COOKIE = 1000;
    private static final long WRITE_COOKIE = 2000;
    private static final long READ_COOKIE = 3000;

    final Link link;
    private final boolean client;
    private final Params p;
    private final Fault fault;
    private final long slot;
    private final Lmr recv;
    private final Lmr send;
    private final Lmr source;
    private final Lmr target;
    private final Lmr sink;
    private final LmrTriplet[] one = {new LmrTriplet()};
    private final DatEvent stray = new DatEvent();
    private RmrTriplet peer;

    /** Creates the endpoint and buffers and posts every receive, before any connection exists. */
    DtestPeer(final Node node, final boolean client, final Params p, final Fault fault)
    {
        this.client = client;
        this.p = p;
        this.fault = fault;
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = p.burst() + INFO_SLOTS + 1;
        attr.maxRequestDtos = p.burst() + 2;
        this.link = node.link((client ? "client" : "server") + " ep", attr, p.mode(), p.timeoutMicros());
        this.slot = Math.max(p.size(), 256);
        final long region = (long) p.size() * p.burst();
        this.recv = node.register((INFO_SLOTS + p.burst()) * slot, MemPriv.LOCAL_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG);
        this.send = node.register(slot, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        this.source = node.register(region, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        this.target = node.register(region, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG
            | MemPriv.REMOTE_WRITE_FLAG | MemPriv.REMOTE_READ_FLAG);
        // an RDMA Read sink is written by tagged Read Responses: iWARP wants remote write on it
        this.sink = node.register(region, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_WRITE_FLAG);
        for (int i = 0; i < INFO_SLOTS + p.burst(); i++)
        {
            one[0].set(recv, i * slot, slot);
            link.ep.postRecv(1, one, i, CompletionFlags.DEFAULT_FLAG);
        }
    }

    /** Runs the flow on a connected endpoint; throws {@link CheckFailed} at the first failed check. */
    Timings run()
    {
        exchange();
        final long write = writeBurst();
        final long read = readBack();
        final Histogram rtt = pingPong();
        return new Timings(p, write, read, rtt);
    }

    private static long seed(final boolean byClient, final int what, final int i)
    {
        return (byClient ? 1_000_000L : 2_000_000L) + what * 10_000L + i;
    }

    private void sendText(final String text, final long cookie, final String what)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(bytes, 0, send.memory(), ValueLayout.JAVA_BYTE, 0, bytes.length);
        one[0].set(send, 0, bytes.length);
        link.ep.postSend(1, one, cookie, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest(what, cookie, bytes.length);
    }

    private Message receiveText(final int index, final String what, final String verb)
    {
        final long length = link.expectRecv(what, index, -1).dto.transferredLength;
        final byte[] bytes = new byte[(int) length];
        MemorySegment.copy(recv.memory(), ValueLayout.JAVA_BYTE, index * slot, bytes, 0, bytes.length);
        return Message.parse(new String(bytes, StandardCharsets.UTF_8)).expect(verb);
    }

    /** Swaps the triplet of the buffer each side exposes, in a Send (the send LMR is local only). */
    private void exchange()
    {
        sendText(Message.of("RMR").with("context", target.rmrContext()).with("address", target.registeredAddress())
            .with("length", target.registeredSize()).build().toString(), SEND_COOKIE, "Send of the RMR triplet");
        final Message m = receiveText(0, "Recv of the peer's RMR triplet", "RMR");
        final long need = (long) p.size() * p.burst();
        if (m.getLong("length") < need)
        {
            throw new CheckFailed("the peer exposes " + m.getLong("length") + " bytes, the burst needs " + need);
        }
        peer = new RmrTriplet((int) m.getLong("context"), m.getLong("address"), need);
    }

    /**
     * dtest's {@code do_rdma_write_with_msg}: the burst of writes, all but the last with
     * {@code DAT_COMPLETION_SUPPRESS_FLAG}, then a Send; the Send arrives after every write was
     * placed (RDMA ordering), so the peer checks its buffer when the Send's receive completes.
     */
    private long writeBurst()
    {
        final int size = p.size();
        for (int i = 0; i < p.burst(); i++)
        {
            Pattern.fill(source.memory(), (long) i * size, size, seed(client, 1, i));
        }
        final RmrTriplet at = new RmrTriplet();
        final long start = System.nanoTime();
        for (int i = 0; i < p.burst(); i++)
        {
            one[0].set(source, (long) i * size, size);
            at.set(peer.rmrContext, peer.targetAddress + (long) i * size, size);
            final int flags = i < p.burst() - 1 ? CompletionFlags.SUPPRESS_FLAG : CompletionFlags.DEFAULT_FLAG;
            link.ep.postRdmaWrite(1, one, WRITE_COOKIE + i, at, flags);
        }
        final String done = Message.of("WRITTEN").with("writes", p.burst()).build().toString();
        final byte[] bytes = done.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(bytes, 0, send.memory(), ValueLayout.JAVA_BYTE, 0, bytes.length);
        one[0].set(send, 0, bytes.length);
        link.ep.postSend(1, one, SEND_COOKIE + 1, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("RDMA Write " + (p.burst() - 1) + " (the last of the burst)", WRITE_COOKIE + p.burst() - 1,
            size);
        link.expectRequest("Send after the RDMA Write burst", SEND_COOKIE + 1, bytes.length);
        final long nanos = System.nanoTime() - start;
        if (link.reqEvd.dequeue(stray) == DatStatus.SUCCESS)
        {
            throw new CheckFailed("RDMA Write burst on " + link.name + ": an event beside the last write's and the "
                + "Send's (suppressed completions must not appear): " + stray);
        }
        final Message m = receiveText(1, "Recv of the peer's write notification", "WRITTEN");
        if (m.getInt("writes") != p.burst())
        {
            throw new CheckFailed("the peer wrote " + m.getInt("writes") + " times, expected " + p.burst());
        }
        if (fault == Fault.write)
        {
            Pattern.corrupt(target.memory(), 0, size);
        }
        for (int i = 0; i < p.burst(); i++)
        {
            Pattern.verify(target.memory(), (long) i * size, size, seed(!client, 1, i),
                "RDMA Write " + i + " of the peer's burst, in the buffer of " + link.name);
        }
        return nanos;
    }

    /**
     * dtest's {@code do_rdma_read_with_msg}: one RDMA Read of the peer's whole buffer, which
     * holds what this side wrote into it; then a Send each way, so neither side goes on while
     * the other still reads.
     */
    private long readBack()
    {
        final long length = peer.segmentLength;
        sink.memory().asSlice(0, length).fill((byte) 0);
        one[0].set(sink, 0, length);
        final long start = System.nanoTime();
        link.ep.postRdmaRead(1, one, READ_COOKIE, peer, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("RDMA Read of the peer's buffer", READ_COOKIE, length);
        final long nanos = System.nanoTime() - start;
        if (fault == Fault.read)
        {
            Pattern.corrupt(sink.memory(), 0, p.size());
        }
        for (int i = 0; i < p.burst(); i++)
        {
            Pattern.verify(sink.memory(), (long) i * p.size(), p.size(), seed(client, 1, i),
                "RDMA Read sink of " + link.name + " (what its write " + i + " put into the peer)");
        }
        sendText(Message.of("READ").build().toString(), SEND_COOKIE + 2, "Send after the RDMA Read");
        receiveText(2, "Recv of the peer's read notification", "READ");
        return nanos;
    }

    /** dtest's {@code do_ping_pong_msg}: the client sends, the server answers, {@code burst} times. */
    private Histogram pingPong()
    {
        final Histogram rtt = new Histogram(3);
        final int size = p.size();
        for (int i = 0; i < p.burst(); i++)
        {
            final int index = INFO_SLOTS + i;
            if (client)
            {
                final long start = System.nanoTime();
                ping(i, size, seed(true, 2, i));
                pong(i, index, size, seed(false, 2, i));
                rtt.recordValue(System.nanoTime() - start);
            }
            else
            {
                pong(i, index, size, seed(true, 2, i));
                ping(i, size, seed(false, 2, i));
            }
        }
        return rtt;
    }

    private void ping(final int i, final int size, final long seed)
    {
        Pattern.fill(send.memory(), 0, size, seed);
        one[0].set(send, 0, size);
        link.ep.postSend(1, one, SEND_COOKIE + 10 + i, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("ping-pong Send " + i, SEND_COOKIE + 10 + i, size);
    }

    private void pong(final int i, final int index, final int size, final long seed)
    {
        link.expectRecv("ping-pong Recv " + i, index, size);
        if (fault == Fault.pingpong && i == 0)
        {
            Pattern.corrupt(recv.memory(), index * slot, size);
        }
        Pattern.verify(recv.memory(), index * slot, size, seed, "ping-pong message " + i + " received by " + link.name);
    }

    /** Frees the endpoint, its EVDs and the buffers; what cannot be freed is left to the IA close. */
    void free()
    {
        link.free();
        for (final Lmr l : new Lmr[] {recv, send, source, target, sink})
        {
            try
            {
                l.free();
            }
            catch (final RuntimeException e)
            {
                // dat_ia_close frees it
            }
        }
    }
}

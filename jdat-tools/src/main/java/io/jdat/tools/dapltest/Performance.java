package io.jdat.tools.dapltest;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatException;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.ControlChannel;
import io.jdat.tools.kit.HostPort;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Message;
import io.jdat.tools.kit.Node;
import io.jdat.tools.kit.Pattern;
import java.nio.charset.StandardCharsets;
import org.HdrHistogram.Histogram;

/**
 * dapltest's performance test: the client times RDMA Reads or Writes of one size against the
 * server's buffer, {@code pipeline} outstanding, blocking in {@code dat_evd_wait} or polling; the
 * data of the last operation is checked at the end (the server checks what was written).
 */
final class Performance
{
    private static final long INFO_COOKIE = -2;
    private static final long DONE_COOKIE = -3;
    private static final long SEED = 0x5EED;

    private Performance()
    {
    }

    /**
     * A performance test as the client asks for it.
     *
     * @param write    RW (true) or RR
     * @param segSize  bytes per segment
     * @param segs     segments per operation
     * @param iters    operations
     * @param pipeline operations outstanding
     * @param mode     WAIT (blocking) or POLL
     * @param corrupt  test only: damage one byte before the final check
     */
    record Params(boolean write, long segSize, int segs, int iters, int pipeline, Completion mode, boolean corrupt)
    {
        long length()
        {
            return segSize * segs;
        }

        Message toMessage()
        {
            return Message.of("PERFORMANCE").with("op", write ? "RW" : "RR").with("size", segSize).with("segs", segs)
                .with("iters", iters).with("pipeline", pipeline).with("mode", mode).flag("corrupt", corrupt).build();
        }

        static Params from(final Message m)
        {
            return new Params(m.get("op").equals("RW"), m.getLong("size"), m.getInt("segs"), m.getInt("iters"),
                m.getInt("pipeline"), Completion.valueOf(m.get("mode")), m.getFlag("corrupt"));
        }

        String describe()
        {
            return (write ? "RW " : "RR ") + segSize + "x" + segs + ", " + iters + " iterations, pipeline " + pipeline
                + ", " + (mode == Completion.POLL ? "polling" : "blocking");
        }
    }

    /** What the client measured. */
    record Result(long nanos, Histogram latency, long checks)
    {
    }

    private static EpAttr attr(final Params p)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRequestDtos = p.pipeline() + 2;
        attr.maxRecvDtos = 4;
        attr.maxRequestIov = Math.max(attr.maxRequestIov, p.segs());
        attr.maxRdmaReadIov = Math.max(attr.maxRdmaReadIov, p.segs());
        attr.maxRdmaWriteIov = Math.max(attr.maxRdmaWriteIov, p.segs());
        attr.maxRdmaReadOut = Math.max(attr.maxRdmaReadOut, Math.min(p.pipeline(), 16));
        attr.maxRdmaReadIn = attr.maxRdmaReadOut;
        return attr;
    }

    /** The client: connects one endpoint, runs the operations, checks the data; throws on a failed check. */
    static Result client(final Node node, final ControlChannel ctrl, final HostPort server, final Params p,
        final long timeoutMicros)
    {
        final Message ready = ctrl.call(p.toMessage()).expect("READY");
        final Link link = node.link("client perf ep", attr(p), p.mode(), timeoutMicros);
        final Lmr local = node.register(Math.max(1, p.length()),
            MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_WRITE_FLAG);
        final Lmr info = node.register(512, MemPriv.LOCAL_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG);
        link.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(info, 0, 512)}, INFO_COOKIE, CompletionFlags.DEFAULT_FLAG);
        link.connect(server.address(), ready.getLong("psp"), Protocol.testEp(0, 0));
        final long length = link.expectRecv("Recv of the server's RMR info", INFO_COOKIE, -1).dto.transferredLength;
        final Message m = Message.parse(new String(info.memory().asSlice(0, length)
            .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8)).expect("INFO");
        final RmrTriplet remote = new RmrTriplet((int) m.getLong("rmr"), m.getLong("addr"), p.length());
        final LmrTriplet[] iov = new LmrTriplet[p.segs()];
        for (int s = 0; s < p.segs(); s++)
        {
            iov[s] = LmrTriplet.of(local, s * p.segSize(), p.segSize());
        }
        if (p.write())
        {
            Pattern.fill(local.memory(), 0, p.length(), SEED);
        }
        final Histogram latency = new Histogram(3);
        final long[] posted = new long[p.pipeline()];
        final int flags = CompletionFlags.DEFAULT_FLAG;
        final String op = p.write() ? "RDMA Write" : "RDMA Read";
        int sent = 0;
        int done = 0;
        final long start = System.nanoTime();
        while (done < p.iters())
        {
            while (sent < p.iters() && sent - done < p.pipeline())
            {
                posted[sent % p.pipeline()] = System.nanoTime();
                if (p.write())
                {
                    link.ep.postRdmaWrite(p.segs(), iov, sent, remote, flags);
                }
                else
                {
                    link.ep.postRdmaRead(p.segs(), iov, sent, remote, flags);
                }
                sent++;
            }
            link.expectRequest(op + " " + done, done, p.length());
            latency.recordValue(System.nanoTime() - posted[done % p.pipeline()]);
            done++;
        }
        final long nanos = System.nanoTime() - start;
        long checks = p.iters();
        if (!p.write())
        {
            if (p.corrupt())
            {
                Pattern.corrupt(local.memory(), 0, p.length());
            }
            Pattern.verify(local.memory(), 0, p.length(), SEED, "RDMA Read sink on " + link.name);
            checks++;
        }
        // a Send on the same connection arrives after every Write was placed (on a network
        // transport a Write's completion means only that it left)
        link.ep.postSend(0, new LmrTriplet[0], DONE_COOKIE, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("Send after the last " + op, DONE_COOKIE, 0);
        final Message result = ctrl.call(Message.of("CHECK").build());
        link.disconnect();
        ctrl.send("END");
        link.free();
        local.free();
        info.free();
        if (result.verb().equals(Message.FAIL))
        {
            throw new CheckFailed("server: " + result.get(Message.WHY));
        }
        return new Result(nanos, latency, checks + result.expect("RESULT").getLong("checks"));
    }

    /** The server's part: exposes its buffer, tells the client where it is, checks what was written. */
    static void server(final Node node, final ControlChannel ctrl, final Params p, final long timeoutMicros)
    {
        final Link link = node.link("server perf ep", attr(p), Completion.WAIT, timeoutMicros);
        final Lmr target = node.register(Math.max(1, p.length()), MemPriv.ALL_FLAG);
        final Lmr info = node.register(512, MemPriv.LOCAL_WRITE_FLAG | MemPriv.LOCAL_READ_FLAG);
        final EventDispatcher crEvd = node.evd(4, null, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        String failure = null;
        boolean connected = false;
        try
        {
            if (!p.write())
            {
                Pattern.fill(target.memory(), 0, p.length(), SEED);
            }
            link.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(info, 256, 256)}, DONE_COOKIE,
                CompletionFlags.DEFAULT_FLAG);
            ctrl.send(Message.of("READY").with("psp", psp.connQual()).build());
            final ConnectionRequest cr = Protocol.nextRequest(crEvd, timeoutMicros, "performance PSP");
            link.accept(cr, null);
            connected = true;
            final byte[] text = Message.of("INFO").with("rmr", target.rmrContext())
                .with("addr", target.registeredAddress()).build().toString().getBytes(StandardCharsets.UTF_8);
            info.memory().asSlice(0, text.length).copyFrom(java.lang.foreign.MemorySegment.ofArray(text));
            link.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(info, 0, text.length)}, INFO_COOKIE,
                CompletionFlags.DEFAULT_FLAG);
            link.expectRequest("Send of the RMR info", INFO_COOKIE, text.length);
            ctrl.receive().expect("CHECK");
            link.expectRecv("Recv of the Send after the client's last operation", DONE_COOKIE, 0);
            if (p.write())
            {
                if (p.corrupt())
                {
                    Pattern.corrupt(target.memory(), 0, p.length());
                }
                Pattern.verify(target.memory(), 0, p.length(), SEED, "RDMA Write target on " + link.name);
            }
        }
        catch (final CheckFailed | DatException e)
        {
            failure = e.getMessage();
        }
        ctrl.send(failure == null ? Message.of("RESULT").with("checks", p.write() ? 1 : 0).build()
            : Message.fail(failure));
        ctrl.receive().expect("END");
        if (connected)
        {
            link.awaitDisconnected();
        }
        link.free();
        psp.free();
        crEvd.free();
        target.free();
        info.free();
    }
}

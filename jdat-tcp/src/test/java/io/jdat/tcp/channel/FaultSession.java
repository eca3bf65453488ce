package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.SECOND;

import io.jdat.CloseFlags;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.testkit.BytePattern;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Validated traffic that keeps its books, both halves, for runs across a faulty link. A round
 * is the transaction matrix of one connection: for every message shape (segment size 0, 1, 4096
 * or 65536 bytes, times 1 or 4 segments) the client posts a Send, an RDMA Write into the
 * server's region and an RDMA Read of that region back into scattered segments, 24 DTOs without
 * waiting; the server checks every Send's bytes and answers each round's last one with an ack
 * saying whether all were intact; the client checks every Read against what it wrote, then waits
 * for the ack before the next round. A light round has only the Sends of 0 and 1 byte segments,
 * so that little is ever in flight.
 *
 * <p>Every posted DTO, on both sides, has a cookie of its own and must complete exactly once,
 * successfully or, once the connection has ended, with {@code DAT_DTO_ERR_FLUSHED}; an unknown or
 * repeated cookie, another status, a wrong byte or a wait that outlasts its bound is a failure.
 * A connection that breaks must say so with {@code CONNECTION_EVENT_BROKEN} or
 * {@code DISCONNECTED}; the time it was noticed (the first flush or the event) is reported as
 * wall-clock milliseconds, so the test can hold it against the moment it cut the link.
 */
final class FaultSession
{
    static final int[] SEGMENT_SIZES = {0, 1, 4096, 65536};
    static final int[] SEGMENT_COUNTS = {1, 4};
    static final int SHAPES = SEGMENT_SIZES.length * SEGMENT_COUNTS.length;
    /** A light round: the Sends of the first shapes only (0 and 1 byte segments), no RDMA. */
    static final int LIGHT_SHAPES = 4;
    private static final byte[] FULL = "fault session: full rounds".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LIGHT = "fault session: light rounds".getBytes(StandardCharsets.US_ASCII);
    /** Room for one message of any shape, its segments 128 bytes apart. */
    static final int SLOT = 320 << 10;
    static final int SERVER_RECVS = 16;
    static final int CLIENT_RECVS = 2;
    static final int ACK = 8;
    private static final long ACK_COOKIE = 1L << 40;
    private static final long RECV_COOKIE = 1L << 41;

    private FaultSession()
    {
    }

    static int segmentSize(final int shape)
    {
        return SEGMENT_SIZES[shape / SEGMENT_COUNTS.length];
    }

    static int segmentCount(final int shape)
    {
        return SEGMENT_COUNTS[shape % SEGMENT_COUNTS.length];
    }

    static int length(final int shape)
    {
        return segmentSize(shape) * segmentCount(shape);
    }

    static int seed(final long round, final int shape, final boolean write)
    {
        return (int) (round * 2 * SHAPES + shape * 2 + (write ? 1 : 0));
    }

    /** The segments of a message of {@code shape} in {@code lmr} from {@code base}, 128 bytes apart. */
    static LmrTriplet[] segments(final Lmr lmr, final long base, final int shape)
    {
        final LmrTriplet[] iov = new LmrTriplet[segmentCount(shape)];
        for (int j = 0; j < iov.length; j++)
        {
            iov[j] = LmrTriplet.of(lmr, base + (long) j * (segmentSize(shape) + 128), segmentSize(shape));
        }
        return iov;
    }

    static void fill(final MemorySegment m, final long base, final int shape, final int seed)
    {
        final int size = segmentSize(shape);
        for (int i = 0; i < length(shape); i++)
        {
            m.set(ValueLayout.JAVA_BYTE, base + (long) (i / size) * (size + 128) + i % size, BytePattern.at(i, seed));
        }
    }

    /** The first index of the message that differs from the pattern, or -1. */
    static long mismatch(final MemorySegment m, final long base, final int shape, final int seed)
    {
        final int size = segmentSize(shape);
        for (int i = 0; i < length(shape); i++)
        {
            final long at = base + (long) (i / size) * (size + 128) + i % size;
            if (m.get(ValueLayout.JAVA_BYTE, at) != BytePattern.at(i, seed))
            {
                return i;
            }
        }
        return -1;
    }

    /** A broken rule: the half stops and reports it. */
    static final class Failure extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Failure(final String message)
        {
            super(message);
        }
    }

    /** The books of one side: cookies posted and not yet completed, and the counts. */
    static final class Books
    {
        final Set<Long> outstanding = new HashSet<>();
        long posted;
        long ok;
        long flushed;
        /** When the end was first seen (a flush or the connection event), wall clock ms; 0 while running. */
        long endAt;
        String endEvent = "none";

        void posted(final long cookie)
        {
            outstanding.add(cookie);
            posted++;
        }

        /** Books a completion; true if it succeeded. */
        boolean complete(final DatEvent ev, final String what)
        {
            if (!ev.is(EventNumber.DTO_COMPLETION_EVENT))
            {
                throw new Failure(what + ": not a completion: " + ev);
            }
            if (!outstanding.remove(ev.dto.userCookie))
            {
                throw new Failure(what + ": completion of a DTO not outstanding (twice, or never posted): " + ev);
            }
            if (ev.dto.status == DtoStatus.SUCCESS)
            {
                // completions come in posting order: nothing succeeds behind a flushed DTO
                if (flushed != 0)
                {
                    throw new Failure(what + ": a success after a flush: " + ev);
                }
                ok++;
                return true;
            }
            if (ev.dto.status != DtoStatus.ERR_FLUSHED)
            {
                throw new Failure(what + ": completed with " + ev.dto.status + ": " + ev);
            }
            flushed++;
            ended("flush");
            return false;
        }

        void ended(final String how)
        {
            if (endAt == 0)
            {
                endAt = System.currentTimeMillis();
                endEvent = how;
            }
        }

        /** posted/succeeded/flushed */
        String summary()
        {
            return posted + "/" + ok + "/" + flushed;
        }
    }

    /** Waits up to {@code micros} for the next event (polling with dequeue when {@code poll}); null on timeout. */
    static DatEvent next(final EventDispatcher evd, final long micros, final boolean poll)
    {
        final DatEvent ev = new DatEvent();
        if (!poll)
        {
            return evd.wait(micros, 1, ev, new DatCount()) == DatStatus.SUCCESS ? ev : null;
        }
        final long deadline = System.nanoTime() + micros * 1000;
        while (evd.dequeue(ev) != DatStatus.SUCCESS)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return null;
            }
            Thread.onSpinWait();
        }
        return ev;
    }

    static DatEvent expectNext(final EventDispatcher evd, final long micros, final boolean poll, final String what)
    {
        final DatEvent ev = next(evd, micros, poll);
        if (ev == null)
        {
            throw new Failure("hang: " + what + ": nothing within " + micros / 1000 + " ms");
        }
        return ev;
    }

    /** After the end: the connection event (which must be an end), and every outstanding DTO flushed. */
    static String finish(final TcpNode.Ep ep, final Books requests, final Books recvs, final long micros)
    {
        final DatEvent ev = expectNext(ep.conn(), micros, false, "the connection event after the end");
        if (!ev.is(EventNumber.CONNECTION_EVENT_BROKEN) && !ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED))
        {
            throw new Failure("the connection ended with " + ev);
        }
        final String event = ev.is(EventNumber.CONNECTION_EVENT_BROKEN) ? "BROKEN" : "DISCONNECTED";
        requests.ended(event);
        recvs.ended(event);
        while (!requests.outstanding.isEmpty())
        {
            requests.complete(expectNext(ep.req(), micros, false, "flush of " + requests.outstanding), "request");
        }
        while (!recvs.outstanding.isEmpty())
        {
            recvs.complete(expectNext(ep.recv(), micros, false, "flush of receives " + recvs.outstanding), "receive");
        }
        // nothing more: a completion now would be one DTO reported twice
        if (next(ep.req(), 200_000, false) != null || next(ep.recv(), 200_000, false) != null)
        {
            throw new Failure("a completion after every DTO was accounted for");
        }
        return event;
    }

    // ---------------------------------------------------------------- server

    /**
     * The server half for one connection request: accepts it on a new endpoint and serves rounds
     * until the connection ends. Returns its report line (without the session prefix).
     *
     * @param waitMicros the longest wait for anything (the client's next Send included)
     */
    static String serve(final TcpNode node, final DatEvent cr, final long waitMicros)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = SERVER_RECVS;
        attr.maxRequestDtos = 64;
        attr.maxRdmaReadIn = 8;
        attr.maxRdmaReadOut = 8;
        final TcpNode.Ep ep = node.ep(attr);
        final long writeArea = (long) SERVER_RECVS * SLOT;
        final Lmr lmr = node.lmr(writeArea + (long) SHAPES * SLOT + 4096);
        final long ackAt = writeArea + (long) SHAPES * SLOT;
        final CrParam request = new CrParam();
        cr.crArrival.crHandle.query(CrParam.FIELD_ALL, request);
        final boolean light = Arrays.equals(LIGHT, Arrays.copyOf(request.privateData, request.privateDataSize));
        final int shapes = light ? LIGHT_SHAPES : SHAPES;
        final Books recvs = new Books();
        final Books acks = new Books();
        long recvCookie = RECV_COOKIE;
        for (int i = 0; i < SERVER_RECVS; i++)
        {
            postRecv(ep, lmr, recvCookie, recvs);
            recvCookie++;
        }
        cr.crArrival.crHandle.accept(ep.ep(), ByteBuffer.allocate(12).putInt(lmr.rmrContext())
            .putLong(lmr.registeredAddress() + writeArea).array());
        final DatEvent up = expectNext(ep.conn(), 10 * SECOND, false, "established");
        if (!up.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
        {
            throw new Failure("not established: " + up);
        }
        long sends = 0;
        long bad = 0;
        long badInRound = 0;
        while (recvs.endAt == 0)
        {
            final DatEvent ev = expectNext(ep.recv(), waitMicros, false, "the client's next Send");
            if (!recvs.complete(ev, "receive"))
            {
                break;
            }
            final long round = sends / shapes;
            final int shape = (int) (sends % shapes);
            final long slot = (ev.dto.userCookie - RECV_COOKIE) % SERVER_RECVS * SLOT;
            if (ev.dto.transferredLength != length(shape)
                || BytePattern.mismatch(lmr.memory(), slot, length(shape), seed(round, shape, false)) >= 0)
            {
                badInRound++;
            }
            sends++;
            postRecv(ep, lmr, recvCookie, recvs);
            recvCookie++;
            if (shape == shapes - 1)
            {
                // the round's ack: its number and how many Sends were not intact
                lmr.memory().set(ValueLayout.JAVA_INT_UNALIGNED, ackAt, (int) round);
                lmr.memory().set(ValueLayout.JAVA_INT_UNALIGNED, ackAt + 4, (int) badInRound);
                bad += badInRound;
                badInRound = 0;
                ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, ackAt, ACK)}, ACK_COOKIE + round, 0);
                acks.posted(ACK_COOKIE + round);
            }
            reap(ep.req(), acks);
        }
        final String event = finish(ep, acks, recvs, waitMicros);
        ep.ep().free();
        lmr.free();
        return "END event=" + event + " at=" + recvs.endAt + " rounds=" + sends / shapes + " sends=" + sends
            + " bad=" + bad + " receives=" + recvs.summary() + " acks=" + acks.summary();
    }

    private static void postRecv(final TcpNode.Ep ep, final Lmr lmr, final long cookie, final Books recvs)
    {
        final long slot = (cookie - RECV_COOKIE) % SERVER_RECVS * SLOT;
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, slot, SLOT)}, cookie, 0);
        recvs.posted(cookie);
    }

    /** Books the completions already there, without waiting. */
    private static void reap(final EventDispatcher evd, final Books books)
    {
        final DatEvent ev = new DatEvent();
        while (evd.dequeue(ev) == DatStatus.SUCCESS)
        {
            books.complete(ev, "ack");
        }
    }

    // ---------------------------------------------------------------- client

    /** What a client run saw. */
    record Outcome(String event, long endAt, long rounds, long millis, Books requests, Books recvs)
    {
        String line()
        {
            return "END event=" + event + " at=" + endAt + " rounds=" + rounds + " ms=" + millis + " requests="
                + requests.summary()
                + " receives=" + recvs.summary();
        }
    }

    /**
     * The client half: connects, runs rounds until {@code rounds} (0: no limit) are done or
     * {@code budgetMillis} have passed (at least one round), then disconnects; or ends where the
     * connection ends. {@code connected} runs once it is established.
     */
    static Outcome run(final TcpNode node, final IaAddress address, final long port, final long rounds,
        final long budgetMillis, final boolean light, final boolean poll, final long waitMicros,
        final Runnable connected)
    {
        final int shapes = light ? LIGHT_SHAPES : SHAPES;
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = CLIENT_RECVS;
        attr.maxRequestDtos = 3 * SHAPES;
        attr.maxRdmaReadIn = 8;
        attr.maxRdmaReadOut = 8;
        final TcpNode.Ep ep = node.ep(attr);
        final long writeArea = (long) SHAPES * SLOT;
        final long readArea = 2L * SHAPES * SLOT;
        final long ackArea = 3L * SHAPES * SLOT;
        final Lmr lmr = node.lmr(ackArea + (long) CLIENT_RECVS * ACK);
        final Books requests = new Books();
        final Books recvs = new Books();
        long recvCookie = RECV_COOKIE;
        for (int i = 0; i < CLIENT_RECVS; i++)
        {
            postAckRecv(ep, lmr, ackArea, recvCookie++, recvs);
        }
        ep.ep().connect(address, port, 10 * SECOND, light ? LIGHT : FULL, Qos.BEST_EFFORT, 0);
        final DatEvent up = expectNext(ep.conn(), 15 * SECOND, false, "established");
        if (!up.is(EventNumber.CONNECTION_EVENT_ESTABLISHED))
        {
            throw new Failure("not established: " + up);
        }
        final ByteBuffer pd = ByteBuffer.wrap(up.connection.privateData, 0, 12);
        final int rmr = pd.getInt();
        final long remote = pd.getLong();
        connected.run();

        final long start = System.currentTimeMillis();
        long round = 0;
        long cookie = 0;
        rounds:
        while ((rounds == 0 || round < rounds)
            && (budgetMillis == 0 || round == 0 || System.currentTimeMillis() - start < budgetMillis))
        {
            for (int shape = 0; shape < shapes; shape++)
            {
                final long sendAt = (long) shape * SLOT;
                final long writeAt = writeArea + (long) shape * SLOT;
                final long readAt = readArea + (long) shape * SLOT;
                final long target = remote + (long) shape * SLOT;
                fill(lmr.memory(), sendAt, shape, seed(round, shape, false));
                fill(lmr.memory(), writeAt, shape, seed(round, shape, true));
                lmr.memory().asSlice(readAt, SLOT).fill((byte) 0);
                ep.ep().postSend(segmentCount(shape), segments(lmr, sendAt, shape), cookie, 0);
                requests.posted(cookie++);
                if (light)
                {
                    continue;
                }
                ep.ep().postRdmaWrite(segmentCount(shape), segments(lmr, writeAt, shape), cookie,
                    new RmrTriplet(rmr, target, length(shape)), 0);
                requests.posted(cookie++);
                ep.ep().postRdmaRead(segmentCount(shape), segments(lmr, readAt, shape), cookie,
                    new RmrTriplet(rmr, target, length(shape)), 0);
                requests.posted(cookie++);
            }
            while (!requests.outstanding.isEmpty())
            {
                if (!requests.complete(expectNext(ep.req(), waitMicros, poll, "completions of round " + round),
                    "request"))
                {
                    break rounds;
                }
            }
            for (int shape = 0; !light && shape < SHAPES; shape++)
            {
                final long at = mismatch(lmr.memory(), readArea + (long) shape * SLOT, shape, seed(round, shape, true));
                if (at >= 0)
                {
                    throw new Failure("round " + round + ": the RDMA Read of shape " + shape + " differs from what "
                        + "was written at byte " + at);
                }
            }
            final DatEvent ack = expectNext(ep.recv(), waitMicros, poll, "the ack of round " + round);
            if (!recvs.complete(ack, "ack receive"))
            {
                break;
            }
            final long slot = ackArea + (ack.dto.userCookie - RECV_COOKIE) % CLIENT_RECVS * ACK;
            final int acked = lmr.memory().get(ValueLayout.JAVA_INT_UNALIGNED, slot);
            final int bad = lmr.memory().get(ValueLayout.JAVA_INT_UNALIGNED, slot + 4);
            if (ack.dto.transferredLength != ACK || acked != round || bad != 0)
            {
                throw new Failure("round " + round + ": the server's ack says round " + acked + ", " + bad
                    + " Sends not intact");
            }
            postAckRecv(ep, lmr, ackArea, recvCookie++, recvs);
            round++;
        }
        final long millis = System.currentTimeMillis() - start;
        if (requests.endAt == 0 && recvs.endAt == 0)
        {
            ep.ep().disconnect(CloseFlags.GRACEFUL_FLAG);
        }
        final String event = finish(ep, requests, recvs, waitMicros);
        ep.ep().free();
        lmr.free();
        return new Outcome(event, Math.min(nonZero(requests.endAt), nonZero(recvs.endAt)), round, millis, requests,
            recvs);
    }

    private static long nonZero(final long at)
    {
        return at == 0 ? Long.MAX_VALUE : at;
    }

    private static void postAckRecv(final TcpNode.Ep ep, final Lmr lmr, final long ackArea, final long cookie,
        final Books recvs)
    {
        final long slot = ackArea + (cookie - RECV_COOKIE) % CLIENT_RECVS * ACK;
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, slot, ACK)}, cookie, 0);
        recvs.posted(cookie);
    }
}

package io.jdat.testkit;

import io.jdat.CloseFlags;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A transaction with validation between two processes, both halves: the server accepts and
 * checks what arrives; the client sends, writes, reads and checks what it reads. Each side throws
 * {@link IllegalStateException} on the first mismatch, so either process can report it.
 * <pre>
 *   client                                   server (1 MiB LMR, Recvs posted before accepting)
 *   connect "hello from the client"  --->    accept with its rmr_context and address
 *   8 Sends of 1000 + STEP i bytes   --->    each checked: cookie, length, every byte
 *   RDMA Write 200000 bytes          --->    [512 KiB, ...): checked after "WRITTEN"
 *   RDMA Read 200000 bytes           <---    [768 KiB, ...): filled before accepting
 *   Send "WRITTEN"                   --->    checks the Write's bytes, answers "VERIFIED"
 *   disconnect                       --->    DISCONNECTED
 * </pre>
 * Both processes run it with the same {@code STEP} (a provider's tests choose it once).
 */
public final class Transaction
{
    public static final int SENDS = 8;
    public static final int LMR_SIZE = 1 << 20;
    static final int WRITE_AT = 512 << 10;
    static final int READ_AT = 768 << 10;
    static final int RDMA = 200_000;
    static final byte[] HELLO = "hello from the client".getBytes(StandardCharsets.UTF_8);
    private static final long SECOND = 1_000_000L;

    private final int step;

    /** A transaction whose Send {@code i} carries {@code 1000 + step * i} bytes. */
    public Transaction(final int step)
    {
        this.step = step;
    }

    /** An endpoint with its EVDs, as the provider's test node made them. */
    public record Side(Endpoint ep, EventDispatcher recv, EventDispatcher req, EventDispatcher conn)
    {
    }

    int sendSize(final int i)
    {
        return 1000 + step * i;
    }

    /**
     * The passive side of the peer death tests: accepts the next request on {@code crEvd} into
     * {@code side} with {@code lmr} exposed ({@link #acceptData}), prints {@code ACCEPTED} and
     * lets RDMA Writes land until the process is killed (at most 60 s).
     */
    public static void sink(final EventDispatcher crEvd, final Side side, final Lmr lmr) throws InterruptedException
    {
        final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "request");
        cr.crArrival.crHandle.accept(side.ep(), acceptData(lmr));
        next(side.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED, "established");
        System.out.println("ACCEPTED");
        Thread.sleep(60_000);
    }

    /** What the server's accept carries: its LMR's rmr_context and registered address. */
    public static byte[] acceptData(final Lmr lmr)
    {
        return ByteBuffer.allocate(12).putInt(lmr.rmrContext()).putLong(lmr.registeredAddress()).array();
    }

    static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new IllegalStateException(what);
        }
    }

    public static DatEvent next(final EventDispatcher evd, final EventNumber expected, final String what)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(10 * SECOND, 1, ev, new DatCount());
        check(s == DatStatus.SUCCESS, what + ": no event within 10 s");
        check(ev.is(expected), what + ": expected " + expected + ", got " + ev);
        return ev;
    }

    public static void completed(final EventDispatcher evd, final long cookie, final long length, final String what)
    {
        final DatEvent ev = next(evd, EventNumber.DTO_COMPLETION_EVENT, what);
        check(ev.dto.status == DtoStatus.SUCCESS && ev.dto.userCookie == cookie
            && (length < 0 || ev.dto.transferredLength == length), what + ": " + ev);
    }

    /** Server: the LMR ready, Recvs posted; accepts the next request on {@code crEvd}, serves, returns at the end. */
    public void serve(final EventDispatcher crEvd, final Side ep, final Lmr lmr)
    {
        final LmrTriplet[] one = new LmrTriplet[1];
        for (int i = 0; i < SENDS; i++)
        {
            one[0] = LmrTriplet.of(lmr, 64L * 1024 * i, 64 * 1024);
            ep.ep().postRecv(1, one, 100 + i, 0);
        }
        one[0] = LmrTriplet.of(lmr, LMR_SIZE - 4096, 64);
        ep.ep().postRecv(1, one, 200, 0);
        BytePattern.fill(lmr.memory(), READ_AT, RDMA, 8);

        final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "connection request");
        final CrParam p = new CrParam();
        cr.crArrival.crHandle.query(CrParam.FIELD_ALL, p);
        check(Arrays.equals(HELLO, Arrays.copyOf(p.privateData, p.privateDataSize)), "the request's private data");
        cr.crArrival.crHandle.accept(ep.ep(), acceptData(lmr));
        next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED, "server established");

        for (int i = 0; i < SENDS; i++)
        {
            completed(ep.recv(), 100 + i, sendSize(i), "Recv " + i);
            check(BytePattern.mismatch(lmr.memory(), 64L * 1024 * i, sendSize(i), 10 + i) < 0, "bytes of Send " + i);
        }
        completed(ep.recv(), 200, 7, "Recv of WRITTEN");
        check(BytePattern.mismatch(lmr.memory(), WRITE_AT, RDMA, 9) < 0, "bytes of the RDMA Write");
        lmr.memory().setString(LMR_SIZE - 8192, "VERIFIED", StandardCharsets.US_ASCII);
        one[0] = LmrTriplet.of(lmr, LMR_SIZE - 8192, 8);
        ep.ep().postSend(1, one, 300, 0);
        completed(ep.req(), 300, -1, "Send of VERIFIED");
        next(ep.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED, "server disconnected");
    }

    /**
     * Client: connects {@code ep} to {@code address}/{@code qual}, runs the transaction with
     * {@code mem} (an LMR of {@link #LMR_SIZE} bytes, freed at the end), disconnects.
     */
    public void run(final Lmr mem, final Side ep, final IaAddress address, final long qual)
    {
        final LmrTriplet[] one = new LmrTriplet[1];
        one[0] = LmrTriplet.of(mem, LMR_SIZE - 4096, 64);
        ep.ep().postRecv(1, one, 400, 0);
        ep.ep().connect(address, qual, 10 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
        final DatEvent up = next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED, "client established");
        check(up.connection.privateDataSize == 12, "the accept's private data: " + up);
        final ByteBuffer pd = ByteBuffer.wrap(up.connection.privateData, 0, 12);
        final int rmr = pd.getInt();
        final long base = pd.getLong();

        for (int i = 0; i < SENDS; i++)
        {
            BytePattern.fill(mem.memory(), 64L * 1024 * i, sendSize(i), 10 + i);
            one[0] = LmrTriplet.of(mem, 64L * 1024 * i, sendSize(i));
            ep.ep().postSend(1, one, 10 + i, 0);
        }
        for (int i = 0; i < SENDS; i++)
        {
            completed(ep.req(), 10 + i, -1, "Send " + i);
        }
        BytePattern.fill(mem.memory(), WRITE_AT, RDMA, 9);
        one[0] = LmrTriplet.of(mem, WRITE_AT, RDMA);
        ep.ep().postRdmaWrite(1, one, 20, new RmrTriplet(rmr, base + WRITE_AT, RDMA), 0);
        completed(ep.req(), 20, -1, "RDMA Write");
        one[0] = LmrTriplet.of(mem, READ_AT, RDMA);
        ep.ep().postRdmaRead(1, one, 30, new RmrTriplet(rmr, base + READ_AT, RDMA), 0);
        completed(ep.req(), 30, -1, "RDMA Read");
        check(BytePattern.mismatch(mem.memory(), READ_AT, RDMA, 8) < 0, "bytes of the RDMA Read");

        mem.memory().setString(LMR_SIZE - 8192, "WRITTEN", StandardCharsets.US_ASCII);
        one[0] = LmrTriplet.of(mem, LMR_SIZE - 8192, 7);
        ep.ep().postSend(1, one, 40, 0);
        completed(ep.req(), 40, -1, "Send of WRITTEN");
        completed(ep.recv(), 400, 8, "Recv of VERIFIED");
        check("VERIFIED".equals(mem.memory().getString(LMR_SIZE - 4096, StandardCharsets.US_ASCII)),
            "the server's answer");
        ep.ep().disconnect(CloseFlags.GRACEFUL_FLAG);
        next(ep.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED, "client disconnected");
        mem.free();
    }
}

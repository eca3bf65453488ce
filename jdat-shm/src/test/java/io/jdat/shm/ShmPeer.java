package io.jdat.shm;

import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;
import java.nio.file.Path;

/**
 * The other process of the two-process tests: {@code ShmPeer DIR ADDRESS QUAL MODE} listens on
 * {@code QUAL} of {@code ADDRESS} and prints {@code READY}; then, by mode,
 * <ul>
 *   <li>{@code validate}: serves one {@link Transaction} (checking everything that arrives),
 *       prints {@code OK} and exits 0, or prints {@code FAIL ...} and exits 1;</li>
 *   <li>{@code sink}: accepts with a 4 MiB LMR exposed (its context and address as private data),
 *       prints {@code ACCEPTED} and lets RDMA Writes land until it is killed (at most 60 s);</li>
 *   <li>{@code direct}: the server of {@link ShmDirectPlacementTest}: accepts with its shared and its
 *       ordinary LMR exposed ({@link Direct}), and after the client's Send checks every byte of both
 *       memories; prints {@code VERIFIED} (or {@code FAIL ...}) and exits when the client disconnects.</li>
 *   <li>{@code late}: the server of {@link ShmTwoProcessTest}'s abrupt disconnect: posts
 *       {@link #LATE_SENDS} receives of {@link #LATE_LEN} bytes, accepts, then looks at nothing for
 *       {@link #LATE_NAP_MS} ms (its I/O thread parks 5 s at a time and the client cannot wake it),
 *       while the client Sends and disconnects abruptly; then checks that every Send arrived, in
 *       order and whole, before the disconnect; prints {@code RECEIVED} (or {@code FAIL ...}).</li>
 * </ul>
 */
public final class ShmPeer
{
    /** The Sends of {@code late}: as many as a default endpoint's receive queue holds. */
    static final int LATE_SENDS = 16;
    static final int LATE_LEN = 64;
    static final int LATE_NAP_MS = 3000;
    /** An I/O thread that parks 5 s at a time when idle, and that the peer cannot wake. */
    static final String SLEEPY = "idle_spin_ns=0 idle_yield_ns=0 idle_park_min_ns=5000000000"
        + " idle_park_max_ns=5000000000 futex=false";

    private ShmPeer()
    {
    }

    /** The byte {@code i} of the {@code late} Sends' bytes. */
    static byte lateByte(final int i)
    {
        return (byte) (i * 7 + i / LATE_LEN);
    }

    private static void late(final ShmNode node, final long qual, final EventDispatcher crEvd, final ShmNode.Ep ep)
        throws InterruptedException
    {
        final Lmr sink = node.lmr(LATE_SENDS * LATE_LEN);
        for (int i = 0; i < LATE_SENDS; i++)
        {
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, (long) i * LATE_LEN, LATE_LEN)}, i, 0);
        }
        node.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
        System.out.println("READY");
        final var cr = Transaction.next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "request");
        cr.crArrival.crHandle.accept(ep.ep(), null);
        Transaction.next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED, "established");
        Thread.sleep(LATE_NAP_MS);
        for (int i = 0; i < LATE_SENDS; i++)
        {
            Transaction.completed(ep.recv(), i, LATE_LEN, "the receive of Send " + i);
        }
        for (int i = 0; i < LATE_SENDS * LATE_LEN; i++)
        {
            if (sink.memory().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != lateByte(i))
            {
                System.out.println("FAIL byte " + i + " of the Sends");
                return;
            }
        }
        Transaction.next(ep.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED, "disconnected");
        System.out.println("RECEIVED");
        sink.free();
    }

    /** This class's {@code main} in a second JVM: {@code mode} on {@code address} of {@code dir}, at {@code qual}. */
    static PeerProcess start(final Path dir, final String address, final long qual, final String mode)
    {
        return new PeerProcess(ShmPeer.class, dir.toString(), address, Long.toString(qual), mode);
    }

    private static void direct(final ShmNode node, final Path dir, final long qual, final EventDispatcher crEvd,
        final ShmNode.Ep ep)
    {
        final Direct d = new Direct(node, dir);
        Direct.fill(d.shared.memory(), Direct.SOURCE, Direct.SERVER_SHARED);
        Direct.fill(d.ordinary, Direct.SOURCE, Direct.SERVER_ORDINARY);
        final Lmr msg = node.lmr(4096);
        ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(msg, 0, 4096)}, 1, 0);
        node.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
        System.out.println("READY");
        final var cr = Transaction.next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "request");
        cr.crArrival.crHandle.accept(ep.ep(), d.acceptData());
        Transaction.next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED, "established");
        Transaction.completed(ep.recv(), 1, -1, "the client's Send after its Writes");
        String wrong = Direct.check("server shared memory", d.shared.memory(), Direct.SLOT_A, Direct.CLIENT_SHARED,
            Direct.SLOT_B, Direct.CLIENT_ORDINARY, Direct.SOURCE, Direct.SERVER_SHARED);
        if (wrong == null)
        {
            wrong = Direct.check("server ordinary memory", d.ordinary, Direct.SLOT_A, Direct.CLIENT_SHARED,
                Direct.SLOT_B, Direct.CLIENT_ORDINARY, Direct.SOURCE, Direct.SERVER_ORDINARY);
        }
        System.out.println(wrong == null ? "VERIFIED" : "FAIL " + wrong);
        System.out.flush();
        Transaction.next(ep.conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED, "disconnected");
        msg.free();
        d.close();
    }

    public static void main(final String[] args)
    {
        final Path dir = Path.of(args[0]);
        final long qual = Long.parseLong(args[2]);
        PeerProcess.runMain(() ->
        {
            try (ShmNode node = ShmNode.open(dir, args[1], args[3].equals("late") ? SLEEPY : ""))
            {
                final var crEvd = node.evd(8, EvdFlags.CR_FLAG);
                final ShmNode.Ep ep = node.ep(null);
                if (args[3].equals("validate"))
                {
                    final Lmr lmr = node.lmr(Transaction.LMR_SIZE);
                    node.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
                    System.out.println("READY");
                    ShmNode.TRANSACTION.serve(crEvd, ep.side(), lmr);
                    System.out.println("OK");
                }
                else if (args[3].equals("late"))
                {
                    late(node, qual, crEvd, ep);
                }
                else if (args[3].equals("direct"))
                {
                    direct(node, dir, qual, crEvd, ep);
                }
                else
                {
                    final Lmr lmr = node.lmr(4 << 20);
                    node.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
                    System.out.println("READY");
                    Transaction.sink(crEvd, ep.side(), lmr);
                }
            }
        });
    }
}

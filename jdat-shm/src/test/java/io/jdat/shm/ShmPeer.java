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
 * </ul>
 */
public final class ShmPeer
{
    private ShmPeer()
    {
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
            try (ShmNode node = ShmNode.open(dir, args[1], ""))
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

package io.jdat.shm;

import io.jdat.EvdFlags;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.PspFlags;
import java.nio.file.Path;

/**
 * The other process of the two-process tests: {@code ShmPeer DIR ADDRESS QUAL MODE} listens on
 * {@code QUAL} of {@code ADDRESS} and prints {@code READY}; then, by mode,
 * <ul>
 *   <li>{@code validate}: serves one {@link Transaction} (checking everything that arrives),
 *       prints {@code OK} and exits 0, or prints {@code FAIL ...} and exits 1;</li>
 *   <li>{@code sink}: accepts with a 4 MiB LMR exposed (its context and address as private data),
 *       prints {@code ACCEPTED} and lets RDMA Writes land until it is killed (at most 60 s).</li>
 * </ul>
 */
public final class ShmPeer
{
    private ShmPeer()
    {
    }

    public static void main(final String[] args)
    {
        final Path dir = Path.of(args[0]);
        final long qual = Long.parseLong(args[2]);
        try (ShmNode node = ShmNode.open(dir, args[1], ""))
        {
            final var crEvd = node.evd(8, EvdFlags.CR_FLAG);
            final ShmNode.Ep ep = node.ep(null);
            if (args[3].equals("validate"))
            {
                final Lmr lmr = node.lmr(Transaction.LMR_SIZE);
                node.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
                System.out.println("READY");
                Transaction.serve(node, crEvd, ep, lmr);
                System.out.println("OK");
            }
            else
            {
                final Lmr lmr = node.lmr(4 << 20);
                node.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
                System.out.println("READY");
                final var cr = Transaction.next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "request");
                cr.crArrival.crHandle.accept(ep.ep(), Transaction.acceptData(lmr));
                Transaction.next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED, "established");
                System.out.println("ACCEPTED");
                Thread.sleep(60_000);
            }
        }
        catch (final Throwable t)
        {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        System.out.flush();
        System.exit(0);
    }
}

package io.jdat.tcp.channel;

import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.testkit.PeerProcess;
import io.jdat.testkit.Transaction;

/**
 * The other process of the two-process tests: {@code TcpPeer MODE INSTANCE_DATA...} listens on
 * a free TCP port of 127.0.0.1 and prints {@code READY PORT}; then, by mode,
 * <ul>
 *   <li>{@code validate}: serves one {@link Transaction} (checking everything that arrives),
 *       prints {@code OK} and exits 0, or prints {@code FAIL ...} and exits 1;</li>
 *   <li>{@code sink}: accepts with a 4 MiB LMR exposed (its context and address as private data),
 *       prints {@code ACCEPTED} and lets RDMA Writes land until it is killed (at most 60 s).</li>
 * </ul>
 */
public final class TcpPeer
{
    private TcpPeer()
    {
    }

    /** This class's {@code main} in a second JVM, in {@code mode} with {@code instanceData}. */
    static PeerProcess start(final String mode, final String instanceData)
    {
        return new PeerProcess(TcpPeer.class, mode, instanceData);
    }

    public static void main(final String[] args)
    {
        final String data = String.join(" ", java.util.Arrays.asList(args).subList(1, args.length));
        PeerProcess.runMain(() ->
        {
            try (TcpNode node = TcpNode.open(data))
            {
                final var crEvd = node.evd(8, EvdFlags.CR_FLAG);
                final TcpNode.Ep ep = node.ep(null);
                final Lmr lmr = node.lmr(args[0].equals("validate") ? Transaction.LMR_SIZE : 4 << 20);
                final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
                System.out.println("READY " + psp.connQual());
                if (args[0].equals("validate"))
                {
                    TcpNode.TRANSACTION.serve(crEvd, ep.side(), lmr);
                    System.out.println("OK");
                }
                else
                {
                    Transaction.sink(crEvd, ep.side(), lmr);
                }
            }
        });
    }
}

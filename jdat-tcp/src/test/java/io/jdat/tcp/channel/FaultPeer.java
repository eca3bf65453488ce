package io.jdat.tcp.channel;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.testkit.PeerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A process of the fault tests ({@link FaultSession}'s halves), driven by lines on its standard
 * input; what it prints starts with the run's or session's name, and a broken rule with
 * {@code FAIL}.
 * <ul>
 *   <li>{@code FaultPeer serve INSTANCE_DATA...}: one tcp IA with that instance data, a PSP on a
 *       free port ({@code READY PORT}); every connection request is served on a thread of its own
 *       ({@code SESSION N END ...}); ends at {@code quit} or the end of its input;</li>
 *   <li>{@code FaultPeer client}: for each {@code RUN NAME ADDRESS PORT ROUNDS MILLIS full|light
 *       wait|poll INSTANCE_DATA...} opens a tcp IA with that instance data, runs the client half
 *       ({@code RUN NAME CONNECTED} once established, then {@code RUN NAME END ...}) and closes
 *       it; ends at {@code quit}.</li>
 * </ul>
 */
public final class FaultPeer
{
    /** The longest any one wait may take: the liveness bound of the tests (2 s) and a margin. */
    private static final long WAIT_MICROS = 10 * TcpNode.SECOND;

    private FaultPeer()
    {
    }

    public static void main(final String[] args)
    {
        PeerProcess.runMain(() ->
        {
            if (args[0].equals("serve"))
            {
                serve(String.join(" ", Arrays.asList(args).subList(1, args.length)));
            }
            else
            {
                client();
            }
        });
    }

    private static void serve(final String instanceData) throws InterruptedException
    {
        try (TcpNode node = TcpNode.open(instanceData))
        {
            final EventDispatcher crEvd = node.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final Thread input = Thread.ofPlatform().daemon().name("fault-peer-input").start(FaultPeer::awaitQuit);
            System.out.println("READY " + psp.connQual());
            int sessions = 0;
            while (input.isAlive())
            {
                final DatEvent cr = new DatEvent();
                if (crEvd.wait(200_000, 1, cr, new DatCount()) != DatStatus.SUCCESS)
                {
                    continue;
                }
                if (!cr.is(EventNumber.CONNECTION_REQUEST_EVENT))
                {
                    throw new IllegalStateException("on the PSP's EVD: " + cr);
                }
                final int id = ++sessions;
                Thread.ofPlatform().daemon().name("fault-session-" + id).start(() ->
                {
                    try
                    {
                        System.out.println("SESSION " + id + " " + FaultSession.serve(node, cr, WAIT_MICROS));
                    }
                    catch (final RuntimeException e)
                    {
                        System.out.println("FAIL SESSION " + id + ": " + e);
                        e.printStackTrace(System.out);
                    }
                });
            }
        }
    }

    /** Returns at "quit" or at the end of the input. */
    private static void awaitQuit()
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
        {
            for (String line = in.readLine(); line != null && !line.trim().equals("quit"); line = in.readLine())
            {
                // only quit is understood
            }
        }
        catch (final IOException e)
        {
            // the end of the input
        }
    }

    private static void client() throws IOException
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.trim().equals("quit"); line = in.readLine())
        {
            final String[] w = line.trim().split("\\s+");
            if (w.length < 8 || !w[0].equals("RUN"))
            {
                throw new IllegalArgumentException("not a command: " + line);
            }
            final String name = w[1];
            try (TcpNode node = TcpNode.open(String.join(" ", Arrays.asList(w).subList(8, w.length))))
            {
                final FaultSession.Outcome outcome = FaultSession.run(node, IaAddress.parse(w[2]), Long.parseLong(w[3]),
                    Long.parseLong(w[4]), Long.parseLong(w[5]), w[6].equals("light"), w[7].equals("poll"), WAIT_MICROS,
                    () -> System.out.println("RUN " + name + " CONNECTED"));
                System.out.println("RUN " + name + " " + outcome.line());
            }
            catch (final RuntimeException e)
            {
                System.out.println("FAIL RUN " + name + ": " + e);
                e.printStackTrace(System.out);
            }
        }
    }
}

package io.jdat.tools.dapltest;

import io.jdat.ConnectionRequest;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.Jdat;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.ControlChannel;
import io.jdat.tools.kit.Message;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * dapltest's server ({@code -T S}): a PSP on the base port; each client's control connection is
 * a session on its own thread that runs what the client asks (a transaction or performance
 * test) with the server's part of the checks, until a client says QUIT. A control connection
 * with jdat's private data speaks jdat's protocol ({@link Protocol}); one without any is a real
 * dapltest client's ({@link DapltestServer}), whose test connections take the ports after the
 * base port, as dapltest's do.
 */
final class TestServer implements AutoCloseable, DapltestServer.Host
{
    private static final long POLL_MICROS = 200_000;

    private final Node node;
    private final EventDispatcher crEvd;
    private final PublicServicePoint psp;
    private final PrintWriter log;
    private final long timeoutMicros;
    private final List<Thread> sessions = new ArrayList<>();
    private volatile boolean quit;
    private int count;
    private long nextTestPort;

    /** Opens {@code iaName} and listens on {@code port} (any free one when negative). */
    TestServer(final String iaName, final long port, final PrintWriter log, final long timeoutMicros)
    {
        this.node = Node.open(iaName);
        this.log = log;
        this.timeoutMicros = timeoutMicros;
        try
        {
            this.crEvd = node.evd(16, null, EvdFlags.CR_FLAG);
            this.psp = port < 0 ? node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG)
                : node.ia.pspCreate(port, crEvd, PspFlags.CONSUMER_FLAG);
        }
        catch (final RuntimeException e)
        {
            node.close();
            throw e;
        }
    }

    /** The server's IA address. */
    io.jdat.IaAddress address()
    {
        return node.address;
    }

    /** The port (connection qualifier) the server listens on. */
    long port()
    {
        return psp.connQual();
    }

    /** Serves sessions until a client says QUIT; then waits for the sessions that are still running. */
    void serve()
    {
        final DatEvent ev = new DatEvent();
        final DatCount n = new DatCount();
        while (!quit)
        {
            final DatStatus s = crEvd.wait(POLL_MICROS, 1, ev, n);
            if (s != DatStatus.SUCCESS || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
            {
                continue;
            }
            final ConnectionRequest cr = ev.crArrival.crHandle;
            final String pd = Protocol.privateData(cr);
            if (pd.isEmpty())
            {
                dapltest(cr);
                continue;
            }
            if (!pd.equals(Protocol.CONTROL))
            {
                log("rejected a connection request with private data '" + pd + "'");
                cr.reject();
                continue;
            }
            final int id = ++count;
            final ControlChannel ctrl = new ControlChannel(node,
                node.link("server session " + id, null, Completion.WAIT, timeoutMicros * 4));
            ctrl.link.accept(cr, null);
            final Thread t = new Thread(() -> session(id, ctrl), "jdat-test-session-" + id);
            synchronized (sessions)
            {
                sessions.add(t);
            }
            t.start();
        }
        final List<Thread> running;
        synchronized (sessions)
        {
            running = List.copyOf(sessions);
        }
        for (final Thread t : running)
        {
            try
            {
                t.join();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void dapltest(final ConnectionRequest cr)
    {
        final int id = ++count;
        final DapltestServer session;
        try
        {
            session = DapltestServer.accept(node, this, "session " + id, cr, timeoutMicros);
        }
        catch (final RuntimeException e)
        {
            log("session " + id + ": the dapltest client's control connection failed: " + Jdat.describe(e));
            return;
        }
        final Thread t = new Thread(session::run, "jdat-test-session-" + id);
        synchronized (sessions)
        {
            sessions.add(t);
        }
        t.start();
    }

    @Override
    public synchronized long ports(final int n)
    {
        // as dapltest: after the base port, starting over after 1000 so that long runs stay in range
        if (nextTestPort == 0 || nextTestPort + n > port() + 1000)
        {
            nextTestPort = port() + 1;
        }
        final long first = nextTestPort;
        nextTestPort += n;
        return first;
    }

    @Override
    public void quit()
    {
        quit = true;
    }

    /** Asks {@link #serve()} to return. */
    void stop()
    {
        quit = true;
    }

    private void session(final int id, final ControlChannel ctrl)
    {
        try
        {
            final Message request = ctrl.receive();
            switch (request.verb())
            {
                case "QUIT" ->
                {
                    log("session " + id + ": QUIT");
                    // before the answer, so that the server stops even if the answer fails
                    quit = true;
                    ctrl.send("BYE");
                }
                case "TRANSACTION" ->
                {
                    final TransactionParams p = TransactionParams.from(request);
                    log("session " + id + ": transaction, " + p.describe());
                    final Outcome o = Transaction.server(node, ctrl, p, port(), timeoutMicros);
                    log("session " + id + ": " + (o.passed() ? "passed, " + o.checks().get() + " checks"
                        : "FAILED: " + o.failures().getFirst()));
                }
                case "PERFORMANCE" ->
                {
                    final Performance.Params p = Performance.Params.from(request);
                    log("session " + id + ": performance, " + p.describe());
                    Performance.server(node, ctrl, p, timeoutMicros);
                    log("session " + id + ": done");
                }
                default ->
                {
                    log("session " + id + ": unknown request " + request);
                    ctrl.send(Message.fail("unknown request " + request.verb()));
                }
            }
            ctrl.link.awaitDisconnected();
        }
        catch (final RuntimeException e)
        {
            log("session " + id + ": ended: " + Jdat.describe(e));
            ctrl.link.abort();
        }
        ctrl.free();
    }

    @Override
    public void log(final String line)
    {
        synchronized (log)
        {
            log.println("jdat test server: " + line);
            log.flush();
        }
    }

    @Override
    public void close()
    {
        node.close();
    }
}

package io.jdat.tools.dapltest;

import io.jdat.tools.kit.HostPort;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;

/**
 * A {@link TestServer} in this process for a client on dapltest's wire without {@code --server}:
 * its log goes to the client's output and is kept, so that the client can read its verdict.
 */
final class LocalDapltestServer implements AutoCloseable
{
    private final StringWriter kept = new StringWriter();
    private final TestServer server;
    private final Thread serving;
    private final long timeoutMicros;

    LocalDapltestServer(final String iaName, final PrintWriter out, final long timeoutMicros)
    {
        this.timeoutMicros = timeoutMicros;
        this.server = new TestServer(iaName, -1, new PrintWriter(new Writer()
        {
            @Override
            public void write(final char[] b, final int off, final int len)
            {
                synchronized (kept)
                {
                    kept.write(b, off, len);
                }
                out.write(b, off, len);
            }

            @Override
            public void flush()
            {
                out.flush();
            }

            @Override
            public void close()
            {
                // the client's output stays open
            }
        }, true), timeoutMicros);
        this.serving = new Thread(server::serve, "jdat-test-server");
        serving.setDaemon(true);
        serving.start();
    }

    HostPort address()
    {
        return new HostPort(server.address(), server.port());
    }

    /** Stops the server once its sessions ended; true if its log has {@code verdict}. */
    boolean finishedWith(final String verdict) throws InterruptedException
    {
        server.stop();
        serving.join(timeoutMicros / 1000 + 1000);
        synchronized (kept)
        {
            return kept.toString().contains(verdict);
        }
    }

    @Override
    public void close()
    {
        server.stop();
        server.close();
    }
}

package io.jdat.tcp.channel;

import java.nio.channels.SelectionKey;

/**
 * Something a port's I/O thread drives through its selector: a listener, a connection attempt, a
 * connection request, an established channel. Every method but {@link #shutdown()} runs under the
 * port's progress lock (on the I/O thread, or on a thread that posts or polls).
 */
abstract class Io
{
    /** The registration with the port's selector; its attachment is this object. */
    SelectionKey key;

    /** The key's channel is ready for {@code readyOps}. */
    abstract void selected(int readyOps);

    /** Called every tick of the port ({@link TcpPort#TICK_MILLIS}): deadlines and liveness. */
    void tick(final long now)
    {
    }

    /** The port closes: release the socket, with no callback into the engine. Any thread; idempotent. */
    abstract void shutdown();

    /** Handling this object threw: end it (a channel breaks, telling the engine). I/O thread. */
    void failed()
    {
        shutdown();
    }

    /** Sets the interest set, if the key is still valid. */
    final void interest(final int ops)
    {
        final SelectionKey k = key;
        if (k != null && k.isValid() && k.interestOps() != ops)
        {
            k.interestOps(ops);
        }
    }
}

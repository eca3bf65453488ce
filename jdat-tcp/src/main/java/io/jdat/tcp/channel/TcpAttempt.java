package io.jdat.tcp.channel;

import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.ConnectRequest;
import io.jdat.engine.channel.PendingConnect;
import io.jdat.tcp.Mpa;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The active side of one connection setup (RFC 5044 initiator): the TCP connect, the MPA Request
 * with the consumer's private data (Rev 2 enhanced with the IRD/ORD word, RFC 6581, unless the IA
 * is configured for Rev 1), then nothing until the Reply. A Reply with R set is a peer rejection;
 * a refused TCP connect, or a connection closed or reset before the Reply, a non-peer rejection;
 * no route, unreachable. The engine's connect timer cancels the attempt.
 */
final class TcpAttempt extends Io implements PendingConnect
{
    private static final int PENDING = 0;
    private static final int DONE = 1;

    final TcpPort port;
    private final SocketChannel sock;
    private final ConnectHandler handler;
    private final long localPort;
    private final ByteBuffer requestBytes;
    /** The Request as sent, to check the Reply against. */
    private final Mpa.Frame sent;
    /**
     * The Reply as it comes in, never read past: up to the header first, then up to the length
     * it gives. A responder may send its first FPDUs right behind the Reply (RFC 6581's
     * peer-to-peer mode, or one that does not hold them back), and they belong to the connection.
     */
    private final ByteBuffer in = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH).limit(Mpa.HEADER_LENGTH);
    private final AtomicInteger state = new AtomicInteger(PENDING);
    private boolean connected;

    TcpAttempt(final TcpPort port, final SocketChannel sock, final ConnectRequest request, final ConnectHandler handler,
        final long localPort)
    {
        this.port = port;
        this.sock = sock;
        this.handler = handler;
        this.localPort = localPort;
        final TcpTransport t = port.transport;
        final Mpa.IrdOrd word = t.mpaRevision == Mpa.REVISION_1 ? null
            : new Mpa.IrdOrd(clamp(request.ird()), clamp(request.ord()), t.peerToPeer, false, t.peerToPeer, false);
        final ByteBuffer b = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeRequest(b, t.crc, word, request.privateData());
        this.requestBytes = b.flip();
        this.sent = Mpa.decode(requestBytes.duplicate(), true).frame();
    }

    private static int clamp(final int reads)
    {
        return Math.max(0, Math.min(reads, Mpa.IrdOrd.VALUE_MASK));
    }

    // ---------------------------------------------------------------- I/O thread

    /** Registers the socket; {@code connectedNow} if the connect completed at once. */
    void start(final boolean connectedNow)
    {
        if (state.get() != PENDING)
        {
            closeQuietly();
            return;
        }
        try
        {
            port.register(this, sock, connectedNow ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
        }
        catch (final IOException e)
        {
            end(Outcome.NON_PEER);
            return;
        }
        if (connectedNow)
        {
            connected();
        }
    }

    @Override
    void selected(final int readyOps)
    {
        if (state.get() != PENDING)
        {
            closeQuietly();
            return;
        }
        if (!connected)
        {
            try
            {
                if (sock.finishConnect())
                {
                    connected();
                }
            }
            catch (final IOException e)
            {
                end(Sockets.unreachable(e) ? Outcome.UNREACHABLE : Outcome.NON_PEER);
            }
            return;
        }
        readReply();
    }

    private void connected()
    {
        connected = true;
        interest(SelectionKey.OP_READ);
        try
        {
            Sockets.writeFully(sock, requestBytes);
        }
        catch (final IOException e)
        {
            end(Outcome.NON_PEER);
        }
    }

    private void readReply()
    {
        final int n;
        try
        {
            n = sock.read(in);
        }
        catch (final IOException e)
        {
            // reset before the Reply: the responder's provider refused the connection
            end(Outcome.NON_PEER);
            return;
        }
        if (n < 0)
        {
            end(Outcome.NON_PEER);
            return;
        }
        if (in.position() == Mpa.HEADER_LENGTH && in.limit() == Mpa.HEADER_LENGTH)
        {
            // the header is in: read the private data it announces, and nothing beyond
            final int pdLength = in.getShort(Mpa.PD_LENGTH_OFFSET) & 0xFFFF;
            in.limit(Math.min(in.capacity(), Mpa.HEADER_LENGTH + pdLength));
        }
        final Mpa.Result r = Mpa.decode(in.duplicate().flip(), false);
        if (r.status() == Mpa.Status.NEED_MORE)
        {
            if (!in.hasRemaining())
            {
                end(Outcome.NON_PEER);
            }
            return;
        }
        if (r.status() != Mpa.Status.FRAME)
        {
            end(Outcome.NON_PEER);
            return;
        }
        final Mpa.Frame reply = r.frame();
        switch (Mpa.checkReply(sent, reply))
        {
            case ACCEPTED -> establish(reply);
            case REJECTED -> end(Outcome.PEER);
            default -> end(Outcome.NON_PEER);
        }
    }

    private void establish(final Mpa.Frame reply)
    {
        final Mpa.IrdOrd word = reply.irdOrd();
        final boolean rtr = word != null && word.peerToPeer();
        if (rtr && (sent.irdOrd() == null || !sent.irdOrd().peerToPeer() || !word.writeRtr()))
        {
            // RFC 6581: no ready-to-receive message both sides support
            end(Outcome.NON_PEER);
            return;
        }
        if (!state.compareAndSet(PENDING, DONE))
        {
            closeQuietly();
            return;
        }
        final int maxFpdu;
        try
        {
            maxFpdu = port.transport.maxFpdu(((InetSocketAddress) sock.getLocalAddress()).getAddress());
        }
        catch (final IOException e)
        {
            closeQuietly();
            handler.rejected(false);
            return;
        }
        final TcpChannel ch = new TcpChannel(port, sock, handler, true, Mpa.crcInUse(sent, reply), maxFpdu, false);
        if (rtr)
        {
            ch.queueRtr();
        }
        port.replace(this, ch);
        final int rev1 = port.transport.rev1IrdOrd;
        handler.established(ch, reply.privateData(), word != null ? word.ird() : rev1,
            word != null ? word.ord() : rev1);
        ch.started();
    }

    private enum Outcome
    {
        PEER, NON_PEER, UNREACHABLE
    }

    /** Delivers a failed outcome, unless the attempt was cancelled first. */
    private void end(final Outcome outcome)
    {
        final boolean mine = state.compareAndSet(PENDING, DONE);
        closeQuietly();
        if (!mine)
        {
            return;
        }
        switch (outcome)
        {
            case PEER -> handler.rejected(true);
            case NON_PEER -> handler.rejected(false);
            default -> handler.unreachable();
        }
    }

    private void closeQuietly()
    {
        port.remove(this);
        Sockets.close(sock);
    }

    // ---------------------------------------------------------------- PendingConnect

    @Override
    public long localPortQual()
    {
        return localPort;
    }

    /** Any thread: closing the socket tells the responder that the initiator gave up. */
    @Override
    public boolean cancel()
    {
        if (!state.compareAndSet(PENDING, DONE))
        {
            return false;
        }
        closeQuietly();
        return true;
    }

    @Override
    void shutdown()
    {
        state.set(DONE);
        Sockets.close(sock);
    }

    @Override
    public String toString()
    {
        return "TcpAttempt[:" + localPort + (connected ? ", connected" : "") + "]";
    }
}

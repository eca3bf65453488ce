package io.jdat.tcp.channel;

import io.jdat.IaAddress;
import io.jdat.engine.channel.AcceptHandler;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.PeerOffer;
import io.jdat.tcp.Mpa;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The passive side of one connection setup (RFC 5044 responder): a TCP connection a listener
 * accepted, read until its MPA Request is complete, then handed to the listener's consumer as a
 * connection request. Accepting writes the MPA Reply (Rev and flags answering the Request, with
 * the RFC 6581 IRD/ORD word when the Request was enhanced) and turns the socket into a
 * {@link TcpChannel}; a consumer reject writes a Reply with R set; a provider refusal resets the
 * connection, which the active side reports as a non-peer rejection.
 *
 * <p>Until the Reply, the initiator must send nothing more (RFC 5044 startup rules): bytes, an
 * end of stream or a reset while the request waits for the consumer mean the initiator gave up,
 * and a later accept fails.
 */
final class TcpRequest extends Io implements IncomingRequest
{
    private static final int READING = 0;
    private static final int PENDING = 1;
    private static final int ACCEPTING = 2;
    private static final int DONE = 3;

    final TcpPort port;
    private final SocketChannel sock;
    private final long deadline;
    private final ByteBuffer in = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH + 4);
    private final AtomicInteger state = new AtomicInteger(READING);
    private volatile boolean peerGone;
    private volatile long localQual;
    private volatile ListenHandler listener;

    // set before the request is handed to a listener, read after
    private Mpa.Frame request;
    private volatile PeerOffer offer;

    TcpRequest(final TcpPort port, final SocketChannel sock, final TcpListener l, final long deadline)
    {
        this.port = port;
        this.sock = sock;
        this.localQual = l.qual;
        this.listener = l.handler;
        this.deadline = deadline;
    }

    // ---------------------------------------------------------------- I/O thread

    @Override
    void selected(final int readyOps)
    {
        if (state.get() == READING)
        {
            readRequest();
        }
        else
        {
            watch();
        }
    }

    private void readRequest()
    {
        final int n;
        try
        {
            n = sock.read(in);
        }
        catch (final IOException e)
        {
            end();
            return;
        }
        if (n < 0)
        {
            end();
            return;
        }
        final Mpa.Result r = Mpa.decode(in.duplicate().flip(), true);
        switch (r.status())
        {
            case NEED_MORE ->
            {
                if (!in.hasRemaining())
                {
                    refuse(null);
                }
                return;
            }
            case BAD_KEY ->
            {
                // not an MPA initiator at all
                end();
                return;
            }
            case FRAME ->
            {
                // handled below
            }
            default ->
            {
                // markers, an enhanced Request without its IRD/ORD word, a bad revision or length,
                // bytes behind the Request: refused with a Reply that has R set, as siw does
                refuse(r.frame());
                return;
            }
        }
        final Mpa.Frame f = r.frame();
        final Mpa.IrdOrd word = f.irdOrd();
        if (word != null && word.peerToPeer() && !word.writeRtr() && word.readRtr())
        {
            // RFC 6581: only a zero-length RDMA Write is accepted as the ready-to-receive message
            refuse(f);
            return;
        }
        final InetSocketAddress peer;
        try
        {
            peer = (InetSocketAddress) sock.getRemoteAddress();
        }
        catch (final IOException e)
        {
            end();
            return;
        }
        request = f;
        // a Rev 1 initiator says nothing about RDMA Reads (RFC 5044 has no IRD/ORD)
        final int rev1 = port.transport.rev1IrdOrd;
        offer = new PeerOffer(IaAddress.of(peer.getAddress()), peer.getPort(), localQual, f.privateData(),
            word != null ? word.ird() : rev1, word != null ? word.ord() : rev1);
        state.set(PENDING);
        port.startupEnded(this);
        if (!listener.onRequest(this))
        {
            reject(false);
        }
    }

    /** While the consumer decides: anything from the initiator means it is gone. */
    private void watch()
    {
        final ByteBuffer scratch = ByteBuffer.allocate(64);
        int n;
        try
        {
            n = sock.read(scratch);
        }
        catch (final IOException e)
        {
            n = -1;
        }
        if (n != 0)
        {
            peerGone = true;
            state.compareAndSet(PENDING, DONE);
            end();
        }
    }

    @Override
    void tick(final long now)
    {
        if (state.get() == READING && now - deadline >= 0)
        {
            // no complete MPA Request in time
            port.startupTimedOut();
            end();
        }
    }

    /** Closed before its MPA Request was complete, to make room for a newer connection. I/O thread. */
    void startupFailed()
    {
        if (state.get() == READING)
        {
            end();
        }
    }

    /** Answers a bad Request with a rejecting Reply and closes. */
    private void refuse(final Mpa.Frame frame)
    {
        state.set(DONE);
        final ByteBuffer out = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeReject(out, frame, null);
        try
        {
            Sockets.writeFully(sock, out.flip());
        }
        catch (final IOException e)
        {
            // the initiator is gone anyway
        }
        end();
    }

    private void end()
    {
        state.set(DONE);
        port.remove(this);
        Sockets.close(sock);
    }

    // ---------------------------------------------------------------- IncomingRequest

    @Override
    public PeerOffer offer()
    {
        return offer;
    }

    @Override
    public void accept(final byte[] privateData, final int ird, final int ord, final AcceptHandler handler)
    {
        if (!state.compareAndSet(PENDING, ACCEPTING)
            || !port.execute(() -> finishAccept(privateData, ird, ord, handler)))
        {
            // the initiator gave up, or the IA instance is closing
            state.set(DONE);
            handler.acceptFailed();
        }
    }

    /** Writes the Reply and starts the channel. I/O thread. */
    private void finishAccept(final byte[] privateData, final int ird, final int ord, final AcceptHandler handler)
    {
        if (peerGone || !sock.isOpen())
        {
            end();
            handler.acceptFailed();
            return;
        }
        final Mpa.IrdOrd word = request.enhanced()
            ? Mpa.replyIrdOrd(request.irdOrd(), clamp(ird), clamp(ord)) : null;
        final ByteBuffer out = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        Mpa.encodeReply(out, request, port.transport.crc, word, privateData);
        final int maxFpdu;
        try
        {
            Sockets.writeFully(sock, out.flip());
            maxFpdu = port.transport.maxFpdu(((InetSocketAddress) sock.getLocalAddress()).getAddress());
        }
        catch (final IOException e)
        {
            end();
            handler.acceptFailed();
            return;
        }
        state.set(DONE);
        final boolean crc = request.crc() || port.transport.crc;
        final boolean rtr = word != null && word.peerToPeer();
        final TcpChannel ch = new TcpChannel(port, sock, handler, false, crc, maxFpdu, rtr);
        port.replace(this, ch);
        handler.established(ch);
        ch.started();
    }

    private static int clamp(final int reads)
    {
        return Math.max(0, Math.min(reads, Mpa.IrdOrd.VALUE_MASK));
    }

    @Override
    public void reject(final boolean byPeer)
    {
        if (!state.compareAndSet(PENDING, DONE))
        {
            return;
        }
        final Runnable r = () ->
        {
            port.remove(this);
            if (byPeer)
            {
                // a Reply with R set (dat_cr_reject carries no private data); then the end of the stream
                final ByteBuffer out = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
                Mpa.encodeReject(out, request, null);
                try
                {
                    Sockets.writeFully(sock, out.flip());
                }
                catch (final IOException e)
                {
                    // the initiator is gone: nothing to tell
                }
                Sockets.close(sock);
            }
            else
            {
                Sockets.reset(sock);
            }
        };
        if (!port.execute(r))
        {
            Sockets.reset(sock);
        }
    }

    /** A consumer handed the request to another listener of this port. */
    boolean handOff(final TcpListener l)
    {
        if (state.get() != PENDING)
        {
            return false;
        }
        localQual = l.qual;
        offer = offer.arrivedOn(l.qual);
        listener = l.handler;
        if (!l.handler.onRequest(this))
        {
            reject(false);
        }
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
        final PeerOffer o = offer;
        final String from = o == null ? "?" : o.remoteAddress() + ":" + o.remotePortQual();
        return "TcpRequest[" + from + " -> " + localQual + "]";
    }
}

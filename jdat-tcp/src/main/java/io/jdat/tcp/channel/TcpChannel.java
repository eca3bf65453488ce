package io.jdat.tcp.channel;

import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.FlightEvents;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.OutboundQueue;
import io.jdat.engine.channel.PlacementClaim;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.SentLog;
import io.jdat.engine.channel.TaggedTarget;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.tcp.FpduDecoder;
import io.jdat.tcp.FpduEncoder;
import io.jdat.tcp.FpduWrite;
import io.jdat.tcp.Mpa;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One established {@code tcp} connection in FPDU mode. Posting enqueues (lock-free); then whoever
 * makes progress on the port (the poster itself when the port's progress lock is free, else the
 * I/O thread), in order: encodes queued messages into the send buffer as FPDUs of at
 * most the connection's MSS ({@link FpduEncoder}: DDP segments with their MSN and MO, or STag and
 * TO; one message after the other, so the FPDUs of two messages never interleave), writes the
 * buffer to the socket, and reports a message sent once its last byte was taken by the kernel
 * ({@link #sentMeansPlaced()} is false); it reads the socket into the receive buffer and hands
 * each complete, checked FPDU to the engine, which validates and places it
 * ({@link FpduDecoder}).
 *
 * <p>Startup (RFC 5044, RFC 6581): the initiator may send at once; in peer-to-peer mode its first
 * FPDU is a zero-length RDMA Write, the ready-to-receive message, which the responder consumes
 * here. The responder sends nothing until that message, or, without peer-to-peer mode, until the
 * initiator's first FPDU, has arrived; what the engine posts meanwhile waits in the queue.
 *
 * <p>Ends: a graceful {@link #disconnect()} sends FIN after the posted messages and ends when
 * the peer closes its side too (or after {@code close_timeout_ms}); a Terminate, queued by the
 * engine or sent here for a malformed FPDU (a CRC error, a bad length, version, opcode or queue
 * number), is followed by FIN, and the socket is drained until the peer closes so that the peer
 * reads the Terminate rather than a reset. The peer's FIN is a peer close; a reset, an I/O error,
 * the peer's Terminate, a stream cut inside an FPDU, TCP keepalive failing on an idle connection,
 * a send that made no progress for {@code liveness_ms}, or a silent peer that acknowledged none
 * of our bytes in flight for that long (the kernel's TCP table, {@link KernelQueues}) break the
 * connection.
 */
final class TcpChannel extends Io implements Channel
{
    /** The RFC 6581 ready-to-receive message: a zero-length RDMA Write, STag 0, TO 0. */
    private static final OutboundMessage RTR = new OutboundMessage(0).describeWrite(0, 0);

    /** FPDUs both ways. */
    private static final int OPEN = 0;
    /** Our FIN is out after a graceful close; inbound FPDUs are delivered until the peer's FIN. */
    private static final int CLOSING = 1;
    /** A Terminate is out and the engine told; the socket is drained until the peer closes. */
    private static final int LINGER = 2;
    private static final int DONE = 3;
    /** Reads per readiness before other connections get their turn. */
    private static final int READ_BUDGET = 16;
    final TcpPort port;
    private final SocketChannel sock;
    private final ChannelHandler handler;
    private final boolean active;
    private final FpduEncoder encoder;
    private final FpduDecoder decoder;
    private final Inbound inbound = new Inbound();
    private final OutboundQueue outbound = new OutboundQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean finished;
    private volatile boolean aborted;

    // the fields below are used only under the port's progress lock
    private int state = OPEN;
    /**
     * This connection's own receive buffer, only while it holds the start of an FPDU whose rest
     * has not arrived; otherwise reads go into the port's shared buffer (see {@link TcpPort#rxShared}).
     */
    private ByteBuffer rx;
    /** Moves the payload of large RDMA Writes, Read Responses and Sends straight from the socket into memory. */
    private final DirectReader direct;
    /** Orders those writes against the engine's close ({@link #awaitPlacing}). */
    private final PlacementClaim claim = new PlacementClaim();
    /** This connection's own write, only while it holds bytes the kernel has not taken yet. */
    private FpduWrite tx;
    /** The interest set this channel wants, before the port's quiet mode is applied. */
    private int wanted;
    /** The registration with the port's selector for polling consumers. */
    private SelectionKey pollKey;
    /** The registration with the port's selector for a waiter that blocks in the transport. */
    private SelectionKey waitKey;
    private boolean txOpen;
    private boolean awaitRtr;
    /** A responder without peer-to-peer mode sends from then on, if the initiator has not spoken first. */
    private long holdUntil;
    private boolean rxStopped;
    private boolean told;
    private boolean wantTransmit;
    /** A violation the inbound side found itself (no ready-to-receive message). */
    private TerminateInfo rxError;
    private TerminateInfo terminate;
    private boolean terminateEncoded;
    private boolean closeQueued;
    private OutboundMessage current;
    /** Bytes handed to the kernel so far. */
    private long written;
    /** Whether the peer is alive. */
    private final PeerWatch watch;
    private long deadline;
    /** Messages encoded and not yet reported, with the stream position after each. */
    private final SentLog sent = new SentLog();

    /**
     * @param active   the initiator (sends at once) or the responder (waits for the first FPDU, at
     *                 most {@code responder_wait_ms})
     * @param awaitRtr responder in peer-to-peer mode: the first FPDU must be a zero-length Write
     */
    TcpChannel(final TcpPort port, final SocketChannel sock, final ChannelHandler handler, final boolean active,
        final boolean crc, final int maxFpdu, final boolean awaitRtr)
    {
        this.port = port;
        this.sock = sock;
        this.handler = handler;
        this.active = active;
        this.encoder = new FpduEncoder(crc, maxFpdu);
        this.decoder = new FpduDecoder(crc);
        this.direct = new DirectReader(sock, decoder, inbound, claim);
        this.txOpen = active || !awaitRtr && port.transport.responderWaitNanos == 0;
        this.awaitRtr = awaitRtr;
        this.holdUntil = System.nanoTime() + port.transport.responderWaitNanos;
        String[] keys;
        try
        {
            keys = KernelQueues.keys((InetSocketAddress) sock.getLocalAddress(),
                (InetSocketAddress) sock.getRemoteAddress());
        }
        catch (final IOException | RuntimeException e)
        {
            keys = new String[0];
        }
        this.watch = new PeerWatch(port.transport.livenessMillis * 1_000_000L, keys);
    }

    /** The initiator's ready-to-receive message goes first (RFC 6581 peer-to-peer mode). Before {@link #started()}. */
    void queueRtr()
    {
        outbound.offer(RTR);
    }

    /** The engine knows the connection: start reading and sending. Under the progress lock. */
    void started()
    {
        final long now = System.nanoTime();
        watch.started(now);
        holdUntil = now + port.transport.responderWaitNanos;
        want(SelectionKey.OP_READ);
        try
        {
            pollKey = port.consumers.registerForPolling(sock, this);
            waitKey = port.consumers.registerForWaiting(sock, this);
        }
        catch (final IOException e)
        {
            finish(CloseReason.BROKEN);
            return;
        }
        transmit();
    }

    /**
     * Sets the interest set: {@code ops}, less reading and writing while the port is quiet (the
     * consumers that poll or wait carry both on; a third thread woken for a writable socket would
     * only contend with them for the two cores and the progress lock).
     */
    private void want(final int ops)
    {
        wanted = ops;
        interest(port.quiet ? ops & ~(SelectionKey.OP_READ | SelectionKey.OP_WRITE) : ops);
        // pollers also carry on a send the kernel could not take at once
        final SelectionKey k = pollKey;
        if (k != null && k.isValid() && k.interestOps() != ops)
        {
            k.interestOps(ops);
        }
        final SelectionKey w = waitKey;
        if (w != null && w.isValid() && w.interestOps() != ops)
        {
            w.interestOps(ops);
            // a waiter blocked in select would not see the change
            port.wakeWaiter();
        }
    }

    /** The port became quiet, or stopped being: apply that to the interest set. */
    void requiet()
    {
        if (state != DONE && wanted != 0)
        {
            want(wanted);
        }
    }

    boolean crcEnabled()
    {
        return encoder.crcEnabled();
    }

    int maxFpduLength()
    {
        return encoder.maxFpduLength();
    }

    // ---------------------------------------------------------------- Channel (any thread)

    @Override
    public void post(final OutboundMessage message)
    {
        if (!finished)
        {
            outbound.offer(message);
        }
    }

    @Override
    public void flush()
    {
        if (finished)
        {
            return;
        }
        // nobody is making progress on this port: write on this thread rather than wake the
        // I/O thread (not when this thread is already inside progress, e.g. an engine callback
        // answering a Read Request: the I/O thread sends that after the current FPDU)
        final TcpPort p = port;
        if (!p.progress.isHeldByCurrentThread() && !p.progress.hasQueuedThreads() && p.progress.tryLock())
        {
            try
            {
                transmit();
            }
            finally
            {
                p.progress.unlock();
            }
        }
        else if (scheduled.compareAndSet(false, true))
        {
            p.schedule(this);
        }
    }

    /** The engine closes: no payload is placed directly after this returns. */
    @Override
    public void awaitPlacing()
    {
        claim.close();
    }

    @Override
    public int maxSegmentPayload()
    {
        return encoder.maxSegmentPayload(RdmapOpcode.SEND);
    }

    @Override
    public boolean sentMeansPlaced()
    {
        return false;
    }

    @Override
    public void terminate(final TerminateInfo info)
    {
        if (!finished)
        {
            outbound.offerTerminate(info);
            flush();
        }
    }

    @Override
    public void disconnect()
    {
        if (!finished)
        {
            outbound.offerClose();
            flush();
        }
    }

    @Override
    public void abort()
    {
        aborted = true;
        // also while closing or lingering: the socket goes at once
        if (!port.execute(() -> finish(null)))
        {
            Sockets.close(sock);
        }
    }

    // ---------------------------------------------------------------- under the progress lock

    /** The port picked this channel from its queue of channels with new messages. */
    void scheduledRun()
    {
        scheduled.set(false);
        transmit();
    }

    /** Whether this connection's completions or events go to {@code evd} (see {@link InlineProgress#poll}). */
    boolean feeds(final Object evd)
    {
        return handler.completesInto(evd);
    }

    /**
     * A polling consumer's turn on this connection, without asking the selector first (the port
     * does this when it has only a few connections): carry on a blocked send, read what arrived.
     * Returns how much work was done.
     */
    int pollDirect()
    {
        int work = 0;
        if ((wanted & SelectionKey.OP_WRITE) != 0)
        {
            transmit();
            work++;
        }
        if (state != DONE && (wanted & SelectionKey.OP_READ) != 0)
        {
            work += receive();
        }
        if (state != DONE && wantTransmit)
        {
            wantTransmit = false;
            transmit();
        }
        return work;
    }

    @Override
    void selected(final int readyOps)
    {
        if ((readyOps & SelectionKey.OP_WRITE) != 0)
        {
            transmit();
        }
        if (state != DONE && (readyOps & SelectionKey.OP_READ) != 0)
        {
            receive();
        }
        if (state != DONE && wantTransmit)
        {
            wantTransmit = false;
            transmit();
        }
    }

    @Override
    void tick(final long now)
    {
        switch (state)
        {
            case OPEN ->
            {
                if (watch.dead(now, tx != null && !tx.isEmpty(), written))
                {
                    FlightEvents.peerDeath("tcp", this, "no progress or answer for liveness_ms");
                    finish(CloseReason.BROKEN);
                }
                else
                {
                    if (!txOpen && !active && !awaitRtr && now - holdUntil >= 0)
                    {
                        // the initiator stayed silent for responder_wait_ms: it took our Reply long ago
                        txOpen = true;
                    }
                    if (txOpen && !outbound.isEmpty())
                    {
                        // messages posted without a flush, or held for the initiator
                        transmit();
                    }
                }
                if (state == OPEN && watch.wantsLook(now, written))
                {
                    // the peer was silent for a while and we sent since: are our bytes acknowledged?
                    port.lookAtKernelQueue(this);
                }
            }
            case CLOSING ->
            {
                if (now - deadline >= 0)
                {
                    finish(CloseReason.LOCAL_CLOSE);
                }
            }
            case LINGER ->
            {
                if (now - deadline >= 0)
                {
                    finish(null);
                }
            }
            default ->
            {
                // done
            }
        }
    }

    String[] kernelKeys()
    {
        return watch.kernelKeys();
    }

    /** What the kernel holds of ours unacknowledged ({@link PeerWatch#kernelQueue}). */
    void kernelQueue(final long queued, final long now)
    {
        if (state == OPEN && watch.kernelQueue(queued, now, written))
        {
            FlightEvents.peerDeath("tcp", this, "silent, and none of our bytes acknowledged for liveness_ms");
            finish(CloseReason.BROKEN);
        }
    }

    // ---------------------------------------------------------------- receiving

    /** Reads and delivers what the socket has; returns how many bytes were read. */
    private int receive()
    {
        try
        {
            return receiveInto();
        }
        finally
        {
            // whatever this connection still needs was moved to its own buffer
            port.rxShared.clear();
        }
    }

    private int receiveInto()
    {
        int total = 0;
        for (int i = 0; i < READ_BUDGET; i++)
        {
            final ByteBuffer b = rx != null ? rx : port.rxShared;
            final long n;
            try
            {
                n = direct.read(b);
            }
            catch (final IOException e)
            {
                // a reset, or keepalive gave up on the peer
                finish(state == LINGER ? null : CloseReason.BROKEN);
                return total;
            }
            if (n < 0)
            {
                endOfStream();
                return total;
            }
            if (n == 0)
            {
                if (direct.abandoned())
                {
                    // the engine closed in the middle of a placed payload: what follows is dropped
                    rxStopped = true;
                }
                return total;
            }
            total += (int) n;
            watch.received(n);
            // a read that did not fill what it offered emptied the socket: deliver and stop
            // rather than pay for a read that finds nothing before the consumer sees the event
            final boolean drained = direct.drained(n);
            if (rxStopped || state == LINGER)
            {
                b.clear();
                if (drained)
                {
                    return total;
                }
                continue;
            }
            if (direct.active())
            {
                // the payload is still coming straight into its memory; nothing was buffered
                if (drained)
                {
                    return total;
                }
                continue;
            }
            b.flip();
            final FpduDecoder.Status s = decoder.decode(b, inbound);
            if (state == DONE)
            {
                return total;
            }
            if (s == FpduDecoder.Status.NEED_MORE && state != DONE && !rxStopped)
            {
                direct.start(b);
            }
            keepRest(b);
            switch (s)
            {
                case NEED_MORE ->
                {
                    // every complete FPDU was delivered
                }
                case HANDLER_STOPPED ->
                {
                    // the engine rejected a segment and queued its Terminate, or we stopped it
                    rxStopped = true;
                    if (rxError != null)
                    {
                        protocolError(rxError);
                    }
                }
                case PROTOCOL_ERROR ->
                {
                    rxStopped = true;
                    protocolError(decoder.terminateInfo());
                }
                case TERMINATE_RECEIVED ->
                {
                    rxStopped = true;
                    finish(CloseReason.BROKEN);
                }
            }
            if (state == DONE || drained)
            {
                return total;
            }
        }
        return total;
    }

    /** After decoding {@code b}: an FPDU cut at its end stays in this connection's own buffer. */
    private void keepRest(final ByteBuffer b)
    {
        if (b != rx)
        {
            if (b.hasRemaining())
            {
                rx = port.borrowRx();
                rx.put(b);
            }
            b.clear();
        }
        else if (b.hasRemaining())
        {
            b.compact();
        }
        else
        {
            rx = null;
            port.returnRx(b);
        }
    }

    private void endOfStream()
    {
        switch (state)
        {
            case LINGER -> finish(null);
            case CLOSING -> finish(CloseReason.LOCAL_CLOSE);
            default -> finish((rx != null && rx.position() > 0 || direct.active() || decoder.insideFpdu()) && !rxStopped
                // the stream ended inside an FPDU: the peer did not close, it went
                ? CloseReason.BROKEN : CloseReason.PEER_CLOSED);
        }
    }

    /** An FPDU broke the protocol: nothing of it was delivered; Terminate, and the connection breaks. */
    private void protocolError(final TerminateInfo info)
    {
        if (state != OPEN)
        {
            finish(state == LINGER ? null : CloseReason.BROKEN);
            return;
        }
        finished = true;
        rxStopped = true;
        // what is queued will not be sent; a message cut short by the Terminate is legal
        terminate = info;
        current = null;
        closeQueued = false;
        outbound.clear();
        sent.clear();
        txOpen = true;
        tell(CloseReason.BROKEN);
        transmit();
    }

    // ---------------------------------------------------------------- sending

    private void transmit()
    {
        if (state != OPEN || !txOpen)
        {
            return;
        }
        try
        {
            while (true)
            {
                final FpduWrite b = tx != null ? tx : port.txShared;
                if (!fill(b) && b.isEmpty())
                {
                    break;
                }
                writeOut(b, b == tx);
                reap();
                if (state != OPEN)
                {
                    return;
                }
                if (!b.isEmpty())
                {
                    if (b != tx)
                    {
                        // the rest stays where it is: this connection keeps the write, the
                        // port takes another
                        tx = port.takeTxShared();
                    }
                    // the kernel's buffer is full: go on when the socket is writable (a select
                    // in progress would not see the new interest: wake it, unless consumers
                    // poll or wait, who carry the send on themselves)
                    want(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    if (!port.quiet)
                    {
                        port.wake();
                    }
                    return;
                }
                if (b == tx)
                {
                    tx = null;
                    port.returnTx(b);
                }
            }
        }
        catch (final IOException e)
        {
            finish(CloseReason.BROKEN);
            return;
        }
        finally
        {
            // whatever this connection still has to send was moved to its own buffer
            port.txShared.clear();
        }
        if (terminateEncoded)
        {
            afterTerminate();
            return;
        }
        if (closeQueued)
        {
            // RFC 5040 orderly close: the LLP stream ends after the last message
            shutdownOutput();
            state = CLOSING;
            finished = true;
            deadline = System.nanoTime() + port.transport.closeTimeoutNanos;
        }
        want(SelectionKey.OP_READ);
    }

    /** Encodes queued messages into {@code tx} while they fit; true if anything was added. */
    private boolean fill(final FpduWrite tx)
    {
        final long start = tx.remaining();
        while (terminate == null && !closeQueued)
        {
            if (current == null)
            {
                final Object m = outbound.poll();
                if (m == null)
                {
                    break;
                }
                if (m instanceof TerminateInfo t)
                {
                    terminate = t;
                    break;
                }
                if (OutboundQueue.isClose(m))
                {
                    closeQueued = true;
                    break;
                }
                current = (OutboundMessage) m;
                encoder.begin(current);
                if (current.opcode() == RdmapOpcode.RDMA_READ_REQUEST)
                {
                    watch.readIssued();
                }
            }
            if (!encoder.encode(tx))
            {
                break;
            }
            sent.add(current, written + tx.remaining());
            current = null;
        }
        if (terminate != null && !terminateEncoded)
        {
            terminateEncoded = encoder.encodeTerminate(tx, terminate);
        }
        return tx.remaining() != start;
    }

    /**
     * Writes what the kernel takes of {@code b}; {@code blocked}: it holds bytes an earlier write
     * left. The liveness clock ({@link PeerWatch#sendProgress}) matters only while bytes wait, so it
     * is read only when some are left: when the send blocks now, or a blocked one moved (a message
     * that leaves whole, the usual case, reads no clock).
     */
    private void writeOut(final FpduWrite b, final boolean blocked) throws IOException
    {
        final long n = b.writeTo(sock);
        if (n > 0)
        {
            written += n;
        }
        if ((n > 0 || !blocked) && !b.isEmpty())
        {
            watch.sendProgress(System.nanoTime());
        }
    }

    /** Reports the messages whose last byte the kernel took, in post order. */
    private void reap()
    {
        OutboundMessage m;
        while ((m = sent.takeReached(written)) != null)
        {
            if (m != RTR && !aborted)
            {
                handler.onSent(m);
            }
            if (state != OPEN)
            {
                return;
            }
        }
    }

    /** The Terminate left: FIN, the engine hears BROKEN, and the socket drains until the peer closes. */
    private void afterTerminate()
    {
        shutdownOutput();
        state = LINGER;
        finished = true;
        deadline = System.nanoTime() + port.transport.closeTimeoutNanos;
        outbound.clear();
        sent.clear();
        want(SelectionKey.OP_READ);
        tell(CloseReason.BROKEN);
    }

    private void shutdownOutput()
    {
        try
        {
            sock.shutdownOutput();
        }
        catch (final IOException e)
        {
            // the peer is gone already; the end is noticed on the next read
        }
    }

    // ---------------------------------------------------------------- the end

    /** Tells the engine once (never after an abort). */
    private void tell(final CloseReason reason)
    {
        if (!told)
        {
            told = true;
            if (!aborted)
            {
                handler.onClosed(reason);
            }
        }
    }

    /** Closes the socket and leaves the port; tells the engine {@code reason} unless null. Under the progress lock. */
    private void finish(final CloseReason reason)
    {
        if (state == DONE)
        {
            return;
        }
        state = DONE;
        finished = true;
        rx = null;
        tx = null;
        direct.clear();
        port.remove(this);
        port.consumers.unregisterForPolling(this);
        Sockets.close(sock);
        port.consumers.released();
        outbound.clear();
        current = null;
        sent.clear();
        if (reason != null)
        {
            tell(reason);
        }
    }

    @Override
    void failed()
    {
        finish(CloseReason.BROKEN);
    }

    @Override
    void shutdown()
    {
        finished = true;
        Sockets.close(sock);
    }

    @Override
    public String toString()
    {
        return "TcpChannel[" + (active ? "active" : "passive") + ", " + sock + (finished ? ", closed" : "") + "]";
    }

    /**
     * The engine's handler behind the startup rules: the responder's first FPDU opens its sending
     * side, a ready-to-receive message is consumed here, and nothing is delivered after an abort.
     */
    private final class Inbound implements ChannelHandler
    {
        private boolean admit()
        {
            if (aborted)
            {
                return false;
            }
            if (awaitRtr)
            {
                // RFC 6581: the initiator agreed to send a zero-length RDMA Write first
                rxError = Mpa.TERMINATE_NO_MATCHING_RTR;
                return false;
            }
            if (!txOpen)
            {
                openTx();
            }
            return true;
        }

        private void openTx()
        {
            txOpen = true;
            wantTransmit = true;
        }

        @Override
        public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
            final MemorySegment src, final long off, final int len)
        {
            return admit() && handler.onSend(msn, mo, last, solicited, src, off, len);
        }

        @Override
        public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            if (awaitRtr && !aborted && len == 0 && last)
            {
                awaitRtr = false;
                openTx();
                return true;
            }
            return admit() && handler.onWrite(stag, to, last, src, off, len);
        }

        @Override
        public boolean writeTarget(final int stag, final long to, final int len, final TaggedTarget into)
        {
            return mayPlaceDirectly() && handler.writeTarget(stag, to, len, into) && readable(into);
        }

        @Override
        public boolean sendTarget(final int msn, final int mo, final int len, final TaggedTarget into)
        {
            return mayPlaceDirectly() && handler.sendTarget(msn, mo, len, into) && readable(into);
        }

        /**
         * Whether a payload may be read straight into the engine's memory: not once aborted, nor
         * before the ready-to-receive message (the copying path, onWrite or onSend, says so).
         */
        private boolean mayPlaceDirectly()
        {
            if (aborted || awaitRtr)
            {
                return false;
            }
            if (!txOpen)
            {
                openTx();
            }
            return true;
        }

        /**
         * Sockets read into native, writable memory only; anything else is placed by copying. A
         * target that may be written is returned inside the placement claim (the reader leaves
         * it), and none once the engine closed.
         */
        private boolean readable(final TaggedTarget into)
        {
            if (into.memory.isNative() && !into.memory.isReadOnly() && claim.enter())
            {
                return true;
            }
            into.memory = null;
            return false;
        }

        @Override
        public boolean readResponseTarget(final int stag, final long to, final boolean last, final int len,
            final TaggedTarget into)
        {
            if (aborted || awaitRtr)
            {
                return false;
            }
            if (!txOpen)
            {
                openTx();
            }
            return handler.readResponseTarget(stag, to, last, len, into) && readable(into);
        }

        @Override
        public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo, final int size,
            final int srcStag, final long srcTo)
        {
            return admit() && handler.onReadRequest(msn, sinkStag, sinkTo, size, srcStag, srcTo);
        }

        @Override
        public boolean onReadResponse(final int stag, final long to, final boolean last, final MemorySegment src,
            final long off, final int len)
        {
            if (last)
            {
                watch.readAnswered();
            }
            return admit() && handler.onReadResponse(stag, to, last, src, off, len);
        }

        @Override
        public void onTerminate(final TerminateInfo info)
        {
            if (!aborted)
            {
                handler.onTerminate(info);
            }
        }

        @Override
        public void onSent(final OutboundMessage message)
        {
            throw new IllegalStateException("the decoder reports no sent messages");
        }

        @Override
        public void onClosed(final CloseReason reason)
        {
            throw new IllegalStateException("the decoder reports no closes");
        }
    }
}

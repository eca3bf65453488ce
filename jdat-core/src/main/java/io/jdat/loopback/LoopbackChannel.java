package io.jdat.loopback;

import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jctools.queues.atomic.MpscChunkedAtomicArrayQueue;

/**
 * One end of a loopback connection. Messages posted here wait in a lock-free queue; whoever
 * calls {@link #flush()} first (the poster, usually) delivers them, in order, to the other end's
 * handler: the bytes go straight from the sender's registered memory to the receiver's engine,
 * which validates and places them, and then this end's handler hears that the message was sent.
 * Exactly one thread delivers at a time; a thread that finds another one delivering leaves its
 * messages to it. A thread delivers on one end of a connection at a time: what a delivery
 * provokes (a reply, a Read Response, a Terminate) waits until that delivery has returned, and
 * the thread then delivers it, in turn with the other direction, until both are quiet.
 */
final class LoopbackChannel implements Channel
{
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);
    /** Segment payloads are delivered in pieces of at most this many bytes (the int of the SPI). */
    private static final long MAX_PIECE = 1L << 30;
    private static final Object CLOSE = new Object();
    private static final VarHandle DELIVERER;

    static
    {
        try
        {
            DELIVERER = MethodHandles.lookup().findVarHandle(LoopbackChannel.class, "deliverer", Object.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private record Terminate(TerminateInfo info)
    {
    }

    final LoopbackLink link;
    final ChannelHandler handler;
    LoopbackChannel peer;
    private final MpscChunkedAtomicArrayQueue<Object> outbound = new MpscChunkedAtomicArrayQueue<>(256, 1 << 24);
    /**
     * Who delivers at this end: null or the thread draining the queue. Taken by compare-and-set,
     * never waited for. A poster placing its own Send ({@link #sendNow}) does not take it: its
     * endpoint's lock keeps the queue from growing, and it places only when the queue is empty
     * and nobody delivers.
     */
    private volatile Object deliverer;
    /** This end's handler knows the connection is up: the peer may deliver to it. */
    private volatile boolean ready;
    /** The link closed before this end was ready: what its handler hears once it is (guarded by this). */
    private CloseReason closedBeforeReady;
    /**
     * While this end is being delivered: the delivering thread queued messages (at either end)
     * that it must deliver once this delivery returns. Guarded by {@link #deliverer}.
     */
    private boolean provoked;
    /** The thread delivering a message of this end until it has reported it sent, else null. */
    private volatile Thread reporting;

    LoopbackChannel(final LoopbackLink link, final ChannelHandler handler)
    {
        this.link = link;
        this.handler = handler;
    }

    void ready()
    {
        final CloseReason late;
        synchronized (this)
        {
            ready = true;
            late = closedBeforeReady;
            closedBeforeReady = null;
        }
        if (late != null)
        {
            handler.onClosed(late);
            return;
        }
        peer.flush();
    }

    /**
     * The link closed: this end's handler hears {@code reason} now, or, if the connection is not
     * up at this end yet, right after it is. The other end may close in the moment between its own
     * establishment and this end's; the handler here must see the connection up and then closed, as
     * the other end did, not a setup that failed.
     */
    void closed(final CloseReason reason)
    {
        synchronized (this)
        {
            if (!ready)
            {
                closedBeforeReady = reason;
                return;
            }
        }
        handler.onClosed(reason);
    }

    @Override
    public void post(final OutboundMessage message)
    {
        if (!link.isClosed())
        {
            outbound.offer(message);
        }
    }

    /**
     * The sender's thread places its own Send or RDMA Write, with no queue between the send
     * queue and the receiver: only when nothing is queued or being delivered at this end (so the
     * message keeps its place behind what was posted before it), the thread is not delivering
     * on this connection already (what a delivery provokes waits for it), and the receiver takes
     * the whole message without a lock. No atomic of its own: the caller holds its endpoint's
     * lock with the send claim ({@link ChannelHandler#sendClaimed}), taken with the lock's
     * compare-and-set. Everything this end queues is queued under that lock, or after the
     * endpoint left CONNECTED (a close, a Terminate), when no Send reaches this; so while the
     * caller holds it the queue only shrinks, and a queue seen empty before a deliverer seen
     * absent (a deliverer takes its word before it takes a message) means no message of this end
     * is on its way. A deliverer that starts after the look finds the queue empty.
     */
    @Override
    public boolean sendNow(final int opcode, final int msn, final int stag, final long to,
        final MemorySegment memory, final long offset, final long length)
    {
        final Thread me = Thread.currentThread();
        // the claim came before these looks: a close either sees it and waits for it
        // (awaitReported here, the receiver's awaitPlacing at the other end), or came first and is
        // seen here or by the receiver's placement
        if (length > MAX_PIECE || !peer.ready || peer.deliverer == me || !outbound.isEmpty() || deliverer != null
            || link.isClosed())
        {
            return false;
        }
        final MemorySegment mem = memory == null ? EMPTY : memory;
        final int len = (int) length;
        return switch (opcode)
        {
            case RdmapOpcode.SEND -> peer.handler.placeSendNow(msn, false, mem, offset, len);
            case RdmapOpcode.SEND_WITH_SE -> peer.handler.placeSendNow(msn, true, mem, offset, len);
            case RdmapOpcode.RDMA_WRITE -> peer.handler.placeWriteNow(stag, to, mem, offset, len);
            default -> false;
        };
    }

    @Override
    public void flush()
    {
        final Thread me = Thread.currentThread();
        if (deliverer == me)
        {
            // this thread is delivering on this connection: what was queued goes when that delivery
            // returns, so a message is reported sent before anything its receiver posted in reply
            // is delivered (a Read Response frees its IRD slot before the next Read Request arrives)
            provoked = true;
            return;
        }
        if (peer.deliverer == me)
        {
            peer.provoked = true;
            return;
        }
        // this end, then the other end only if delivering here queued something there (a Read
        // Response, a Terminate), and so on until a delivery provokes nothing. Messages another
        // thread posted at the other end are that thread's to deliver (or the deliverer's there,
        // who looks again after letting go): not looking at that end's queue on every message
        // keeps its cache line with the thread that writes it.
        LoopbackChannel ch = this;
        while (ch.deliverQueued())
        {
            ch = ch.peer;
        }
    }

    /**
     * Delivers what is queued at this end; true if the delivery provoked messages this thread
     * must deliver next at the other end (or the peer rejected one: its Terminate comes next),
     * false if not, if there was nothing, or if another thread delivers it.
     */
    private boolean deliverQueued()
    {
        boolean other = false;
        while (!outbound.isEmpty() && peer.ready && !link.isClosed())
        {
            if (!DELIVERER.compareAndSet(this, null, Thread.currentThread()))
            {
                // the thread delivering will see our messages: it re-checks after letting go
                return other;
            }
            final boolean accepted;
            try
            {
                accepted = deliverAll();
            }
            finally
            {
                if (provoked)
                {
                    // queued during the delivery: at this end the loop takes it, at the other the caller
                    provoked = false;
                    other = true;
                }
                // a volatile store: the loop's next look at the queue must come after it, or a
                // message queued by a thread that found this end taken could wait forever
                deliverer = null;
            }
            if (!accepted)
            {
                return true;
            }
        }
        return other;
    }

    /** Delivers the queue in order; false if the peer rejected a message. */
    private boolean deliverAll()
    {
        Object m;
        while (!link.isClosed() && (m = outbound.poll()) != null)
        {
            if (m == CLOSE)
            {
                link.close(this, CloseReason.LOCAL_CLOSE, CloseReason.PEER_CLOSED);
                return true;
            }
            if (m instanceof Terminate t)
            {
                peer.handler.onTerminate(t.info());
                link.close(this, CloseReason.BROKEN, CloseReason.BROKEN);
                return true;
            }
            final OutboundMessage om = (OutboundMessage) m;
            if (om.opcode() == RdmapOpcode.RDMA_READ_RESPONSE)
            {
                if (!deliverReadResponse(om))
                {
                    return false;
                }
                continue;
            }
            reporting = Thread.currentThread();
            try
            {
                if (!deliver(om))
                {
                    // the peer rejected it and is terminating the connection
                    return false;
                }
                handler.onSent(om);
            }
            finally
            {
                reporting = null;
            }
        }
        return true;
    }

    /**
     * Waits while another thread is between delivering a message of this end and reporting it
     * sent, or holds this end's send claim ({@link #sendNow}, whose caller records it sent). The
     * peer may already have acted on the message, and closed the connection in reply; the
     * sender must still hear that it was sent before it hears of the close, or its request
     * would complete flushed although the peer got it (a network transport reports a message
     * sent before the peer can see it).
     */
    void awaitReported()
    {
        Thread t;
        final Thread me = Thread.currentThread();
        while ((t = reporting) != null && t != me || handler.sendClaimed(me.threadId()))
        {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
    }

    /**
     * The receiving side's close: waits while the peer's poster holds its send claim and may
     * place a message into this end's handler ({@link #sendNow}). The handler marked itself
     * closed before (a volatile store), and the poster took the claim with a compare-and-set
     * before it looks at that mark: at least one sees the other. Only the claim, not a draining
     * deliverer, which may be waiting for the lock the caller holds.
     */
    @Override
    public void awaitPlacing()
    {
        final long self = Thread.currentThread().threadId();
        int spins = 0;
        while (peer.handler.sendClaimed(self))
        {
            // a placement is a copy and a completion: short, but its thread may need this core
            if ((++spins & 0xFF) == 0)
            {
                Thread.yield();
            }
            Thread.onSpinWait();
        }
    }

    /**
     * A Read Response leaves the responder before the requester places it, as on a wire: the
     * responder hears first that it was sent (its IRD slot is free again), then its bytes, taken
     * before, reach the requester. The other way round, the requester could issue its next Read
     * on the credit this response returns, from another thread, before the slot was free.
     */
    private boolean deliverReadResponse(final OutboundMessage m)
    {
        final int stag = m.stag();
        final long to = m.to();
        final long len = m.payloadLength();
        final MemorySegment mem = len == 0 ? EMPTY : m.payloadMemory(0);
        final long off = len == 0 ? 0 : m.payloadOffset(0);
        handler.onSent(m);
        final ChannelHandler requester = peer.handler;
        long done = 0;
        do
        {
            final int piece = (int) Math.min(len - done, MAX_PIECE);
            if (!requester.onReadResponse(stag, to + done, done + piece == len, mem, off + done, piece))
            {
                return false;
            }
            done += piece;
        }
        while (done < len);
        return true;
    }

    private boolean deliver(final OutboundMessage m)
    {
        final ChannelHandler to = peer.handler;
        final int opcode = m.opcode();
        if (opcode == RdmapOpcode.RDMA_READ_REQUEST)
        {
            return to.onReadRequest(m.msn(), m.stag(), m.to(), m.readSize(), m.srcStag(), m.srcTo());
        }
        final int n = m.payloadSegments();
        if (n == 0)
        {
            return segment(to, m, opcode, 0, true, EMPTY, 0, 0);
        }
        long at = 0;
        for (int i = 0; i < n; i++)
        {
            final MemorySegment mem = m.payloadMemory(i);
            final long off = m.payloadOffset(i);
            final long len = m.payloadLength(i);
            long done = 0;
            do
            {
                final int piece = (int) Math.min(len - done, MAX_PIECE);
                final boolean last = i == n - 1 && done + piece == len;
                if (!segment(to, m, opcode, at, last, mem, off + done, piece))
                {
                    return false;
                }
                done += piece;
                at += piece;
            }
            while (done < len);
        }
        return true;
    }

    private static boolean segment(final ChannelHandler to, final OutboundMessage m, final int opcode, final long at,
        final boolean last, final MemorySegment mem, final long off, final int len)
    {
        return switch (opcode)
        {
            case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE -> to.onSend(m.msn(), (int) at, last,
                opcode == RdmapOpcode.SEND_WITH_SE, mem, off, len);
            case RdmapOpcode.RDMA_WRITE -> to.onWrite(m.stag(), m.to() + at, last, mem, off, len);
            case RdmapOpcode.RDMA_READ_RESPONSE -> to.onReadResponse(m.stag(), m.to() + at, last, mem, off, len);
            default -> throw new IllegalArgumentException("opcode " + opcode);
        };
    }

    @Override
    public int maxSegmentPayload()
    {
        return (int) MAX_PIECE;
    }

    @Override
    public boolean sentMeansPlaced()
    {
        return true;
    }

    @Override
    public void terminate(final TerminateInfo info)
    {
        if (!link.isClosed())
        {
            outbound.offer(new Terminate(info));
            flushForClose(CloseReason.BROKEN, CloseReason.BROKEN);
        }
    }

    @Override
    public void disconnect()
    {
        if (!link.isClosed())
        {
            outbound.offer(CLOSE);
            flushForClose(CloseReason.LOCAL_CLOSE, CloseReason.PEER_CLOSED);
        }
    }

    /**
     * A close marker must be delivered even if the peer never became ready (it cannot wait for
     * a handler that is not there).
     */
    private void flushForClose(final CloseReason here, final CloseReason there)
    {
        if (peer.ready)
        {
            flush();
            return;
        }
        link.close(this, here, there);
    }

    @Override
    public void abort()
    {
        link.close(this, null, CloseReason.PEER_CLOSED);
    }

    @Override
    public String toString()
    {
        return "LoopbackChannel[" + (link.isClosed() ? "closed" : "open") + "]";
    }
}

package io.jdat.shm;

import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.ChannelHandler;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.FlightEvents;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.OutboundQueue;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.SentLog;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One end of an established {@code shm} connection. Under {@code complete_written=true} a Send of
 * one record posted while nothing of the connection waits is written into the ring by its post
 * ({@link #sendNow}); any other post only enqueues (lock-free), and progress rounds of the port
 * then, in order: write queued messages into this side's ring as records of at most
 * {@code max_chunk} payload bytes, copied from the engine's registered memory; hand the peer's
 * records to the engine, which validates and places them (one copy, from the ring into the
 * target); report messages sent once the peer has consumed their last record, which it does only
 * after its engine placed them ({@link #sentMeansPlaced()}), except, under
 * {@code complete_written=true}, a Send of one record, which completes once written whichever
 * thread wrote it ({@link #completesWritten}); and watch the peer: its "gone" word in the file,
 * and its process.
 *
 * <p>The peer is not trusted: every record is checked before the engine sees it (see
 * {@link SpscRing} and {@link Frame}); each header field is read once; a violation sends a
 * Terminate if there is room, and breaks the connection.
 *
 * <p>Closing: a graceful {@link #disconnect()} writes a CLOSE record after the posted messages and
 * ends when the peer has consumed it; {@link #terminate} writes a Terminate and ends at once;
 * {@link #abort()} ends at once and tells the peer through its "gone" word. A peer that does not
 * make room within {@code close_timeout_ms} is dropped. The peer's "gone" word and its death are
 * acted on after what it wrote before is delivered. A live peer that stops reading breaks the
 * connection once it consumed nothing of ours for {@code stall_ms}; what it had not claimed is
 * withdrawn as in an abort, so each message reported once consumed is placed, and one not reported
 * is never placed. An abort never withdraws the record of a Send that completed once written, nor
 * anything before it ({@link #keep}): the peer delivers those before it sees the close, unless its
 * process dies or it stops reading first. A process of ours killed with no abort withdraws
 * nothing: the peer delivers every record it published.
 */
final class ShmChannel implements Channel, Work
{
    private static final int RX_BUDGET = 64;

    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int DONE = 2;

    private final ShmPort port;
    private final ConnectionFile file;
    private final boolean active;
    private final ChannelHandler handler;
    /** The peer's process, or null when it is this process (then its port tells us it closed). */
    private final ProcessHandle peer;
    private final SpscRing tx;
    private final SpscRing rx;
    private final MemorySegment txData;
    private final MemorySegment rxData;
    private final int maxChunk;
    private final boolean completeWritten;
    private final OutboundQueue outbound = new OutboundQueue();
    private volatile boolean finished;
    private volatile boolean abortRequested;
    private volatile boolean closeRequested;
    private volatile boolean terminateRequested;

    // the fields below belong to progress rounds (the port's progress lock)
    private int state = OPEN;
    /** The message being written ({@link #writer} knows how far). */
    private Object current;
    private final RecordWriter writer;
    /** The peer's shared memories this side mapped (read only) for its direct records. */
    private final PeerMemories peerMemories;
    /** Messages written and not yet consumed by the peer, with the ring position after each. */
    private final SentLog sent = new SentLog();
    /**
     * The ring position after the last record of a message reported complete once written: an
     * abort never withdraws what lies before it ({@link SpscRing#withdraw(long)}).
     */
    private long keep;
    private long closeEnd;
    private long closeDeadline;
    /** The peer's consumed position when last seen to move, and when, while records of ours wait. */
    private long stallHead;
    private long stallSince;
    private boolean stallWatched;
    /**
     * The inbound ring's consumer: the fields below it and the ring's consumer side belong to the
     * thread that holds it (a round, or the consumer's own read, {@link #receiveOwn()}).
     */
    private final RingClaim inbound = new RingClaim();
    private boolean rxStopped;
    /** Records placed by the consumer's own reads (a counter for tests and attributes). */
    private long ownReads;
    /** What the consumer's own read found wrong, for the next round to break the connection with. */
    private volatile TerminateInfo rxFailure;
    /** The I/O thread found the peer's process gone ({@link #watchPeer()}); a full round acts on it. */
    private volatile boolean peerDead;
    /** The port closes: no callback into the engine any more. */
    private volatile boolean shuttingDown;

    ShmChannel(final ShmPort port, final ConnectionFile file, final boolean active, final ChannelHandler handler,
        final ProcessHandle peer)
    {
        this.port = port;
        this.file = file;
        this.active = active;
        this.handler = handler;
        this.peer = peer;
        this.tx = file.ring(active);
        this.rx = file.ring(!active);
        this.txData = tx.data();
        this.rxData = rx.data();
        this.maxChunk = port.transport.maxChunk;
        this.peerMemories = new PeerMemories(port.transport.root);
        this.completeWritten = port.transport.completeWritten;
        this.writer = new RecordWriter(port, tx);
    }

    // ---------------------------------------------------------------- Channel

    @Override
    public void post(final OutboundMessage message)
    {
        if (!finished && !abortRequested)
        {
            outbound.offer(message);
        }
    }

    /**
     * A Send written into the ring by the posting thread as one record and published, with no
     * trip through the outbound queue and no wake of the I/O thread: when nothing of this
     * connection waits to be written (so order holds), the progress lock is free at once, the
     * Send fits one record and the ring has room. Anything else
     * returns false, having written nothing, and the engine posts the message the usual way.
     *
     * <p>What the completion means: true makes the engine report the DTO complete at once, with
     * the record in the ring; the same Send queued instead completes as soon as a round wrote it
     * ({@link #completesWritten}), so the meaning does not depend on the way it went. The
     * payload's bytes are copied, so the local buffer may be reused; that is all a DAT send
     * completion promises (as on tcp: the bytes left this side). It does not say that the peer
     * placed it: a peer that rejects it (no receive posted, or one too small) breaks the
     * connection after the completion. An abrupt close does not take it back: it withdraws only
     * what follows the last such record ({@link SpscRing#withdraw(long)}), so a peer that goes on
     * reading receives it. With {@code complete_written=false} every message waits for the peer.
     * An RDMA Write always does: its completion keeps telling a protection fault at the target
     * ({@code DAT_DTO_ERR_REMOTE_ACCESS}), as loopback's does.
     */
    @Override
    public boolean sendNow(final int opcode, final int msn, final int stag, final long to,
        final MemorySegment memory, final long offset, final long length)
    {
        // the same messages a round completes once written: so the meaning is the same both ways
        if (!completesWritten(opcode, length, 1) || finished || abortRequested || closeRequested
            || !outbound.isEmpty() || port.progress.isHeldByCurrentThread() || !port.progress.tryLock())
        {
            return false;
        }
        try
        {
            if (state != OPEN || current != null || !outbound.isEmpty())
            {
                return false;
            }
            final int len = (int) length;
            final int header = Frame.headerLength(opcode, 0);
            final long at = tx.claim(header + len);
            if (at < 0)
            {
                return false;
            }
            Frame.header(txData, at, opcode, Frame.FLAG_LAST);
            Frame.untagged(txData, at, msn, 0);
            if (len > 0)
            {
                MemorySegment.copy(memory, offset, txData, at + header, len);
            }
            tx.commit();
            keep = tx.position();
            return true;
        }
        catch (final RuntimeException | InternalError e)
        {
            // a bad head from the peer, or a mapping that failed: the message goes the usual way,
            // and the round that meets the same fault breaks the connection (not here, under the
            // sender's endpoint lock)
            port.wake();
            return false;
        }
        finally
        {
            port.progress.unlock();
        }
    }

    @Override
    public void flush()
    {
        // a round even after a post that wrote its message itself (sendNow): Sends of the queue
        // that wait to be reported sent are reaped here, or the request queue fills up. A quiet
        // channel has nothing for a round to do; taking the lock for nothing cost the posting
        // thread two more fenced instructions per Send (docs/perf.md, "Thirty-second step")
        if (!finished && !quiet())
        {
            port.flush(this);
        }
    }

    boolean hasQueued()
    {
        return !finished && !outbound.isEmpty();
    }

    @Override
    public int maxSegmentPayload()
    {
        return maxChunk;
    }

    @Override
    public boolean sentMeansPlaced()
    {
        return true;
    }

    @Override
    public void terminate(final TerminateInfo info)
    {
        if (!finished)
        {
            terminateRequested = true;
            closeRequested = true;
            outbound.offerTerminate(info);
            port.flush(this);
        }
    }

    @Override
    public void disconnect()
    {
        if (!finished)
        {
            closeRequested = true;
            outbound.offerClose();
            port.flush(this);
        }
    }

    /**
     * Ends at once, with what the peer has told apart from what it has not: messages whose records
     * it claimed, or that lie before the last record of a Send already reported complete
     * ({@link #keep}), are reported sent (on this thread, before this returns), since the peer
     * delivers them; the rest of the ring is withdrawn so that the peer never delivers it
     * ({@link SpscRing#withdraw(long)}), and the engine flushes what it still holds. Waits for a
     * progress round under way. Inside a round or the consumer's own read of the ring (the engine
     * ending the connection in a callback) the next round ends it: withdrawn too, but messages the
     * peer consumed since the last report are flushed.
     */
    @Override
    public void abort()
    {
        abortRequested = true;
        if (finished || port.progress.isHeldByCurrentThread() || inbound.heldByCurrentThread())
        {
            port.wake();
            return;
        }
        port.progress.lock();
        try
        {
            finish(null, ConnectionFile.GONE_ABORTED);
        }
        finally
        {
            port.progress.unlock();
        }
    }

    // ---------------------------------------------------------------- progress

    /**
     * Nothing to write, nothing published by the peer, nothing of ours newly consumed, and no
     * close under way (the periodic checks, liveness and deadlines, wait for a full round).
     */
    @Override
    public boolean quiet()
    {
        return !finished && state == OPEN && !abortRequested && !closeRequested && current == null && outbound.isEmpty()
            && rxFailure == null && !rx.published() && (sent.isEmpty() || !tx.headMoved());
    }

    /**
     * Before a thread of the port sleeps: asks the peer to wake it when it publishes into the
     * receive ring and, while messages of ours wait to be reported sent, when it consumes from the
     * send ring; adds the two futex words to {@code s} from entry {@code i}. Returns the next free
     * entry, or -1 when there is work after all. Progress lock held.
     */
    @Override
    public int arm(final Futex.Sleep s, final int i)
    {
        if (!quiet())
        {
            return -1;
        }
        int n = i;
        final int rxSeen = rx.armConsumer();
        if (rx.published())
        {
            return -1;
        }
        Futex.set(s.waiters, n++, rx.tailWord(), rxSeen);
        if (!sent.isEmpty())
        {
            final int txSeen = tx.armProducer();
            if (tx.headMoved())
            {
                return -1;
            }
            Futex.set(s.waiters, n++, tx.headWord(), txSeen);
        }
        return n;
    }

    @Override
    public void disarm()
    {
        if (!finished)
        {
            rx.disarm(true);
            tx.disarm(false);
        }
    }

    /** Wake calls this side made for the peer, both rings. */
    long wakes()
    {
        return rx.wakes() + tx.wakes();
    }

    @Override
    public int progress(final long now)
    {
        return step(now, true);
    }

    /**
     * A step on the posting thread ({@link ShmPort#flush}) or in a polling consumer's round
     * between full ones: writes what was posted, and takes in and reports what the peer did
     * meanwhile, but leaves the peer's process, its gone word and the deadlines to the port's
     * full rounds, which read the clock.
     */
    @Override
    public int move()
    {
        return step(0, false);
    }

    private int step(final long now, final boolean watch)
    {
        if (state == DONE)
        {
            return 0;
        }
        if (abortRequested)
        {
            finish(null, ConnectionFile.GONE_ABORTED);
            return 1;
        }
        final TerminateInfo failed = rxFailure;
        if (failed != null)
        {
            broken(failed);
            return 1;
        }
        try
        {
            int n = transmit();
            if (state != DONE && inbound.take())
            {
                // a consumer reading its own ring holds it: the records are its, or the next round's
                try
                {
                    n += receive(RX_BUDGET, Long.MAX_VALUE, false);
                }
                finally
                {
                    inbound.release();
                }
            }
            if (state != DONE)
            {
                n += reap();
            }
            if (watch && state != DONE)
            {
                n += watch(now);
            }
            return n;
        }
        catch (final Corrupt e)
        {
            broken(e.info);
            return 1;
        }
        catch (final RuntimeException | InternalError e)
        {
            // a closed or faulting mapping (a peer that shrank the file), or an engine failure
            broken(TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_LOCAL_CATASTROPHIC));
            return 1;
        }
    }

    /** Writes queued messages into the ring while there is room. */
    private int transmit()
    {
        int n = 0;
        while (state != DONE)
        {
            Object m = current;
            if (m == null)
            {
                m = outbound.poll();
                if (m == null)
                {
                    break;
                }
                current = m;
                writer.start(m);
            }
            if (m instanceof TerminateInfo t)
            {
                final long at = tx.claim(Frame.HEADER);
                if (at < 0)
                {
                    break;
                }
                Frame.header(txData, at, RdmapOpcode.TERMINATE, Frame.FLAG_LAST);
                Frame.terminate(txData, at, t);
                tx.commit();
                current = null;
                finish(CloseReason.BROKEN, ConnectionFile.GONE_BROKEN);
                return n + 1;
            }
            if (state == CLOSING)
            {
                // nothing but a Terminate goes after CLOSE
                current = null;
                continue;
            }
            if (OutboundQueue.isClose(m))
            {
                final long at = tx.claim(Frame.HEADER);
                if (at < 0)
                {
                    break;
                }
                Frame.header(txData, at, Frame.CLOSE, Frame.FLAG_LAST);
                tx.commit();
                closeEnd = tx.position();
                state = CLOSING;
            }
            else
            {
                final OutboundMessage om = (OutboundMessage) m;
                if (!writer.write(om))
                {
                    break;
                }
                if (completesWritten(om))
                {
                    // written: complete, as if its post had written it (sendNow); the engine
                    // reports requests in post order whatever order they come in
                    current = null;
                    keep = tx.position();
                    n++;
                    handler.onSent(om);
                    if (abortRequested)
                    {
                        return n;
                    }
                    continue;
                }
                sent.add(om, tx.position());
            }
            current = null;
            n++;
        }
        if (closeRequested && closeDeadline == 0 && state != DONE)
        {
            closeDeadline = (System.nanoTime() + port.transport.closeTimeoutNanos) | 1;
        }
        return n;
    }

    /**
     * Whether a message completes once its record is written, whichever thread wrote it: a Send
     * of one record (at most {@code max_chunk} bytes from one gather piece) under
     * {@code complete_written}, the messages {@link #sendNow} may write.
     */
    private boolean completesWritten(final OutboundMessage m)
    {
        return completesWritten(m.opcode(), m.payloadLength(), m.payloadSegments());
    }

    /** {@link #completesWritten(OutboundMessage)} of a message's opcode, length and gather pieces. */
    private boolean completesWritten(final int opcode, final long length, final int pieces)
    {
        return completeWritten && (opcode == RdmapOpcode.SEND || opcode == RdmapOpcode.SEND_WITH_SE)
            && length <= maxChunk && pieces <= 1;
    }

    /**
     * {@link ShmPort#poll(Object)} for the EVD this connection completes into: the polling
     * consumer reads the connection's inbound ring itself, under the ring's claim instead of the
     * port's progress lock and its round over every connection, and places the Sends it finds
     * straight into their receive buffers. It stops at anything else (Writes, Read Requests,
     * closes, Terminates), which the port's next round delivers, as it does everything else of
     * the connection. What it finds wrong breaks the connection in that round, as the round's own
     * read would. Returns the records delivered; 0 when nothing was published, or another thread
     * holds the ring.
     */
    int receiveOwn()
    {
        try
        {
            if (finished || rxFailure != null || !rx.published() || !inbound.take())
            {
                return 0;
            }
        }
        catch (final RuntimeException | InternalError e)
        {
            // the connection ended and its mapping went under the look: a round sorts it out
            return 0;
        }
        try
        {
            final int n = receive(RX_BUDGET, Long.MAX_VALUE, true);
            ownReads += n;
            return n;
        }
        catch (final Corrupt e)
        {
            rxFailure = e.info;
        }
        catch (final RuntimeException | InternalError e)
        {
            rxFailure = TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_LOCAL_CATASTROPHIC);
        }
        finally
        {
            inbound.release();
        }
        rxStopped = true;
        port.wake();
        return 1;
    }

    /** Whether this connection's completions or events go to {@code evd} (a hint, as the engine says). */
    boolean feeds(final Object evd)
    {
        return handler.completesInto(evd);
    }

    /** Records placed by the consumer's own reads ({@link #receiveOwn()}). */
    long ownReads()
    {
        return ownReads;
    }

    /**
     * Delivers the peer's records to the engine: at most {@code budget}, in {@code bytes} of the
     * ring; with {@code sendsOnly}, no further than the first record that is not a Send. Inbound
     * ring claimed.
     */
    private int receive(final int budget, final long bytes, final boolean sendsOnly)
    {
        if (rxStopped)
        {
            return 0;
        }
        int n = 0;
        final long start = rx.position();
        while (n < budget && rx.position() - start < bytes)
        {
            if (abortRequested)
            {
                return n;
            }
            // each field is read once: the peer may change the bytes under us
            final int length = rx.next();
            if (length == 0)
            {
                return n;
            }
            final long at = rx.readIndex();
            final long toEnd = rx.toEnd();
            final int word = rxData.get(ValueLayout.JAVA_INT, at + Frame.TYPE);
            final int type = Frame.type(word);
            if (type == Frame.PAD)
            {
                // a PAD fills the end after a record that did not fit there, so it never starts
                // at 0: one there would span the whole ring and be read again on every lap
                if (length != toEnd || at == 0)
                {
                    throw Corrupt.framing("PAD of " + length + " bytes at " + at + " where " + toEnd + " remain");
                }
                rx.consume(toEnd);
                continue;
            }
            if (sendsOnly && type != RdmapOpcode.SEND && type != RdmapOpcode.SEND_WITH_SE)
            {
                return n;
            }
            final int flags = Frame.flags(word);
            final int header = Frame.headerLength(type, flags);
            if (length < header || length > toEnd)
            {
                throw Corrupt.framing("record of " + length + " bytes (" + toEnd + " before the end)");
            }
            final int size = SpscRing.aligned(length);
            final boolean last = (flags & Frame.FLAG_LAST) != 0;
            final long payload = at + header;
            final int len = length - header;
            final boolean direct = (flags & Frame.FLAG_DIRECT) != 0;
            if (direct && (type != RdmapOpcode.RDMA_WRITE && type != RdmapOpcode.RDMA_READ_RESPONSE || len != 0))
            {
                throw Corrupt.framing("a direct record of type " + Frame.typeName(type) + " with " + len
                    + " bytes in the ring");
            }
            if (!rx.beginDelivery(size))
            {
                // the peer aborted and withdrew the rest: it counts none of it as delivered
                rxStopped = true;
                return n;
            }
            final boolean ok;
            switch (type)
            {
                case RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE -> ok = handler.onSend(
                    rxData.get(ValueLayout.JAVA_INT, at + Frame.MSN), rxData.get(ValueLayout.JAVA_INT, at + Frame.MO),
                    last, type == RdmapOpcode.SEND_WITH_SE, rxData, payload, len);
                case RdmapOpcode.RDMA_WRITE -> ok = direct ? receiveDirect(type, at, last) : handler.onWrite(
                    rxData.get(ValueLayout.JAVA_INT, at + Frame.STAG), rxData.get(ValueLayout.JAVA_LONG, at + Frame.TO),
                    last, rxData, payload, len);
                case RdmapOpcode.RDMA_READ_RESPONSE -> ok = direct ? receiveDirect(type, at, last)
                    : handler.onReadResponse(rxData.get(ValueLayout.JAVA_INT, at + Frame.STAG),
                        rxData.get(ValueLayout.JAVA_LONG, at + Frame.TO), last, rxData, payload, len);
                case RdmapOpcode.RDMA_READ_REQUEST ->
                {
                    if (len != 0)
                    {
                        throw Corrupt.framing("a Read Request with " + len + " payload bytes");
                    }
                    // The requester may issue this Read on the credit a Read Response of ours
                    // returned as soon as it placed it; it consumed that response before writing
                    // this record, so reporting what it consumed first frees the IRD slot in time.
                    if (reap() > 0 && state == DONE)
                    {
                        return n;
                    }
                    ok = handler.onReadRequest(rxData.get(ValueLayout.JAVA_INT, at + Frame.MSN),
                        rxData.get(ValueLayout.JAVA_INT, at + Frame.STAG),
                        rxData.get(ValueLayout.JAVA_LONG, at + Frame.TO),
                        rxData.get(ValueLayout.JAVA_INT, at + Frame.MO),
                        rxData.get(ValueLayout.JAVA_INT, at + Frame.SRC_STAG),
                        rxData.get(ValueLayout.JAVA_LONG, at + Frame.SRC_TO));
                }
                case RdmapOpcode.TERMINATE ->
                {
                    final TerminateInfo info = Frame.terminateInfo(rxData, at);
                    rx.consume(size);
                    // what the peer consumed before it terminated was placed: report it first
                    if (reap() > 0 && state == DONE)
                    {
                        return n + 1;
                    }
                    handler.onTerminate(info);
                    finish(CloseReason.BROKEN, ConnectionFile.GONE_BROKEN);
                    return n + 1;
                }
                case Frame.CLOSE ->
                {
                    rx.consume(size);
                    reap();
                    finish(CloseReason.PEER_CLOSED, ConnectionFile.GONE_CLOSED);
                    return n + 1;
                }
                default -> throw Corrupt.opcode("record type " + type);
            }
            if (!ok)
            {
                // the engine rejected the segment and is terminating: deliver nothing more, and
                // leave the record unconsumed, since the sender counts a consumed record as placed
                // (its message would complete with success before the Terminate arrives)
                rxStopped = true;
                return n + 1;
            }
            rx.consume(size);
            n++;
        }
        return n;
    }

    /**
     * A direct record: the payload is a range of the peer's shared memory, mapped here read only;
     * the engine validates and places it exactly as a payload in the ring. The range must lie in
     * that memory; the peer may change its bytes meanwhile, as it may change the ring's.
     */
    private boolean receiveDirect(final int type, final long at, final boolean last)
    {
        final int stag = rxData.get(ValueLayout.JAVA_INT, at + Frame.STAG);
        final long to = rxData.get(ValueLayout.JAVA_LONG, at + Frame.TO);
        final int pid = rxData.get(ValueLayout.JAVA_INT, at + Frame.MSN);
        final int seq = rxData.get(ValueLayout.JAVA_INT, at + Frame.MO);
        final int n = rxData.get(ValueLayout.JAVA_INT, at + Frame.SRC_STAG);
        final long offset = rxData.get(ValueLayout.JAVA_LONG, at + Frame.SRC_TO);
        final MemorySegment src = peerMemories.map(pid, seq);
        if (n < 0 || offset < 0 || offset > src.byteSize() - n)
        {
            throw Corrupt.framing("a direct record names " + n + " bytes at " + offset + " of shared memory of "
                + src.byteSize() + " bytes");
        }
        final boolean ok = type == RdmapOpcode.RDMA_WRITE ? handler.onWrite(stag, to, last, src, offset, n)
            : handler.onReadResponse(stag, to, last, src, offset, n);
        if (ok)
        {
            port.directReceived += n;
        }
        return ok;
    }

    /** Reports the messages whose last record the peer consumed; ends a graceful close. */
    private int reap()
    {
        if (sent.isEmpty() && state != CLOSING)
        {
            return 0;
        }
        final long consumed = tx.consumed();
        int n = 0;
        OutboundMessage m;
        while ((m = sent.takeReached(consumed)) != null)
        {
            n++;
            handler.onSent(m);
            if (abortRequested || state == DONE)
            {
                return n;
            }
        }
        if (state == CLOSING && consumed - closeEnd >= 0)
        {
            finish(CloseReason.LOCAL_CLOSE, ConnectionFile.GONE_CLOSED);
            n++;
        }
        return n;
    }

    @Override
    public void watchPeer()
    {
        if (peer != null && !finished && !peerDead && !Liveness.alive(peer))
        {
            peerDead = true;
        }
    }

    /** The peer's gone word, the peer's process (as {@link #watchPeer()} found it), and the close deadline. */
    private int watch(final long now)
    {
        final int gone = file.gone(!active);
        final boolean dead = gone == ConnectionFile.OPEN && peerDead;
        if (gone != ConnectionFile.OPEN || dead)
        {
            if (!inbound.take())
            {
                // a consumer is delivering them: the next full round ends the connection
                return 1;
            }
            // what the peer wrote before it went is visible now: deliver it first, no more than a
            // ring holds (records a hostile peer never overwrote would be read again on every lap)
            int n;
            try
            {
                n = receive(Integer.MAX_VALUE, rx.capacity(), false);
            }
            finally
            {
                inbound.release();
            }
            if (state != DONE)
            {
                n += reap();
            }
            if (dead)
            {
                FlightEvents.peerDeath("shm", this, "its process ended");
            }
            if (state != DONE)
            {
                finish(dead || gone == ConnectionFile.GONE_BROKEN ? CloseReason.BROKEN : CloseReason.PEER_CLOSED,
                    dead ? ConnectionFile.GONE_BROKEN : ConnectionFile.GONE_CLOSED);
            }
            return n + 1;
        }
        if (state == OPEN && stalled(now))
        {
            // the peer stopped reading: what it claimed is placed, the rest is taken back so
            // that it never delivers what the engine now flushes
            settle(true);
            if (state != DONE)
            {
                finish(CloseReason.BROKEN, ConnectionFile.GONE_BROKEN);
            }
            return 1;
        }
        if (closeDeadline != 0 && now - closeDeadline >= 0)
        {
            // the peer made no room for the CLOSE or the Terminate in time
            if (terminateRequested)
            {
                finish(CloseReason.BROKEN, ConnectionFile.GONE_BROKEN);
            }
            else
            {
                finish(CloseReason.LOCAL_CLOSE, ConnectionFile.GONE_ABORTED);
            }
            return 1;
        }
        return 0;
    }

    /** Whether records or messages of ours waited {@code stall_ms} with the peer consuming nothing. */
    private boolean stalled(final long now)
    {
        final boolean nothingWaits = sent.isEmpty() && current == null;
        if (nothingWaits && tx.drainedAsKnown())
        {
            // nothing waits, and the head last loaded covers every record (no load: a head the
            // peer forged is found only once a record of ours waits in the ring)
            stallWatched = false;
            return false;
        }
        final long head = tx.consumed();
        if (nothingWaits && head == tx.position())
        {
            // nothing waits: not even a Send that completed once written
            stallWatched = false;
            return false;
        }
        if (!stallWatched || head != stallHead)
        {
            stallWatched = true;
            stallHead = head;
            stallSince = now;
            return false;
        }
        return now - stallSince >= port.transport.stallNanos;
    }

    /**
     * An abort: withdraws what the peer has not claimed and, if {@code report}, reports sent
     * what it has (the engine ignores reports for a connection it already ended: an abort inside
     * a round).
     */
    private void settle(final boolean report)
    {
        final long cut;
        try
        {
            cut = tx.withdraw(keep);
        }
        catch (final RuntimeException | InternalError e)
        {
            // a wrecked or unmapped ring, or a cut moved on every try: nothing more can be told apart
            return;
        }
        OutboundMessage m;
        while (report && state != DONE && (m = sent.takeReached(cut)) != null)
        {
            handler.onSent(m);
        }
    }

    /** The peer broke the protocol: a Terminate if there is room, then the connection breaks. */
    private void broken(final TerminateInfo info)
    {
        if (state == DONE)
        {
            return;
        }
        try
        {
            final long at = tx.claim(Frame.HEADER);
            if (at >= 0)
            {
                Frame.header(txData, at, RdmapOpcode.TERMINATE, Frame.FLAG_LAST);
                Frame.terminate(txData, at, info);
                tx.commit();
            }
        }
        catch (final RuntimeException | InternalError e)
        {
            // the peer wrecked this direction too: it hears of the break through the gone word
        }
        finish(CloseReason.BROKEN, ConnectionFile.GONE_BROKEN);
    }

    /**
     * Ends this side: tells the peer ({@code gone}), leaves the port, unmaps, and tells the engine
     * ({@code reason}; none after an abort).
     */
    private void finish(final CloseReason reason, final int gone)
    {
        if (state == DONE)
        {
            return;
        }
        if (gone == ConnectionFile.GONE_ABORTED)
        {
            settle(!shuttingDown);
        }
        state = DONE;
        finished = true;
        current = null;
        sent.clear();
        try
        {
            file.markGone(active, gone);
        }
        catch (final RuntimeException | InternalError e)
        {
            // nothing more can be said through a mapping that failed
        }
        port.remove(this);
        // the file goes once no thread reads the inbound ring: now, or at the holder's release
        inbound.close(this::unmap);
        outbound.clear();
        if (reason != null && !abortRequested)
        {
            handler.onClosed(reason);
        }
    }

    private void unmap()
    {
        file.unmap();
        peerMemories.unmapAll();
    }

    @Override
    public void shutdown()
    {
        shuttingDown = true;
        abortRequested = true;
        finish(null, ConnectionFile.GONE_ABORTED);
    }

    @Override
    public String toString()
    {
        return "ShmChannel[" + file + (active ? " active" : " passive") + (finished ? ", closed" : "") + "]";
    }
}

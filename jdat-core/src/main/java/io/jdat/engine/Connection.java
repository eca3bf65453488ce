package io.jdat.engine;

import io.jdat.AsyncErrorReason;
import io.jdat.Dat;
import io.jdat.DtoStatus;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.MemPriv;
import io.jdat.engine.channel.AcceptHandler;
import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.CloseReason;
import io.jdat.engine.channel.ConnectHandler;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.PendingConnect;
import io.jdat.engine.channel.PlacementClaim;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TaggedTarget;
import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;

/**
 * One connection of an endpoint, from connect or accept to its end: the engine's half of the
 * channel. It holds what lives exactly as long as the connection (sequence numbers, RDMA Read
 * credits and descriptors, the message being received) and handles what the channel delivers:
 * every incoming segment is checked (MSN, MO, STag, PZ, rights, bounds) before a byte is placed,
 * and a violation places nothing and terminates the connection. Setup outcomes and the end of
 * the connection go to the endpoint's {@link EpStateMachine}. An endpoint that is reset and
 * reconnected gets a new connection; callbacks for an old one are ignored.
 *
 * <p>A message reported sent ({@link #onSent}) is the one callback that never waits for the
 * endpoint's lock: the channel's thread marks the message (a release store on the request or the
 * Read Response) and calls {@link EpLock#markLeft}, which takes the lock only if it is free; when
 * it is taken the holder absorbs the mark after letting go (it looks whenever anything it handed
 * to the channel is unreported), releasing, looking again and trying again, so no mark is left
 * unabsorbed. Absorbing ({@link #absorbMarks}) is what {@code onSent} did under the lock before:
 * requests complete from the head of the request queue only, so in post order; Read Responses go
 * back to the pool (and a Read Request first takes back the reported ones, so a credit the peer
 * saw returned is free here too); a graceful disconnect waiting for the queue to drain starts.
 * A flush and a Terminate's culprit take in a mark where they look at a request, so a message
 * reported before the connection ended counts as sent, as before; after it ended
 * ({@code ep.conn != this || closed}) a report changes nothing.
 */
final class Connection extends ConnectionWords implements ConnectHandler, AcceptHandler
{
    final EpImpl ep;
    final boolean active;

    // the fields below are guarded by ep.lock unless marked volatile
    volatile Channel channel;
    volatile PendingConnect pending;
    ScheduledFuture<?> timer;
    /** Set once the connection ended (or the attempt failed); nothing is delivered after. */
    volatile boolean closed;
    boolean established;
    /** Set once a graceful close was handed to the channel. */
    boolean disconnecting;

    /** Negotiated RDMA Read limits: reads served at once, reads outstanding at once. */
    int ird;
    int ord;
    /** Inbound: the next Read Request MSN expected (Sends: {@link ConnectionWords}, as the outbound MSNs). */
    int expectedReadMsn = 1;

    final ArrayDeque<ReadOp> freeReads = new ArrayDeque<>();
    final ArrayDeque<ReadOp> outstandingReads = new ArrayDeque<>();
    final ArrayDeque<ReadResponse> freeResponses = new ArrayDeque<>();
    /** The Read Responses handed to the channel and not yet taken back, in post order. */
    private final ArrayDeque<ReadResponse> postedResponses = new ArrayDeque<>();
    int inboundReads;

    /**
     * Taken by a Send placed without the endpoint's lock ({@link #placeSend}) from
     * {@link #onSend}, so that {@link #close} waits for it. A Send placed through
     * {@link #placeSendNow} does without it: the sender's claim, taken with its endpoint lock's
     * compare-and-set before the call ({@link #sendClaimed}), is the same mark, and {@code close}
     * waits for it through {@link Channel#awaitPlacing}.
     */
    private final PlacementClaim placing = new PlacementClaim();

    Connection(final EpImpl ep, final boolean active)
    {
        this.ep = ep;
        this.active = active;
    }

    /** Sizes the RDMA Read pools once the limits are known. ep.lock held. */
    void negotiated(final int irdValue, final int ordValue)
    {
        this.ird = irdValue;
        this.ord = ordValue;
        for (int i = 0; i < ordValue; i++)
        {
            freeReads.push(new ReadOp());
        }
        for (int i = 0; i < irdValue; i++)
        {
            freeResponses.push(new ReadResponse());
        }
    }

    boolean alive()
    {
        return !closed && ep.isCurrent(this);
    }

    /**
     * Ends the connection for the engine: nothing is placed after this returns. A Send being
     * placed without the lock on another thread is let finish first, so what the caller flushes
     * next is what that placement left. ep.lock held.
     */
    void close()
    {
        closed = true;
        placing.close();
        final Channel ch = channel;
        if (ch != null)
        {
            ch.awaitPlacing();
        }
    }

    // ---------------------------------------------------------------- outcome of setup

    @Override
    public void established(final Channel ch, final byte[] privateData, final int peerIrd, final int peerOrd)
    {
        ep.states.activeEstablished(this, ch, privateData, peerIrd, peerOrd);
    }

    @Override
    public void rejected(final boolean byPeer)
    {
        ep.states.setupFailed(this, byPeer ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
            : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
    }

    @Override
    public void unreachable()
    {
        ep.states.setupFailed(this, EventNumber.CONNECTION_EVENT_UNREACHABLE);
    }

    /** The connect timeout expired (timer thread). */
    void timedOut()
    {
        final PendingConnect p = pending;
        if (p != null && p.cancel())
        {
            ep.states.setupFailed(this, EventNumber.CONNECTION_EVENT_TIMED_OUT);
        }
    }

    @Override
    public void established(final Channel ch)
    {
        ep.states.passiveEstablished(this, ch);
    }

    @Override
    public void acceptFailed()
    {
        ep.states.setupFailed(this, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
    }

    // ---------------------------------------------------------------- inbound placement

    /**
     * An untagged segment of a Send: find or continue its receive buffer and place the bytes; a
     * null {@code src}: the transport placed them where {@link #sendTarget} said.
     */
    @Override
    public boolean onSend(final int msn, final int mo, final boolean last, final boolean solicited,
        final MemorySegment src, final long off, final int len)
    {
        if (ep.srq == null && placeSend(msn, mo, last, solicited, src, off, len, false))
        {
            return true;
        }
        return placeSendLocked(msn, mo, last, solicited, src, off, len);
    }

    @Override
    public boolean sendClaimed(final long self)
    {
        return ep.lock.placingByOther(self);
    }

    /**
     * A whole Send from a sender's thread that holds its own endpoint's lock: {@link #placeSend}
     * or nothing. Not when the receive EVD has a CNO: its proxy agent runs on the placing thread,
     * and consumer code must not run under another endpoint's lock (it may wait for that
     * endpoint). A CNO attached while the Send is being placed has its agent called on a
     * thread of its own ({@link CnoImpl#trigger(EvdImpl, boolean)}). The
     * channel's claim orders this against {@link #close} ({@link Channel#awaitPlacing}).
     */
    @Override
    public boolean placeSendNow(final int msn, final boolean solicited, final MemorySegment src, final long off,
        final int len)
    {
        final EvdImpl e = ep.recvEvd;
        return ep.srq == null && e != null && e.cno() == null
            && placeSend(msn, 0, true, solicited, src, off, len, true);
    }

    /**
     * The common case of a Send segment, without the endpoint's lock: the segment continues the
     * expected message and fits the receive buffer at the head of the receive queue, whose
     * memory is still registered in the endpoint's PZ. The bytes go straight into that buffer and
     * its completion onto the receive EVD. Returns false, having placed nothing, for anything
     * else; the locked path then decides (and reports errors). One thread places into a
     * connection at a time (the channel delivers in order); the receive queue's consumer side is
     * this thread's alone, and {@link #close} waits for it: for the {@link #placing} claim this
     * takes, or with {@code claimed}, for the channel's claim the caller holds.
     */
    private boolean placeSend(final int msn, final int mo, final boolean last, final boolean solicited,
        final MemorySegment src, final long off, final int len, final boolean claimed)
    {
        if (!claimed && !placing.enter())
        {
            return false;
        }
        try
        {
            if (closed || ep.conn != this)
            {
                return false;
            }
            RecvBuffer b = current;
            final long at;
            if (b == null)
            {
                // a new message
                if (msn != expectedSendMsn || mo != 0)
                {
                    return false;
                }
                b = ep.recvs.peek();
                if (b == null)
                {
                    return false;
                }
                at = 0;
            }
            else
            {
                at = received;
                if (msn != expectedSendMsn || Integer.toUnsignedLong(mo) != at)
                {
                    return false;
                }
            }
            if (at + len > b.total || !placeable(b) || src != null && !copy(b, at, src, off, len))
            {
                return false;
            }
            received = at + len;
            if (last)
            {
                // a message of one segment is never in progress: current stays null; a poster
                // placing its own Send holds its endpoint's lock (claimed)
                ep.recvs.finish(this, b, solicited, !claimed);
            }
            else
            {
                current = b;
            }
            return true;
        }
        finally
        {
            if (!claimed)
            {
                placing.exit();
            }
        }
    }

    /**
     * Where a Send segment of {@code len} bytes may be placed by the transport itself: the checks
     * of {@link #placeSend}, nothing placed, nothing failed, and the bytes must land in one
     * segment of the receive buffer. On the thread that delivers this connection's segments,
     * which alone moves the head of the receive queue; the transport orders its writes against
     * {@link #close} ({@link Channel#awaitPlacing}).
     */
    @Override
    public boolean sendTarget(final int msn, final int mo, final int len, final TaggedTarget target)
    {
        if (ep.srq != null || len == 0 || closed || ep.conn != this)
        {
            return false;
        }
        final RecvBuffer b;
        final long at;
        if (current == null)
        {
            if (msn != expectedSendMsn || mo != 0)
            {
                return false;
            }
            b = ep.recvs.peek();
            at = 0;
        }
        else
        {
            b = current;
            at = received;
            if (msn != expectedSendMsn || Integer.toUnsignedLong(mo) != at)
            {
                return false;
            }
        }
        if (b == null || at + len > b.total || !placeable(b))
        {
            return false;
        }
        final Segments s = b;
        long skip = at;
        for (int i = 0; i < s.count; i++)
        {
            if (skip >= s.length(i))
            {
                skip -= s.length(i);
                continue;
            }
            if (s.length(i) - skip < len)
            {
                return false;
            }
            target.memory = s.region(i).memory;
            target.offset = s.offset(i) + skip;
            return true;
        }
        return false;
    }

    private boolean placeSendLocked(final int msn, final int mo, final boolean last, final boolean solicited,
        final MemorySegment src, final long off, final int len)
    {
        TerminateInfo t = null;
        DtoStatus recvStatus = null;
        boolean fireSoft = false;
        Channel broken = null;
        ep.lock.lock();
        try
        {
            if (ep.conn != this || closed)
            {
                return false;
            }
            RecvBuffer b = current;
            if (b == null)
            {
                if (msn != expectedSendMsn)
                {
                    t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, 0, msn, mo, solicited);
                }
                else if (mo != 0)
                {
                    t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MO, 0, msn, mo, solicited);
                }
                else
                {
                    // none: the ring stays closed to posters until the connection breaks, below
                    b = ep.recvs.takeOrClose();
                    if (b == null)
                    {
                        t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, 0, msn, mo, solicited);
                    }
                    else
                    {
                        current = b;
                        received = 0;
                        if (ep.srq != null)
                        {
                            // an SRQ endpoint now holds one buffer: check its watermarks
                            if (ep.softHw != Dat.WATERMARK_INFINITE && 1 > ep.softHw)
                            {
                                ep.softHw = Dat.WATERMARK_INFINITE;
                                fireSoft = true;
                            }
                            if (ep.hardHw != Dat.WATERMARK_INFINITE && 1 > ep.hardHw)
                            {
                                t = TerminateInfo.of(TerminateCodes.LAYER_RDMAP,
                                    TerminateCodes.RDMAP_REMOTE_OPERATION, TerminateCodes.RDMAP_CATASTROPHIC_STREAM);
                            }
                        }
                    }
                }
            }
            else if (msn != expectedSendMsn)
            {
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, 0, msn, mo, solicited);
            }
            else if (Integer.toUnsignedLong(mo) != received)
            {
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MO, 0, msn, mo, solicited);
            }
            if (t == null)
            {
                if (received + len > b.total)
                {
                    recvStatus = DtoStatus.ERR_LOCAL_LENGTH;
                    t = untagged(TerminateCodes.DDP_UNTAGGED_MSG_TOO_LONG, 0, msn, mo, solicited);
                }
                else if (!placeable(b) || src != null && !copy(b, received, src, off, len))
                {
                    recvStatus = DtoStatus.ERR_LOCAL_PROTECTION;
                    t = TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_LOCAL_CATASTROPHIC, 0);
                }
                else
                {
                    received += len;
                    if (last)
                    {
                        ep.recvs.finish(this, b, solicited, false);
                    }
                }
            }
            if (t != null)
            {
                if (recvStatus != null)
                {
                    // the failing receive completes with its own status before the flushes
                    ep.recvs.flush(this, recvStatus);
                }
                // broken under the lock that saw the violation: a receive posted after this Send
                // found none is flushed as posted on a broken connection, not taken for a success
                broken = ep.states.failLocked(this, t, null, null, null);
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        if (fireSoft)
        {
            ep.ia.reportAsync(EventNumber.JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK, ep,
                AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, null);
        }
        if (t != null)
        {
            EpStateMachine.tell(broken, t, false);
            return false;
        }
        return true;
    }

    private static TerminateInfo untagged(final int code, final int queue, final int msn, final int mo,
        final boolean solicited)
    {
        return TerminateInfo.untagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_UNTAGGED_BUFFER, code,
            queue == 1 ? RdmapOpcode.RDMA_READ_REQUEST : solicited ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND,
            queue, msn, mo);
    }

    /** Whether every region of a receive is still registered in this EP's PZ. */
    private boolean placeable(final Segments s)
    {
        final PzImpl pz = ep.srq != null ? ep.srq.pz : ep.pz;
        for (int i = 0; i < s.count; i++)
        {
            final MemoryRegion r = s.region(i);
            if (!r.valid || r.pz != pz)
            {
                return false;
            }
        }
        return true;
    }

    private static boolean copy(final Segments s, final long at, final MemorySegment src, final long off,
        final int len)
    {
        try
        {
            return s.scatter(at, src, off, len);
        }
        catch (final RuntimeException e)
        {
            // memory released under us (closed arena) or not writable
            return false;
        }
    }

    /** A whole RDMA Write from a sender's thread that holds its own endpoint's lock: placed if it passes. */
    @Override
    public boolean placeWriteNow(final int stag, final long to, final MemorySegment src, final long off,
        final int len)
    {
        if (ep.conn != this || closed)
        {
            return false;
        }
        if (len == 0)
        {
            return true;
        }
        final MemoryRegion r = ep.ia.memory.lookup(stag);
        if (checkRemote(r, to, len, MemPriv.REMOTE_WRITE_FLAG) >= 0)
        {
            return false;
        }
        try
        {
            MemorySegment.copy(src, off, r.memory, to - r.base, len);
            return true;
        }
        catch (final RuntimeException e)
        {
            // memory released under us: onWrite finds it so and fails the Write
            return false;
        }
    }

    /** The endpoint's three EVDs, read without its lock: a hint for a polling transport. */
    @Override
    public boolean completesInto(final Object evd)
    {
        final EpImpl e = ep;
        return e.recvEvd == evd || e.requestEvd == evd || e.connectEvd == evd;
    }

    /** A tagged segment of an RDMA Write into this side's memory. */
    @Override
    public boolean onWrite(final int stag, final long to, final boolean last, final MemorySegment src, final long off,
        final int len)
    {
        if (ep.conn != this || closed)
        {
            return false;
        }
        if (len == 0)
        {
            return true;
        }
        final MemoryRegion r = ep.ia.memory.lookup(stag);
        final int code = checkRemote(r, to, len, MemPriv.REMOTE_WRITE_FLAG);
        TerminateInfo t = null;
        if (code >= 0)
        {
            t = code == ACCESS
                ? TerminateInfo.tagged(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_PROTECTION,
                    TerminateCodes.RDMAP_ACCESS_RIGHTS, RdmapOpcode.RDMA_WRITE, stag, to)
                : TerminateInfo.tagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER, code,
                    RdmapOpcode.RDMA_WRITE, stag, to);
        }
        else
        {
            try
            {
                MemorySegment.copy(src, off, r.memory, to - r.base, len);
            }
            catch (final RuntimeException e)
            {
                t = TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_LOCAL_CATASTROPHIC, 0);
            }
        }
        if (t != null)
        {
            ep.states.fail(this, t, null, null, false);
            return false;
        }
        return true;
    }

    /**
     * Where a tagged RDMA Write segment of {@code len} bytes may be placed by the transport itself:
     * the checks of {@link #onWrite}, nothing placed, nothing failed (a segment that does not
     * pass goes through {@code onWrite}, which fails it).
     */
    @Override
    public boolean writeTarget(final int stag, final long to, final int len, final TaggedTarget target)
    {
        if (ep.conn != this || closed || len == 0)
        {
            return false;
        }
        final MemoryRegion r = ep.ia.memory.lookup(stag);
        if (checkRemote(r, to, len, MemPriv.REMOTE_WRITE_FLAG) >= 0)
        {
            return false;
        }
        target.memory = r.memory;
        target.offset = to - r.base;
        return true;
    }

    /** {@link #checkRemote} result: the access right is missing (an RDMAP error, not a DDP one). */
    private static final int ACCESS = 100;

    /**
     * Checks a remote access to {@code [to, to + len)} through STag region {@code r}: -1 if
     * allowed, else a DDP tagged-buffer code (or {@link #ACCESS}).
     */
    private int checkRemote(final MemoryRegion r, final long to, final long len, final int right)
    {
        if (r == null)
        {
            return TerminateCodes.DDP_TAGGED_INVALID_STAG;
        }
        if (r.pz != ep.pz)
        {
            return TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED;
        }
        if (!r.has(right))
        {
            return ACCESS;
        }
        if (Long.compareUnsigned(to + len, to) < 0)
        {
            return TerminateCodes.DDP_TAGGED_TO_WRAP;
        }
        if (r.offsetOf(to, len) < 0)
        {
            return TerminateCodes.DDP_TAGGED_BASE_BOUNDS;
        }
        return -1;
    }

    /** An RDMA Read Request: validate the source and queue the response. */
    @Override
    public boolean onReadRequest(final int msn, final int sinkStag, final long sinkTo,
        final int size, final int srcStag, final long srcTo)
    {
        TerminateInfo t = null;
        Channel flush = null;
        Channel broken = null;
        ep.lock.lock();
        try
        {
            if (ep.conn != this || closed)
            {
                return false;
            }
            final long length = Integer.toUnsignedLong(size);
            if (msn != expectedReadMsn)
            {
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_RANGE, 1, msn, 0, false);
            }
            else if (takeResponses() >= ird || freeResponses.isEmpty())
            {
                // more reads than this side agreed to serve (IRD)
                t = untagged(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, 1, msn, 0, false);
            }
            else
            {
                final MemoryRegion r = length == 0 ? null : ep.ia.memory.lookup(srcStag);
                final int code = length == 0 ? -1 : checkRemote(r, srcTo, length, MemPriv.REMOTE_READ_FLAG);
                if (code >= 0)
                {
                    t = TerminateInfo.untagged(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_PROTECTION,
                        rdmapCode(code), RdmapOpcode.RDMA_READ_REQUEST, 1, msn, 0);
                }
                else
                {
                    final ReadResponse resp = freeResponses.pop();
                    resp.describeReadResponse(sinkStag, sinkTo);
                    if (r != null)
                    {
                        resp.addPayload(r.memory, srcTo - r.base, length);
                    }
                    inboundReads++;
                    expectedReadMsn++;
                    postedResponses.add(resp);
                    channel.post(resp);
                    flush = channel;
                }
            }
            if (t != null)
            {
                broken = ep.states.failLocked(this, t, null, null, null);
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        if (t != null)
        {
            EpStateMachine.tell(broken, t, false);
            return false;
        }
        flush.flush();
        return true;
    }

    private static int rdmapCode(final int ddpCode)
    {
        return switch (ddpCode)
        {
            case TerminateCodes.DDP_TAGGED_INVALID_STAG -> TerminateCodes.RDMAP_INVALID_STAG;
            case TerminateCodes.DDP_TAGGED_BASE_BOUNDS -> TerminateCodes.RDMAP_BASE_BOUNDS;
            case TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED -> TerminateCodes.RDMAP_STAG_NOT_ASSOCIATED;
            case TerminateCodes.DDP_TAGGED_TO_WRAP -> TerminateCodes.RDMAP_TO_WRAP;
            default -> TerminateCodes.RDMAP_ACCESS_RIGHTS;
        };
    }

    /** A tagged segment of an RDMA Read Response: it must continue the oldest outstanding read exactly. */
    @Override
    public boolean onReadResponse(final int stag, final long to, final boolean last,
        final MemorySegment src, final long off, final int len)
    {
        TerminateInfo t = null;
        DtoStatus culpritStatus = null;
        WorkRequest culprit = null;
        Channel flush = null;
        Channel broken = null;
        ep.lock.lock();
        try
        {
            if (ep.conn != this || closed)
            {
                return false;
            }
            final ReadOp op = outstandingReads.peek();
            if (op == null || stag != op.stag())
            {
                t = tagged(TerminateCodes.DDP_TAGGED_STAG_NOT_ASSOCIATED, stag, to);
            }
            else if (to != op.to() + op.received || len > op.size - op.received || !last && len == 0
                || last && op.received + len != op.size)
            {
                t = tagged(TerminateCodes.DDP_TAGGED_BASE_BOUNDS, stag, to);
            }
            else if (len > 0 && !op.sink.valid)
            {
                // the sink's LMR was freed after the post: its STag is no longer valid (RFC 5041
                // tagged buffer error, as siw reports it); locally a protection error (digest §4.4)
                culprit = op.wr;
                culpritStatus = DtoStatus.ERR_LOCAL_PROTECTION;
                t = tagged(TerminateCodes.DDP_TAGGED_INVALID_STAG, stag, to);
            }
            else if (len > 0 && src != null && !copyInto(op, src, off, len))
            {
                culprit = op.wr;
                culpritStatus = DtoStatus.ERR_LOCAL_PROTECTION;
                t = TerminateInfo.of(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_LOCAL_CATASTROPHIC, 0);
            }
            else
            {
                op.received += len;
                if (last)
                {
                    outstandingReads.poll();
                    final WorkRequest wr = op.wr;
                    op.clear();
                    freeReads.push(op);
                    wr.readsDone++;
                    if (wr.readsDone == RequestQueue.readsNeeded(wr))
                    {
                        wr.state = WorkRequest.DONE;
                        wr.status = DtoStatus.SUCCESS;
                        wr.transferred = wr.remoteLength;
                    }
                    ep.requests.startReady(this);
                    flush = channel;
                }
            }
            if (t != null)
            {
                broken = ep.states.failLocked(this, t, null, culprit, culpritStatus);
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        if (t != null)
        {
            EpStateMachine.tell(broken, t, false);
            return false;
        }
        if (flush != null)
        {
            flush.flush();
        }
        return true;
    }

    @Override
    public boolean readResponseTarget(final int stag, final long to, final boolean last, final int len,
        final TaggedTarget target)
    {
        if (len == 0)
        {
            return false;
        }
        ep.lock.lock();
        try
        {
            if (ep.conn != this || closed)
            {
                return false;
            }
            // the checks of onReadResponse
            final ReadOp op = outstandingReads.peek();
            if (op == null || stag != op.stag() || to != op.to() + op.received || len > op.size - op.received
                || last && op.received + len != op.size || !op.sink.valid)
            {
                return false;
            }
            target.memory = op.sink.memory;
            target.offset = op.sinkOffset + op.received;
            return true;
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    private static TerminateInfo tagged(final int code, final int stag, final long to)
    {
        return TerminateInfo.tagged(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_TAGGED_BUFFER, code,
            RdmapOpcode.RDMA_READ_RESPONSE, stag, to);
    }

    private static boolean copyInto(final ReadOp op, final MemorySegment src, final long off, final int len)
    {
        try
        {
            MemorySegment.copy(src, off, op.sink.memory, op.sinkOffset + op.received, len);
            return true;
        }
        catch (final RuntimeException e)
        {
            return false;
        }
    }

    /**
     * The channel is done with a message. Called on the channel's thread, which may hold its
     * port's progress lock: it never waits for the endpoint's lock. It marks the message reported
     * (a release store on it) and leaves it to whoever holds the lock ({@link EpLock#markLeft}),
     * or takes the lock itself if it is free, to absorb the mark ({@link #absorbMarks}): a Send or
     * Write completes once every request before it has, in post order as before; a Read Response
     * goes back to the pool. A report for a connection that ended or was replaced changes nothing
     * (what it closed with was flushed, and a flush takes in any mark left before).
     */
    @Override
    public void onSent(final OutboundMessage m)
    {
        if (closed || ep.conn != this)
        {
            return;
        }
        if (m instanceof WorkRequest wr)
        {
            wr.markReported();
        }
        else if (m instanceof ReadResponse r)
        {
            r.markReported();
        }
        else
        {
            // a Read Request: the Read completes with its response, nothing to record
            return;
        }
        ep.lock.markLeft();
    }

    /**
     * Takes in the marks the channel's thread left ({@link #onSent}): reported Read Responses go
     * back to the pool, reported requests complete in order, and a graceful disconnect waiting for
     * the request queue to drain is started once it has. Returns that close, to run with the lock
     * let go, or null. ep.lock held.
     */
    Runnable absorbMarks()
    {
        if (ep.conn != this || closed)
        {
            return null;
        }
        takeResponses();
        ep.requests.retire();
        if (ep.state == EpState.DISCONNECT_PENDING && ep.requests.idle() && !disconnecting)
        {
            disconnecting = true;
            final Channel ch = channel;
            return ch::disconnect;
        }
        return null;
    }

    /**
     * Puts the reported Read Responses at the head of {@link #postedResponses} back into the pool
     * (the channel reports them in post order) and returns the Read Responses still owed. ep.lock
     * held.
     */
    int takeResponses()
    {
        ReadResponse r;
        while ((r = postedResponses.peek()) != null && r.reported())
        {
            postedResponses.poll();
            r.recycle();
            freeResponses.push(r);
            inboundReads--;
        }
        return inboundReads;
    }

    // ---------------------------------------------------------------- the end

    @Override
    public void onTerminate(final TerminateInfo info)
    {
        ep.states.terminated(this, info);
    }

    @Override
    public void onClosed(final CloseReason reason)
    {
        ep.states.closed(this, reason);
    }
}

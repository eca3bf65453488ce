package io.jdat.engine;

import io.jdat.CompletionFlags;
import io.jdat.DatReturnSubtype;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.engine.channel.Channel;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.engine.channel.TerminateInfo;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;

/**
 * An endpoint's request queue (its send queue): the Sends, RDMA Writes, RDMA Reads and RMR
 * binds posted to it, from posting to their completion on the request EVD.
 *
 * <p>A ring of {@link WorkRequest}s with three counters, {@code head} (oldest not yet completed
 * to the consumer), {@code start} (next to hand to the channel) and {@code tail} (next free).
 * Requests start in order (a fence or a lack of RDMA Read credits holds back everything behind
 * it) and retire in order, so completions appear in posting order. Guarded by the endpoint's
 * lock, except the mark a channel's thread leaves on a Send or Write it reported sent
 * ({@link WorkRequest#markReported}, from {@link Connection#onSent}, which never waits for the
 * lock): whoever holds the lock takes such a mark in where it looks at the request ({@link #done}),
 * so a reported request counts as sent for {@link #retire}, {@link #flush} and {@link #culprit}
 * alike, and completes in post order as before.
 */
final class RequestQueue
{
    private final EpImpl ep;
    private final Segments scratch;
    /** The IA is single-writer: posts take the endpoint lock as its one consumer ({@link EpLock#lockAsConsumer}). */
    final boolean singleWriter;
    WorkRequest[] ring;
    long head;
    long start;
    long tail;
    /**
     * The ring positions of {@link #head}, {@link #start} and {@link #tail}: a counter modulo the
     * ring's length, which max_request_dtos sets (any number), is a 64-bit division, tens of
     * cycles on this path three times per request; these wrap with a compare instead.
     */
    private int headSlot;
    private int startSlot;
    private int tailSlot;

    RequestQueue(final EpImpl ep, final EpAttr attr, final int maxIov)
    {
        this.ep = ep;
        this.scratch = new Segments(Math.max(maxIov, 1));
        this.singleWriter = ep.ia.singleWriter;
        renew(attr);
    }

    /** A fresh, empty ring sized by {@code attr}; the old one may still be read by a closing channel. */
    void renew(final EpAttr attr)
    {
        final int iov = Math.max(attr.maxRequestIov, Math.max(attr.maxRdmaReadIov, attr.maxRdmaWriteIov));
        final WorkRequest[] r = new WorkRequest[attr.maxRequestDtos];
        for (int i = 0; i < r.length; i++)
        {
            r[i] = new WorkRequest(iov);
        }
        ring = r;
        head = start = tail = 0;
        headSlot = startSlot = tailSlot = 0;
    }

    /** Whether every posted request has completed to the consumer. Lock held. */
    boolean idle()
    {
        return head == tail;
    }

    /**
     * Whether a request was handed on and has not completed: its channel's thread may still
     * leave a mark for it ({@link EpLock.Marks#expected}). Lock held.
     */
    boolean outstanding()
    {
        return head != start;
    }

    void post(final int op, final int n, final LmrTriplet[] iov, final long cookie,
        final RmrTriplet remote, final int flags)
    {
        ep.checkLive();
        final int flagsArg = op == WorkRequest.SEND ? 5 : 6;
        if ((flags & ~EpImpl.REQUEST_FLAGS) != 0)
        {
            throw Errors.invalidParameter(flagsArg, "unknown completion flags 0x" + Integer.toHexString(flags));
        }
        if ((flags & CompletionFlags.UNSIGNALLED_FLAG) != 0
            && ep.attr.requestCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(flagsArg, "DAT_COMPLETION_UNSIGNALLED_FLAG needs the EP's "
                + "request_completion_flags to be UNSIGNALLED");
        }
        if (op != WorkRequest.SEND && remote == null)
        {
            throw Errors.invalidParameter(DatArg.POST_RDMA_REMOTE_IOV, "remote_buffer is null");
        }
        Channel flush = null;
        // the lock's one compare-and-set is also the claim a Send or Write placed on this thread
        // is made under (EpLock#PLACING): the peer's close waits for it, see Channel#sendNow; the
        // one consumer thread of a single-writer IA takes both with a store, no read-modify-write
        final boolean mayPlace = singleWriter ? ep.lock.lockAsConsumer() : ep.lock.lockToPlace();
        try
        {
            final EpState s = ep.state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED)
            {
                throw Errors.invalidState(EpImpl.stateSubtype(s), "requests can be posted only while CONNECTED or "
                    + "DISCONNECTED");
            }
            final int maxIov = switch (op)
            {
                case WorkRequest.SEND -> ep.attr.maxRequestIov;
                case WorkRequest.WRITE -> ep.attr.maxRdmaWriteIov;
                default -> ep.attr.maxRdmaReadIov;
            };
            if (s == EpState.DISCONNECTED)
            {
                // accepted and flushed at once
                scratch.fill(ep.ia.memory, n, iov, maxIov, ep.pz, op == WorkRequest.READ, 3);
                checkLengths(op, scratch.total, remote);
                scratch.clear();
                completeRequestEvent(cookie, flags, DtoStatus.ERR_FLUSHED, 0);
                return;
            }
            if (full())
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEP,
                    "max_request_dtos (" + ring.length + ") requests are outstanding");
            }
            final Connection c = ep.conn;
            if (op == WorkRequest.READ && c.ord == 0)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_CREDITS,
                    "the connection allows no outstanding RDMA Reads (max_rdma_read_out 0)");
            }
            // the slot is empty: new with the ring, or emptied by retire() when its last request
            // completed successfully (a ring with a failed request is never reused, see retire())
            final WorkRequest wr = ring[tailSlot];
            flush = c.channel;
            if (!mayPlace || n != 1 || maxIov < 1 || op == WorkRequest.READ || head != tail || iov == null
                || iov.length < 1 || iov[0] == null || !postNow(c, wr.local, op, iov[0], cookie, remote, flags))
            {
                wr.local.fill(ep.ia.memory, n, iov, maxIov, ep.pz, op == WorkRequest.READ, 3);
                try
                {
                    checkLengths(op, wr.local.total, remote);
                }
                catch (final RuntimeException e)
                {
                    wr.local.clear();
                    throw e;
                }
                if (head != tail || op == WorkRequest.READ || !sendIdle(c, wr.local, op, flags, cookie, remote))
                {
                    queue(c, wr, op, flags, cookie, remote);
                }
            }
        }
        finally
        {
            ep.lock.unlock();
        }
        // what startReady handed on, and anything left to this thread by a Send it placed
        flush.flush();
    }

    /**
     * Whether the ring has no free slot, once the reports of requests sent that a channel's thread
     * left while this thread held the lock are taken in ({@link #done}): such a thread does not
     * wait for the lock, it leaves its mark for the holder to absorb after letting go
     * ({@link EpLock#markLeft}), and a holder that decided from {@link #head} alone would refuse
     * a post for requests already sent. Only a ring that looks full retires here. Lock held.
     */
    private boolean full()
    {
        if (tail - head < ring.length)
        {
            return false;
        }
        retire();
        return tail - head == ring.length;
    }

    /** Puts a validated request into the ring at the tail and starts what can start. Lock held. */
    private void queue(final Connection c, final WorkRequest wr, final int op, final int flags, final long cookie,
        final RmrTriplet remote)
    {
        wr.op = op;
        wr.flags = flags;
        wr.cookie = cookie;
        wr.state = WorkRequest.QUEUED;
        wr.solicited = (flags & CompletionFlags.SOLICITED_WAIT_FLAG) != 0;
        if (remote != null)
        {
            wr.remoteStag = remote.rmrContext;
            wr.remoteTo = remote.targetAddress;
            wr.remoteLength = op == WorkRequest.READ ? remote.segmentLength : wr.local.total;
        }
        tail++;
        tailSlot = next(tailSlot);
        startReady(c);
    }

    /**
     * A Send or Write posted to an idle queue, placed by the channel within this post
     * ({@link Channel#sendNow}): it completes at once, so it never enters the ring. Nothing is
     * before it to complete first (idle), nothing after it can be posted before the lock is let
     * go, and a flush or a disconnect, which take the lock, find the queue as idle as before the
     * post: the request is complete before either can look. Its local segments were validated
     * into the free slot at the tail ({@code l}), which is emptied again. False, with nothing
     * sent and the slot as filled, when the channel does not place it now: the caller queues it
     * the usual way. Lock held.
     */
    private boolean sendIdle(final Connection c, final Segments l, final int op, final int flags,
        final long cookie, final RmrTriplet remote)
    {
        if ((flags & CompletionFlags.BARRIER_FENCE_FLAG) != 0 && !c.outstandingReads.isEmpty())
        {
            return false;
        }
        if (!placeNow(c, l, op, flags, remote))
        {
            return false;
        }
        if (op == WorkRequest.SEND)
        {
            c.sendMsn++;
        }
        final long length = l.total;
        l.clear();
        completeRequestEvent(cookie, flags, DtoStatus.SUCCESS, length);
        return true;
    }

    /**
     * {@link #sendIdle} of a Send or Write of one non-empty segment, placed before anything is
     * written into the request's slot: the triplet is read once and validated as
     * {@link Segments#fill} would ({@link Segments#one}), then the message goes from its region
     * straight to the channel's {@link Channel#sendNow}. False, with nothing sent and nothing of
     * the slot but its first guess changed, when the channel does not place it now: the caller
     * then fills and queues it the usual way (its claim to place is used up, so it queues). Only
     * under the claim this post's lock took, with the queue idle and the endpoint CONNECTED; the
     * errors are {@code fill}'s and {@link #checkLengths}'s. Lock held.
     */
    private boolean postNow(final Connection c, final Segments slot, final int op, final LmrTriplet t,
        final long cookie, final RmrTriplet remote, final int flags)
    {
        final long len = t.segmentLength;
        if (len == 0 || (flags & CompletionFlags.BARRIER_FENCE_FLAG) != 0 && !c.outstandingReads.isEmpty())
        {
            return false;
        }
        final long va = t.virtualAddress;
        final MemoryRegion r = slot.one(ep.ia.memory, t.lmrContext, va, len, ep.pz, false, 3);
        checkLengths(op, len, remote);
        final Channel ch = c.channel;
        final boolean placed;
        try
        {
            placed = op == WorkRequest.WRITE
                ? ch.sendNow(RdmapOpcode.RDMA_WRITE, 0, remote.rmrContext, remote.targetAddress, r.memory, va - r.base,
                    len)
                : ch.sendNow((flags & CompletionFlags.SOLICITED_WAIT_FLAG) != 0 ? RdmapOpcode.SEND_WITH_SE
                    : RdmapOpcode.SEND, c.sendMsn, 0, 0, r.memory, va - r.base, len);
        }
        finally
        {
            // one message per claim: what follows (the completion, a second request) waits for nobody
            ep.lock.donePlacing();
        }
        if (!placed)
        {
            return false;
        }
        if (op == WorkRequest.SEND)
        {
            c.sendMsn++;
        }
        completeRequestEvent(cookie, flags, DtoStatus.SUCCESS, len);
        return true;
    }

    /** The channel's {@code sendNow} of a Send or Write's validated segments, as {@link #sendIdle} places it. */
    private boolean placeNow(final Connection c, final Segments l, final int op, final int flags,
        final RmrTriplet remote)
    {
        return op == WorkRequest.WRITE
            ? sendNow(c.channel, l, RdmapOpcode.RDMA_WRITE, 0, remote.rmrContext, remote.targetAddress)
            : sendNow(c.channel, l, (flags & CompletionFlags.SOLICITED_WAIT_FLAG) != 0 ? RdmapOpcode.SEND_WITH_SE
                : RdmapOpcode.SEND, c.sendMsn, 0, 0);
    }

    private void checkLengths(final int op, final long local, final RmrTriplet remote)
    {
        switch (op)
        {
            case WorkRequest.SEND ->
            {
                if (local > ep.attr.maxMessageSize)
                {
                    throw Errors.invalidParameter(DatArg.POST_LOCAL_IOV, local + " bytes exceed max_message_size "
                        + ep.attr.maxMessageSize);
                }
            }
            case WorkRequest.WRITE ->
            {
                if (local > remote.segmentLength)
                {
                    throw Errors.lengthError(local + " bytes do not fit the remote buffer of " + remote.segmentLength);
                }
                if (local > ep.attr.maxRdmaSize)
                {
                    throw Errors.invalidParameter(DatArg.POST_LOCAL_IOV,
                        local + " bytes exceed max_rdma_size " + ep.attr.maxRdmaSize);
                }
            }
            default ->
            {
                if (remote.segmentLength < 0)
                {
                    throw Errors.invalidParameter(DatArg.POST_RDMA_REMOTE_IOV, "negative remote length");
                }
                if (remote.segmentLength > local)
                {
                    throw Errors.lengthError("the remote buffer of " + remote.segmentLength
                        + " bytes does not fit local_iov's " + local);
                }
                if (remote.segmentLength > ep.attr.maxRdmaSize)
                {
                    throw Errors.invalidParameter(DatArg.POST_RDMA_REMOTE_IOV,
                        remote.segmentLength + " bytes exceed max_rdma_size "
                        + ep.attr.maxRdmaSize);
                }
            }
        }
    }

    /** Posts an RMR bind through this endpoint (dat_rmr_bind validated the rest). */
    void postBind(final RmrImpl rmr, final MemoryRegion region, final LmrImpl lmr, final long cookie,
        final int flags)
    {
        ep.checkLive();
        Channel flush = null;
        ep.lock.lock();
        try
        {
            final EpState s = ep.state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED)
            {
                throw Errors.invalidState(EpImpl.stateSubtype(s),
                    "binds can be posted only while CONNECTED or DISCONNECTED");
            }
            if (s == EpState.DISCONNECTED)
            {
                if (lmr != null)
                {
                    lmr.boundRmrs.decrementAndGet();
                }
                postBindEvent(rmr, cookie, flags, DtoStatus.ERR_FLUSHED);
                return;
            }
            if (full())
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEP,
                    "max_request_dtos (" + ring.length + ") requests are outstanding");
            }
            final WorkRequest wr = ring[tailSlot];
            wr.op = WorkRequest.BIND;
            wr.flags = flags;
            wr.cookie = cookie;
            wr.state = WorkRequest.QUEUED;
            wr.rmr = rmr;
            wr.bindRegion = region;
            wr.bindLmr = lmr;
            tail++;
            tailSlot = next(tailSlot);
            startReady(ep.conn);
            flush = ep.conn.channel;
        }
        finally
        {
            ep.lock.unlock();
        }
        // what startReady handed on, and anything left to this thread by a Send it placed
        flush.flush();
    }

    /** Hands every startable request to the channel, in order. Lock held. */
    void startReady(final Connection c)
    {
        final Channel ch = c.channel;
        while (start < tail)
        {
            final WorkRequest wr = ring[startSlot];
            if ((wr.flags & CompletionFlags.BARRIER_FENCE_FLAG) != 0 && !c.outstandingReads.isEmpty()
                && wr.state == WorkRequest.QUEUED)
            {
                return;
            }
            switch (wr.op)
            {
                case WorkRequest.SEND, WorkRequest.WRITE ->
                {
                    if (wr.op == WorkRequest.SEND)
                    {
                        wr.msn = c.sendMsn++;
                    }
                    wr.state = WorkRequest.STARTED;
                    if (sendNow(ch, wr))
                    {
                        // placed on this thread: sent, as onSent would record it (while
                        // DISCONNECT_PENDING, onSent's look at the idle queue must happen)
                        sent(wr);
                    }
                    else
                    {
                        wr.describe();
                        ch.post(wr);
                    }
                }
                case WorkRequest.READ ->
                {
                    if (!issueReads(c, wr))
                    {
                        return;
                    }
                }
                default ->
                {
                    executeBind(wr);
                }
            }
            start++;
            startSlot = next(startSlot);
        }
        retire();
    }

    /**
     * A Send or Write of at most one segment, straight from its validated segments to the
     * channel's {@link Channel#sendNow}: no descriptor is filled for a message the channel places
     * at once. Only under the claim the poster took with the lock ({@link EpLock#lockToPlace});
     * an engine thread restarting requests (a Read Response, a fence let go) queues them. Lock
     * held.
     */
    private boolean sendNow(final Channel ch, final WorkRequest wr)
    {
        if (wr.op == WorkRequest.WRITE)
        {
            return sendNow(ch, wr.local, RdmapOpcode.RDMA_WRITE, 0, wr.remoteStag, wr.remoteTo);
        }
        return sendNow(ch, wr.local, wr.solicited ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND, wr.msn, 0, 0);
    }

    /** {@link #sendNow(Channel, WorkRequest)} of a message's parts. Lock held. */
    private boolean sendNow(final Channel ch, final Segments l, final int opcode, final int msn, final int stag,
        final long to)
    {
        if (l.count > 1 || ep.state != EpState.CONNECTED || !ep.lock.placing())
        {
            return false;
        }
        final boolean one = l.count == 1;
        final MemorySegment mem = one ? l.region(0).memory : null;
        final long off = one ? l.offset(0) : 0;
        final long len = one ? l.length(0) : 0;
        try
        {
            return ch.sendNow(opcode, msn, stag, to, mem, off, len);
        }
        finally
        {
            // one message per claim: what follows (the completion, a second request) waits for nobody
            ep.lock.donePlacing();
        }
    }

    /**
     * Issues the Read Requests of a read: one per local segment that receives data (one of size
     * 0 for an empty read), as far as ORD credits allow. True once all are issued. Lock held.
     */
    private boolean issueReads(final Connection c, final WorkRequest wr)
    {
        final Segments local = wr.local;
        final int needed = readsNeeded(wr);
        long remoteOffset = 0;
        for (int i = 0; i < wr.readsIssued; i++)
        {
            remoteOffset += local.length(i);
        }
        wr.state = WorkRequest.STARTED;
        while (wr.readsIssued < needed)
        {
            final ReadOp op = c.freeReads.poll();
            if (op == null)
            {
                return false;
            }
            final int i = wr.readsIssued;
            final long size = Math.min(wr.remoteLength - remoteOffset, local.count == 0 ? 0 : local.length(i));
            op.wr = wr;
            op.msn = c.readMsn++;
            op.sink = local.count == 0 || size == 0 ? null : local.region(i);
            op.sinkOffset = local.count == 0 ? 0 : local.offset(i);
            op.size = size;
            op.srcStag = wr.remoteStag;
            op.srcTo = wr.remoteTo + remoteOffset;
            op.received = 0;
            op.describe();
            c.outstandingReads.add(op);
            c.channel.post(op);
            remoteOffset += size;
            wr.readsIssued++;
        }
        return true;
    }

    static int readsNeeded(final WorkRequest wr)
    {
        long remaining = wr.remoteLength;
        int n = 0;
        for (int i = 0; i < wr.local.count && remaining > 0; i++)
        {
            remaining -= wr.local.length(i);
            n++;
        }
        return Math.max(n, 1);
    }

    /** An RMR bind takes effect when it reaches the head of the start queue. Lock held. */
    private void executeBind(final WorkRequest wr)
    {
        wr.rmr.apply(wr.bindRegion, wr.bindLmr);
        wr.bindLmr = null;
        wr.state = WorkRequest.DONE;
        wr.status = DtoStatus.SUCCESS;
    }

    /** The channel carried a Send or Write: it is done, and completes once the requests before it have. Lock held. */
    static void sent(final WorkRequest wr)
    {
        wr.state = WorkRequest.DONE;
        if (wr.status != DtoStatus.SUCCESS)
        {
            // a slot keeps its last status (WorkRequest#reset): most of the time no store, no barrier
            wr.status = DtoStatus.SUCCESS;
        }
        wr.transferred = wr.local.total;
    }

    /**
     * Whether {@code wr} is done, taking in first a report of it sent that its channel's thread
     * left without the lock ({@link Connection#onSent}). Lock held.
     */
    static boolean done(final WorkRequest wr)
    {
        if (wr.state == WorkRequest.DONE)
        {
            return true;
        }
        if (wr.reported())
        {
            sent(wr);
            return true;
        }
        return false;
    }

    /** Completes finished requests to the consumer, oldest first. Lock held. */
    void retire()
    {
        while (head < start)
        {
            final WorkRequest wr = ring[headSlot];
            if (!done(wr))
            {
                return;
            }
            if (wr.op == WorkRequest.BIND)
            {
                postBindEvent(wr.rmr, wr.cookie, wr.flags, wr.status);
            }
            else
            {
                completeRequestEvent(wr.cookie, wr.flags, wr.status, wr.transferred);
            }
            if (wr.status == DtoStatus.SUCCESS)
            {
                wr.reset();
            }
            // else the connection ended and the channel may still read the request until it is
            // gone: leave it whole (the ring is not reused, see reset())
            head++;
            headSlot = next(headSlot);
        }
    }

    /** The ring position after {@code slot}. */
    private int next(final int slot)
    {
        return slot + 1 == ring.length ? 0 : slot + 1;
    }

    /** Posts a request's completion. Lock held: a CNO's agent, consumer code, runs on a thread of its own. */
    void completeRequestEvent(final long cookie, final int flags, final DtoStatus status, final long length)
    {
        if (status == DtoStatus.SUCCESS && (flags & CompletionFlags.SUPPRESS_FLAG) != 0)
        {
            return;
        }
        final EvdImpl e = ep.requestEvd;
        if (e != null)
        {
            // the consumer, posting on the one endpoint that claims for it, with no read-modify-write
            e.postDto(ep, cookie, status, length, requestNotifies(flags), null, false,
                ep.lock.heldAsConsumer() && e.consumerClaims.mayClaim(ep));
        }
    }

    private void postBindEvent(final RmrImpl rmr, final long cookie, final int flags, final DtoStatus status)
    {
        if (status == DtoStatus.SUCCESS && (flags & CompletionFlags.SUPPRESS_FLAG) != 0)
        {
            return;
        }
        final EvdImpl e = ep.requestEvd;
        if (e != null)
        {
            e.postRmrBind(rmr, cookie, status, requestNotifies(flags));
        }
    }

    private boolean requestNotifies(final int flags)
    {
        return ep.attr.requestCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG
            || (flags & CompletionFlags.UNSIGNALLED_FLAG) == 0;
    }

    /**
     * Every request not yet complete completes in error, in order: the culprit with its status,
     * the rest flushed; so does every request behind the first of them whose success was not
     * reported yet (completions come in posting order, and once one is an error every later one
     * is too: dat_ep_disconnect, digest §3.4). The ring is not reused afterwards (see
     * {@link EpStateMachine#reset()}). Lock held.
     */
    void flush(final WorkRequest culprit, final DtoStatus culpritStatus)
    {
        boolean failing = false;
        for (long i = head; i < tail; i++)
        {
            final WorkRequest wr = ring[(int) (i % ring.length)];
            if (done(wr))
            {
                if (failing && wr.status == DtoStatus.SUCCESS && wr.op != WorkRequest.BIND)
                {
                    // sent, but reported behind a request that failed
                    wr.status = DtoStatus.ERR_FLUSHED;
                    wr.transferred = 0;
                }
                else if (wr.status != DtoStatus.SUCCESS)
                {
                    failing = true;
                }
            }
            else
            {
                failing = true;
                wr.state = WorkRequest.DONE;
                wr.status = wr == culprit ? culpritStatus : DtoStatus.ERR_FLUSHED;
                wr.transferred = 0;
                if (wr.op == WorkRequest.BIND && wr.bindLmr != null)
                {
                    wr.bindLmr.boundRmrs.decrementAndGet();
                    wr.bindLmr = null;
                }
            }
        }
        start = tail;
        startSlot = tailSlot;
        retire();
    }

    /** The request a Terminate is about: by MSN for untagged, the oldest unfinished Write for tagged. Lock held. */
    WorkRequest culprit(final Connection c, final TerminateInfo info)
    {
        for (long i = head; i < start; i++)
        {
            final WorkRequest wr = ring[(int) (i % ring.length)];
            if (done(wr))
            {
                continue;
            }
            if (!info.hdrKnown())
            {
                return wr;
            }
            if (info.tagged() && info.opcode() == RdmapOpcode.RDMA_WRITE && wr.op == WorkRequest.WRITE)
            {
                return wr;
            }
            if (!info.tagged() && info.queue() == 0 && wr.op == WorkRequest.SEND && wr.msn == info.msn())
            {
                return wr;
            }
            if ((!info.tagged() && info.queue() == 1 || info.opcode() == RdmapOpcode.RDMA_READ_REQUEST)
                && wr.op == WorkRequest.READ)
            {
                for (final ReadOp op : c.outstandingReads)
                {
                    if (op.wr == wr && op.msn == info.msn())
                    {
                        return wr;
                    }
                }
            }
        }
        return null;
    }

    /** Binds that never executed give their LMR back. Lock held. */
    void releaseBinds()
    {
        for (long i = start; i < tail; i++)
        {
            final WorkRequest wr = ring[(int) (i % ring.length)];
            if (wr.op == WorkRequest.BIND && wr.bindLmr != null)
            {
                wr.bindLmr.boundRmrs.decrementAndGet();
                wr.bindLmr = null;
            }
        }
    }
}

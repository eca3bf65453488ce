package io.jdat.engine;

import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatReturnSubtype;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.LmrTriplet;
import io.jdat.spi.DatArg;

/**
 * An endpoint's receive queue: the buffers posted with dat_ep_post_recv, in order, or, for an
 * endpoint created with an SRQ, the one SRQ buffer of the message in progress. A Send takes the
 * buffer at the head and completes it on the receive EVD. The buffers live in a {@link RecvRing}:
 * {@code dat_ep_post_recv} claims a slot without the endpoint's lock, fills it and publishes it;
 * the thread placing a Send (with or without the lock, see {@link Connection#onSend}) reads the
 * buffer at the head and moves the head on once it completed it. A flush (the connection ended),
 * a resize and a Send that finds no receive ({@link #takeOrClose}) close the ring under the
 * endpoint's lock first, so a post either landed before and is flushed with the rest (or taken),
 * or goes to the lock and finds the endpoint DISCONNECTED. Teardown
 * flushes after {@link Connection#close} waited for a placement in progress.
 */
final class RecvQueue
{
    private final EpImpl ep;
    private final Segments scratch;
    /** Replaced only by {@link #resize}, under the endpoint's lock, with the old one closed. */
    private volatile RecvRing ring;
    /** Whether any receive was ever posted (recv_completion_flags are fixed from then on). */
    boolean everPosted;
    /** With an SRQ: the buffer of the message in progress, copied from the SRQ's ring. */
    private final RecvBuffer srqBuffer;

    RecvQueue(final EpImpl ep, final EpAttr attr, final int maxIov)
    {
        this.ep = ep;
        this.scratch = new Segments(Math.max(maxIov, 1));
        this.ring = newRing(attr);
        this.srqBuffer = ep.srq != null ? new RecvBuffer(ep.srq.maxRecvIov) : null;
    }

    private RecvRing newRing(final EpAttr a)
    {
        return new RecvRing(ep.srq != null ? 0 : Math.max(0, a.maxRecvDtos), a.maxRecvIov, ep.ia.singleWriter);
    }

    /** Whether posts claim with plain stores (a single-writer IA). */
    boolean singleWriter()
    {
        return ring.singleWriter;
    }

    /** Receives posted and not yet taken by a Send (a snapshot). */
    int posted()
    {
        return ring.posted();
    }

    /** dat_ep_modify changed max_recv_dtos or max_recv_iov: a new ring keeps what is posted, in order. Lock held. */
    void resize(final EpAttr attr)
    {
        leaveDirect();
        final RecvRing r = ring;
        r.close();
        final RecvRing next = r.moveTo(ep.srq != null ? 0 : Math.max(0, attr.maxRecvDtos), attr.maxRecvIov);
        if (next == null)
        {
            // the ring stays closed: the next post reopens it under the lock
            throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE,
                "the posted receives do not fit the new max_recv_dtos or max_recv_iov");
        }
        ring = next;
    }

    /** dat_ep_post_recv. */
    void post(final int numSegments, final LmrTriplet[] iov, final long userCookie, final int flags)
    {
        ep.checkLive();
        if (ep.srq != null)
        {
            throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE,
                "this endpoint takes its receive buffers from an SRQ; post them with dat_srq_post_recv");
        }
        if ((flags & ~CompletionFlags.UNSIGNALLED_FLAG) != 0)
        {
            throw Errors.invalidParameter(DatArg.POST_RECV_COMPLETION_FLAGS,
                "a receive takes only DAT_COMPLETION_UNSIGNALLED_FLAG");
        }
        if (flags != 0 && ep.attr.recvCompletionFlags != CompletionFlags.UNSIGNALLED_FLAG)
        {
            throw Errors.invalidParameter(DatArg.POST_RECV_COMPLETION_FLAGS,
                "DAT_COMPLETION_UNSIGNALLED_FLAG needs the EP's recv_completion_flags "
                + "to be UNSIGNALLED");
        }
        final RecvRing r = ring;
        if (r.singleWriter)
        {
            postSingle(r, numSegments, iov, userCookie, flags);
        }
        else
        {
            final long p = r.claimPost();
            if (p == RecvRing.CROWDED_DIRECT)
            {
                // completions not dequeued fill the slots: they move to the EVD's ring
                r.directEvd.leaveDirect();
                post(numSegments, iov, userCookie, flags);
                return;
            }
            if (p == RecvRing.CLOSED)
            {
                postLocked(numSegments, iov, userCookie, flags);
            }
            else
            {
                if (p == RecvRing.FULL)
                {
                    throw full(r);
                }
                fill(r, p, numSegments, iov, userCookie, flags);
            }
        }
        if (!everPosted)
        {
            everPosted = true;
        }
        if (ep.softHw != Dat.WATERMARK_INFINITE || ep.hardHw != Dat.WATERMARK_INFINITE)
        {
            ep.checkWatermarks();
        }
    }

    /**
     * dat_ep_post_recv on a single-writer IA: no atomic read-modify-write (see {@link RecvRing}).
     * A post that raced a close asks it, under the endpoint's lock, whether it took the receive.
     */
    private void postSingle(final RecvRing r, final int numSegments, final LmrTriplet[] iov, final long userCookie,
        final int flags)
    {
        final long p = r.reserve();
        if (p == RecvRing.CROWDED_DIRECT)
        {
            r.directEvd.leaveDirect();
            postSingle(r, numSegments, iov, userCookie, flags);
            return;
        }
        if (p == RecvRing.CLOSED)
        {
            postLocked(numSegments, iov, userCookie, flags);
            return;
        }
        if (p == RecvRing.FULL)
        {
            throw full(r);
        }
        final RecvBuffer b = r.slot(p);
        try
        {
            b.fill(ep.ia.memory, numSegments, iov, ep.attr.maxRecvIov, ep.pz, true, 3);
        }
        catch (final RuntimeException e)
        {
            // nothing was claimed
            b.clear();
            throw e;
        }
        b.setCookieAndFlags(userCookie, flags);
        final boolean open = r.commit(p);
        // published even if a close came: a close that took it waits for it
        r.publish(p);
        if (open)
        {
            return;
        }
        ep.lock.lock();
        try
        {
            if (p < r.closedAt())
            {
                // flushed with the rest, or moved into a resized ring
                return;
            }
            r.retract(p);
            postUnderLock(numSegments, iov, userCookie, flags);
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** A post that found the ring closed: the endpoint's state decides, under its lock. */
    private void postLocked(final int numSegments, final LmrTriplet[] iov, final long userCookie, final int flags)
    {
        ep.lock.lock();
        try
        {
            postUnderLock(numSegments, iov, userCookie, flags);
        }
        finally
        {
            ep.lock.unlock();
        }
    }

    /** The endpoint's state decides. Lock held. */
    private void postUnderLock(final int numSegments, final LmrTriplet[] iov, final long userCookie, final int flags)
    {
        if (ep.state == EpState.DISCONNECTED)
        {
            scratch.fill(ep.ia.memory, numSegments, iov, ep.attr.maxRecvIov, ep.pz, true, 3);
            scratch.clear();
            everPosted = true;
            complete(userCookie, flags, DtoStatus.ERR_FLUSHED, 0, false, null);
            return;
        }
        // a flush (or a resize) closed it and the endpoint lives on: posters may claim again
        final RecvRing r = ring;
        r.open();
        final long p = r.claimLocked();
        if (p == RecvRing.CROWDED_DIRECT)
        {
            // under the endpoint's lock: the placer is not excluded, but the EVD's lock orders the move
            r.directEvd.leaveDirect();
            postUnderLock(numSegments, iov, userCookie, flags);
            return;
        }
        if (p == RecvRing.FULL)
        {
            throw full(r);
        }
        fill(r, p, numSegments, iov, userCookie, flags);
    }

    private static RuntimeException full(final RecvRing r)
    {
        return Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEP,
            "max_recv_dtos (" + r.capacity() + ") receives are posted");
    }

    /** Validates the triplets into the claimed slot and publishes it, or gives the claim back. */
    private void fill(final RecvRing r, final long p, final int numSegments, final LmrTriplet[] iov,
        final long userCookie, final int flags)
    {
        final RecvBuffer b = r.slot(p);
        try
        {
            b.fill(ep.ia.memory, numSegments, iov, ep.attr.maxRecvIov, ep.pz, true, 3);
        }
        catch (final RuntimeException e)
        {
            r.abandon(p);
            throw e;
        }
        b.setCookieAndFlags(userCookie, flags);
        r.publish(p);
    }

    /** Posts a receive's completion from a caller that holds the endpoint's lock. */
    void complete(final long cookie, final int flags, final DtoStatus status, final long length,
        final boolean solicited, final SrqImpl fromSrq)
    {
        complete(cookie, flags, status, length, solicited, fromSrq, false);
    }

    /**
     * Posts a receive's completion to the receive EVD; {@code unlocked}: the caller holds no
     * engine lock, so a CNO's agent may run on its thread.
     */
    void complete(final long cookie, final int flags, final DtoStatus status, final long length,
        final boolean solicited, final SrqImpl fromSrq, final boolean unlocked)
    {
        final EvdImpl e = ep.recvEvd;
        final boolean notify = switch (ep.attr.recvCompletionFlags)
        {
            case CompletionFlags.SOLICITED_WAIT_FLAG -> solicited;
            case CompletionFlags.UNSIGNALLED_FLAG -> fromSrq != null || (flags & CompletionFlags.UNSIGNALLED_FLAG) == 0;
            default -> true;
        };
        if (e == null || !e.postDto(ep, cookie, status, length, notify, fromSrq, unlocked, false))
        {
            if (fromSrq != null)
            {
                // nobody will dequeue this completion
                fromSrq.reaped();
            }
        }
    }

    /** Every receive this EP holds completes flushed (the one in progress with {@code status} if given). Lock held. */
    void flush(final Connection c, final DtoStatus currentStatus)
    {
        if (ep.srq != null)
        {
            if (c != null && c.current != null)
            {
                final RecvBuffer b = c.current;
                c.current = null;
                final long cookie = b.cookie();
                ep.srq.completed(b);
                complete(cookie, 0, currentStatus != null ? currentStatus : DtoStatus.ERR_FLUSHED, 0,
                    false, ep.srq);
            }
            return;
        }
        leaveDirect();
        final RecvRing r = ring;
        final long tail = r.close();
        boolean first = true;
        for (long i = r.head(); i < tail; i++)
        {
            final RecvBuffer b = r.slot(i);
            if (b.hole)
            {
                continue;
            }
            final DtoStatus st = first && c != null && c.current == b && currentStatus != null ? currentStatus
                : DtoStatus.ERR_FLUSHED;
            complete(b.cookie(), b.flags, st, 0, false, null);
            b.clear();
            first = false;
        }
        r.drop(tail);
        if (c != null)
        {
            c.current = null;
        }
    }

    /** Whether the EVD of direct mode would overflow with one more completion: the mode ends (its ring reports it). */
    private static boolean crowded(final RecvRing r)
    {
        if (!r.crowdsEvd())
        {
            return false;
        }
        r.directEvd.leaveDirect();
        return true;
    }

    /** Ends the ring's direct mode, if on: its completions move to the receive EVD's ring. */
    private void leaveDirect()
    {
        final RecvRing r = ring;
        if (r.mode != RecvRing.NORMAL)
        {
            r.directEvd.leaveDirect();
        }
    }

    /** The ring of posted receives (replaced only by a resize). */
    RecvRing ring()
    {
        return ring;
    }

    /** Enters direct mode for {@code evd} (see {@link RecvRing}); the endpoint is being created. */
    void enterDirect(final EvdImpl evd)
    {
        final RecvRing r = ring;
        final RecvRing next = RecvRing.direct(r.capacity(), ep.attr.maxRecvIov, r.singleWriter);
        next.enterDirect(evd);
        ring = next;
    }

    /** The posted buffer at the head, or null; for the thread that places into the endpoint. */
    RecvBuffer peek()
    {
        return ring.peek();
    }

    /** The next receive buffer for a new message. Lock held. */
    RecvBuffer take()
    {
        if (ep.srq != null)
        {
            return ep.srq.take(srqBuffer);
        }
        return ring.peek();
    }

    /**
     * {@link #take}, or null with the ring left closed to posters: the Send that asks finds no
     * receive and breaks the connection before the lock is released. A receive claimed before the
     * close is waited for and taken (the ring opens again), so a post either lands before the
     * Send looked or finds the endpoint DISCONNECTED under the lock; none returns SUCCESS on a
     * connection this Send has already lost. Lock held.
     */
    RecvBuffer takeOrClose()
    {
        final RecvBuffer b = take();
        if (b != null || ep.srq != null)
        {
            return b;
        }
        leaveDirect();
        final RecvRing r = ring;
        r.close();
        final RecvBuffer late = r.peek();
        if (late != null)
        {
            r.open();
        }
        return late;
    }

    /** Receive buffers this EP holds: posted ones, or the SRQ buffer of the message in progress. Lock held. */
    int held()
    {
        if (ep.srq == null)
        {
            return ring.posted();
        }
        final Connection c = ep.conn;
        return c != null && c.current != null ? 1 : 0;
    }

    /** A Send's last segment is placed in {@code b}; {@code unlocked}: the placer holds no engine lock. */
    void finish(final Connection c, final RecvBuffer b, final boolean solicited, final boolean unlocked)
    {
        c.current = null;
        c.expectedSendMsn++;
        final long length = c.received;
        if (ep.srq != null)
        {
            // the buffer goes back before the completion is visible: a consumer that reaps it
            // and reposts at once must find a free buffer
            final long cookie = b.cookie();
            ep.srq.completed(b);
            complete(cookie, 0, DtoStatus.SUCCESS, length, solicited, ep.srq, unlocked);
        }
        else if (ring.mode == RecvRing.DIRECT && !crowded(ring))
        {
            // the completion in the receive's own slot (RecvRing's direct mode)
            final RecvRing r = ring;
            final EvdImpl e = r.directEvd;
            final long p = r.placeDirect(b, length);
            if (r.mode == RecvRing.DIRECT)
            {
                e.afterDirect(unlocked);
            }
            else
            {
                e.directLate(r, p, b, length, unlocked);
            }
        }
        else
        {
            // likewise the slot: a consumer that reaps the completion and reposts at once must
            // find it free (and may refill it, so read what the completion needs first). The slot
            // is left as it is: its next post fills it from the start, and a store here would pull
            // the poster's line into this core once more per message
            // the mode is read again, not kept from the test above: crowded() returns at once when
            // another thread's move has already begun, and that move is what this waits for
            if (ring.mode == RecvRing.MIGRATING)
            {
                // direct mode is ending on another thread: its mover rewrites head when done
                // (RecvRing.endDirect), which would undo this placement's advance, and moves the
                // completions before this one into the EVD's ring, which this one must follow
                ring.directEvd.awaitMove();
            }
            final long cookie = b.cookie();
            final int flags = b.flags;
            // the poster that reuses the slot after reaping this completion sees it through the
            // completion's own publication
            ring.advance();
            complete(cookie, flags, DtoStatus.SUCCESS, length, solicited, null, unlocked);
        }
    }
}

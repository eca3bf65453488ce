package io.jdat.engine;

import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatReturnSubtype;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.LmrTriplet;
import io.jdat.spi.DatArg;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An endpoint's receive queue: the buffers posted with dat_ep_post_recv, in order, or, for an
 * endpoint created with an SRQ, the one SRQ buffer of the message in progress. A Send takes the
 * buffer at the head and completes it on the receive EVD. A ring with {@code head} (oldest
 * posted) and {@code tail} (next free), one writer each: posting (under the endpoint's lock)
 * fills the buffer at the tail and then publishes the tail; the thread placing a Send (with or
 * without the lock, see {@link Connection#onSend}) reads the buffer at the head and moves the
 * head on once it completed it. Teardown flushes under the lock after
 * {@link Connection#close} waited for a placement in progress.
 */
final class RecvQueue
{
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static
    {
        try
        {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(RecvQueue.class, "head", long.class);
            TAIL = l.findVarHandle(RecvQueue.class, "tail", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final EpImpl ep;
    private final Segments scratch;
    RecvBuffer[] ring;
    /** Oldest posted: advanced by the thread placing into the endpoint (or by a flush, lock held). */
    volatile long head;
    /** Next free: advanced by dat_ep_post_recv, lock held, after the buffer is written. */
    volatile long tail;
    /** Whether any receive was ever posted (recv_completion_flags are fixed from then on). */
    boolean everPosted;

    RecvQueue(final EpImpl ep, final EpAttr attr, final int maxIov)
    {
        this.ep = ep;
        this.scratch = new Segments(Math.max(maxIov, 1));
        this.ring = newRing(attr);
    }

    private RecvBuffer[] newRing(final EpAttr a)
    {
        final RecvBuffer[] r = new RecvBuffer[ep.srq != null ? 0 : Math.max(0, a.maxRecvDtos)];
        for (int i = 0; i < r.length; i++)
        {
            r[i] = new RecvBuffer(a.maxRecvIov);
        }
        return r;
    }

    /** dat_ep_modify changed max_recv_dtos or max_recv_iov: a new ring that keeps what is posted, in order. */
    void resize(final EpAttr attr)
    {
        final RecvBuffer[] next = newRing(attr);
        for (long i = head; i < tail; i++)
        {
            final RecvBuffer from = ring[(int) (i % ring.length)];
            final int to = (int) (i - head);
            if (from.local.count > next[to].local.regions.length)
            {
                throw Errors.invalidState(DatReturnSubtype.NO_SUBTYPE,
                    "a posted receive has more segments than the new max_recv_iov");
            }
            next[to] = from;
        }
        tail -= head;
        head = 0;
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
        Locks.lock(ep.lock);
        try
        {
            if (ep.state == EpState.DISCONNECTED)
            {
                scratch.fill(ep.ia.memory, numSegments, iov, ep.attr.maxRecvIov, ep.pz, true, 3);
                scratch.clear();
                everPosted = true;
                complete(userCookie, flags, DtoStatus.ERR_FLUSHED, 0, false, null);
                return;
            }
            if (ring.length == 0 || tail - head == ring.length)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEP,
                    "max_recv_dtos (" + ring.length + ") receives are posted");
            }
            final RecvBuffer b = ring[(int) (tail % ring.length)];
            b.local.fill(ep.ia.memory, numSegments, iov, ep.attr.maxRecvIov, ep.pz, true, 3);
            b.cookie = userCookie;
            b.flags = flags;
            b.srq = null;
            // release: the buffer before the tail; no fence, as the placer only needs to see both in order
            TAIL.setRelease(this, tail + 1);
            everPosted = true;
        }
        finally
        {
            ep.lock.unlock();
        }
        if (ep.softHw != Dat.WATERMARK_INFINITE || ep.hardHw != Dat.WATERMARK_INFINITE)
        {
            ep.checkWatermarks();
        }
    }

    void complete(final long cookie, final int flags, final DtoStatus status, final long length,
        final boolean solicited, final SrqImpl fromSrq)
    {
        final EvdImpl e = ep.recvEvd;
        final boolean notify = switch (ep.attr.recvCompletionFlags)
        {
            case CompletionFlags.SOLICITED_WAIT_FLAG -> solicited;
            case CompletionFlags.UNSIGNALLED_FLAG -> fromSrq != null || (flags & CompletionFlags.UNSIGNALLED_FLAG) == 0;
            default -> true;
        };
        if (e == null || !e.postDto(ep, cookie, status, length, notify, fromSrq))
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
                final long cookie = b.cookie;
                ep.srq.completed(b);
                complete(cookie, 0, currentStatus != null ? currentStatus : DtoStatus.ERR_FLUSHED, 0,
                    false, ep.srq);
            }
            return;
        }
        boolean first = true;
        for (long i = head; i < tail; i++)
        {
            final RecvBuffer b = ring[(int) (i % ring.length)];
            final DtoStatus st = first && c != null && c.current == b && currentStatus != null ? currentStatus
                : DtoStatus.ERR_FLUSHED;
            complete(b.cookie, b.flags, st, 0, false, null);
            b.local.clear();
            first = false;
        }
        head = tail;
        if (c != null)
        {
            c.current = null;
        }
    }

    /** The posted buffer at the head, or null; for the thread that places into the endpoint. */
    RecvBuffer peek()
    {
        final long h = head;
        return h == tail ? null : ring[(int) (h % ring.length)];
    }

    /** The next receive buffer for a new message. Lock held. */
    RecvBuffer take()
    {
        if (ep.srq != null)
        {
            return ep.srq.take();
        }
        return head == tail ? null : ring[(int) (head % ring.length)];
    }

    /** Receive buffers this EP holds: posted ones, or the SRQ buffer of the message in progress. Lock held. */
    int held()
    {
        if (ep.srq == null)
        {
            return (int) (tail - head);
        }
        final Connection c = ep.conn;
        return c != null && c.current != null ? 1 : 0;
    }

    void finish(final Connection c, final RecvBuffer b, final boolean solicited)
    {
        c.current = null;
        c.expectedSendMsn++;
        final long length = c.received;
        if (ep.srq != null)
        {
            // the buffer goes back before the completion is visible: a consumer that reaps it
            // and reposts at once must find a free buffer
            final long cookie = b.cookie;
            ep.srq.completed(b);
            complete(cookie, 0, DtoStatus.SUCCESS, length, solicited, ep.srq);
        }
        else
        {
            // likewise the slot: a consumer that reaps the completion and reposts at once must
            // find it free (and may refill it, so read what the completion needs first)
            final long cookie = b.cookie;
            final int flags = b.flags;
            b.local.clear();
            // release, one writer (the placer): the poster that reads it after reaping this
            // completion sees it through the completion's own publication
            HEAD.setRelease(this, head + 1);
            complete(cookie, flags, DtoStatus.SUCCESS, length, solicited, null);
        }
    }
}

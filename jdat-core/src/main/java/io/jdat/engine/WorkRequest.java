package io.jdat.engine;

import io.jdat.DtoStatus;

/**
 * One slot of an endpoint's request queue: a posted Send, RDMA Write, RDMA Read or RMR bind.
 * A Send or Write is itself the message the channel carries ({@link #describe}); a Read issues one
 * {@link ReadOp} per local segment.
 */
final class WorkRequest extends ReportedMessage
{
    static final int SEND = 1;
    static final int WRITE = 2;
    static final int READ = 3;
    static final int BIND = 4;

    static final int QUEUED = 0;
    static final int STARTED = 1;
    static final int DONE = 2;

    final Segments local;
    int op;
    int flags;
    long cookie;
    int state;
    DtoStatus status;
    long transferred;

    /** Send: its MSN; solicited for Send with Solicited Event. */
    int msn;
    boolean solicited;
    /** Write and Read: the remote buffer. */
    int remoteStag;
    long remoteTo;
    long remoteLength;
    /** Read: segments issued so far and completed so far. */
    int readsIssued;
    int readsDone;
    /** Bind: the window, its new region (null to unbind) and the LMR it binds into. */
    RmrImpl rmr;
    MemoryRegion bindRegion;
    LmrImpl bindLmr;

    WorkRequest(final int maxIov)
    {
        super(maxIov);
        local = new Segments(maxIov);
    }

    /**
     * Empties the slot for its next post. The gather list and {@link #status} keep their
     * references (no reference store on the hop where nothing changed, see
     * {@link #emptyPayload}): the memory they name is the memory {@link #local}'s regions keep as
     * the next post's guess anyway, and a status is always set before the slot is DONE.
     */
    void reset()
    {
        local.clear();
        emptyPayload();
        rmr = null;
        bindRegion = null;
        bindLmr = null;
        readsIssued = 0;
        readsDone = 0;
        transferred = 0;
        clearReported();
    }

    /**
     * Fills the descriptor the channel reads from this Send or Write: its header and the
     * validated local segments as the gather list.
     */
    void describe()
    {
        if (op == WRITE)
        {
            describeWrite(remoteStag, remoteTo);
        }
        else
        {
            describeSend(msn, solicited);
        }
        emptyPayload();
        for (int i = 0; i < local.count; i++)
        {
            addPayload(local.region(i).memory, local.offset(i), local.length(i));
        }
    }

    @Override
    public String toString()
    {
        return "WR[" + switch (op)
        {
            case SEND -> "SEND msn=" + msn;
            case WRITE -> "WRITE";
            case READ -> "READ";
            default -> "BIND";
        } + ", " + local.total + " bytes, state=" + state + "]";
    }
}

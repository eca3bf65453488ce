package io.jdat.engine;

import io.jdat.DtoStatus;
import io.jdat.engine.channel.OutboundMessage;
import io.jdat.engine.channel.RdmapOpcode;
import java.lang.foreign.MemorySegment;

/**
 * One slot of an endpoint's request queue: a posted Send, RDMA Write, RDMA Read or RMR bind.
 * A Send or Write is itself the message the channel carries; a Read issues one
 * {@link ReadOp} per local segment.
 */
final class WorkRequest implements OutboundMessage
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
        local = new Segments(maxIov);
    }

    void reset()
    {
        local.clear();
        rmr = null;
        bindRegion = null;
        bindLmr = null;
        status = null;
        readsIssued = 0;
        readsDone = 0;
        transferred = 0;
    }

    @Override
    public int opcode()
    {
        return op == WRITE ? RdmapOpcode.RDMA_WRITE : solicited ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND;
    }

    @Override
    public int msn()
    {
        return msn;
    }

    @Override
    public int stag()
    {
        return remoteStag;
    }

    @Override
    public long to()
    {
        return remoteTo;
    }

    @Override
    public int readSize()
    {
        return 0;
    }

    @Override
    public int srcStag()
    {
        return 0;
    }

    @Override
    public long srcTo()
    {
        return 0;
    }

    @Override
    public int payloadSegments()
    {
        return local.count;
    }

    @Override
    public MemorySegment payloadMemory(final int index)
    {
        return local.regions[index].memory;
    }

    @Override
    public long payloadOffset(final int index)
    {
        return local.offsets[index];
    }

    @Override
    public long payloadLength(final int index)
    {
        return local.lengths[index];
    }

    @Override
    public long payloadLength()
    {
        return local.total;
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

package io.jdat.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the consumers that poll a port ({@link ShmPort#poll()}) count, and what the port's I/O
 * thread reads of it: the polls so far, which the I/O thread only looks at to see whether they
 * move (it steps aside while they do), and the polls since the last full round, which bound how
 * long liveness and deadlines wait.
 */
final class PollCount
{
    /**
     * A polling consumer runs a full round (liveness, deadlines) at least once in this many polls;
     * the others skip the work that says it is quiet, or the round altogether.
     */
    static final int QUIET_POLLS = 64;
    private static final VarHandle POLLS;

    static
    {
        try
        {
            POLLS = MethodHandles.lookup().findVarHandle(PollCount.class, "polls", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Polls so far (an opaque counter: the I/O thread only looks whether it moves). */
    @SuppressWarnings("unused")
    private long polls;
    /** Polls since the last full round (a hint itself, shared by pollers). */
    private int sinceFullRound;

    /** A poll starts: counted for the I/O thread. True when it is due to run a full round. */
    boolean poll()
    {
        POLLS.setOpaque(this, (long) POLLS.getOpaque(this) + 1);
        return ++sinceFullRound >= QUIET_POLLS;
    }

    /** A full round ran: the next is due {@link #QUIET_POLLS} polls from now. */
    void fullRan()
    {
        sinceFullRound = 0;
    }

    /** The next poll runs a full round (after a park: liveness and deadlines are due). */
    void fullNext()
    {
        sinceFullRound = QUIET_POLLS;
    }

    /** The count the I/O thread compares with what it saw last (any thread). */
    long seen()
    {
        return (long) POLLS.getOpaque(this);
    }
}

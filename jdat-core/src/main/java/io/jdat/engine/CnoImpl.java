package io.jdat.engine;

import io.jdat.Cno;
import io.jdat.CnoParam;
import io.jdat.DatOut;
import io.jdat.DatReturnSubtype;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.HandleType;
import io.jdat.OsWaitProxyAgent;
import io.jdat.spi.DatArg;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A consumer notification object. An EVD triggers it when a notification event arrives while the
 * EVD is enabled, has the CNO, and has no direct waiter. A trigger wakes every waiter with the
 * EVD as a hint and calls the proxy agent, which is then no longer associated with the CNO
 * ({@code dat_cno_create(3DAT)}; {@code dat_cno_modify_agent} arms it again). When the IA closes or
 * the last EVD lets go, waiters and the agent are released with no EVD ({@code dat_cno_wait(3DAT)}).
 *
 * <p>Waits are level-triggered: before blocking, a waiter looks for an EVD of this CNO that
 * already holds a notification, so one that arrived before the wait is not lost.
 */
final class CnoImpl extends EngineObject implements Cno
{
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition triggered = lock.newCondition();
    /** EVDs that reference this CNO (guarded by the IA lock for changes, {@link #lock} for reads). */
    private final List<EvdImpl> evds = new ArrayList<>();
    /**
     * The armed agent, or {@link OsWaitProxyAgent#NULL}. {@code dat_cno_modify_agent} stores it
     * without the lock (an agent re-arms from its own call), so a trigger takes it in one atomic
     * step: a read and a later write of NULL would wipe out an arming landing between them.
     */
    private final AtomicReference<OsWaitProxyAgent> agent;
    /** Threads blocked in wait and not yet released. */
    private int waiters;
    private long generation;
    private EvdImpl lastTriggered;
    /** Counts releases: a waiter released stops counting at once, before its thread runs again. */
    private long releases;
    private int scanStart;

    CnoImpl(final IaImpl ia, final OsWaitProxyAgent agent)
    {
        super(ia, HandleType.CNO);
        this.agent = new AtomicReference<>(agent == null || agent.isNull() ? OsWaitProxyAgent.NULL : agent);
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_CNO;
    }

    void attach(final EvdImpl evd)
    {
        lock.lock();
        try
        {
            evds.add(evd);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** An EVD lets go of this CNO; when it was the last one, waiters are released with no EVD. */
    void detach(final EvdImpl evd)
    {
        final OsWaitProxyAgent a;
        lock.lock();
        try
        {
            evds.remove(evd);
            if (!evds.isEmpty())
            {
                return;
            }
            if (waiters > 0)
            {
                release();
            }
            a = takeAgent();
        }
        finally
        {
            lock.unlock();
        }
        callAgent(a, null);
    }

    /** The agent to invoke, detached: once invoked it is no longer associated with this CNO. */
    private OsWaitProxyAgent takeAgent()
    {
        final OsWaitProxyAgent a = agent.get();
        // unarmed: nothing to take, and no write that an arming could race
        return a == OsWaitProxyAgent.NULL ? a : agent.getAndSet(OsWaitProxyAgent.NULL);
    }

    /** Wakes every waiter with no EVD (IA closed, or the last EVD freed). Lock held. */
    private void release()
    {
        releases++;
        waiters = 0;
        lastTriggered = null;
        generation++;
        triggered.signalAll();
    }

    void trigger(final EvdImpl evd)
    {
        trigger(evd, true);
    }

    /**
     * Wakes the waiters and calls the agent, on this thread if {@code mayCallAgent}, else on a
     * thread of its own: a caller that holds an engine lock (an endpoint's, while a Send is placed
     * or receives are flushed) must not run consumer code, which may wait for that endpoint.
     */
    void trigger(final EvdImpl evd, final boolean mayCallAgent)
    {
        final OsWaitProxyAgent a;
        lock.lock();
        try
        {
            if (isDestroyed())
            {
                return;
            }
            lastTriggered = evd;
            generation++;
            triggered.signalAll();
            a = takeAgent();
        }
        finally
        {
            lock.unlock();
        }
        if (mayCallAgent)
        {
            callAgent(a, evd);
        }
        else if (a != null && a.function() != null)
        {
            // rare (an agent is called once per arming): the allocation of a short-lived thread
            Thread.ofVirtual().name("jdat-cno-agent").start(() -> callAgent(a, evd));
        }
    }

    private static void callAgent(final OsWaitProxyAgent a, final EvdImpl evd)
    {
        if (a != null && a.function() != null)
        {
            a.function().call(a.instanceData(), evd);
        }
    }

    @Override
    public DatStatus wait(final long timeoutMicros, final DatOut<EventDispatcher> evd)
    {
        checkLive();
        Errors.checkTimeout(timeoutMicros, DatArg.CNO_WAIT_TIMEOUT);
        if (evd == null)
        {
            throw Errors.invalidParameter(DatArg.CNO_WAIT_EVD, "evd_handle is null");
        }
        lock.lock();
        try
        {
            if (evds.isEmpty())
            {
                evd.value = null;
                return DatStatus.QUEUE_EMPTY;
            }
            final EvdImpl ready = scan();
            if (ready != null)
            {
                evd.value = ready;
                return DatStatus.SUCCESS;
            }
            if (timeoutMicros == 0)
            {
                evd.value = null;
                return DatStatus.QUEUE_EMPTY;
            }
            final long start = generation;
            final long epoch = releases;
            waiters++;
            try
            {
                long nanos = timeoutMicros == io.jdat.Dat.TIMEOUT_INFINITE ? Long.MAX_VALUE
                    : TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
                while (generation == start)
                {
                    if (nanos <= 0)
                    {
                        evd.value = null;
                        return DatStatus.QUEUE_EMPTY;
                    }
                    if (nanos == Long.MAX_VALUE)
                    {
                        triggered.await();
                    }
                    else
                    {
                        nanos = triggered.awaitNanos(nanos);
                    }
                }
            }
            catch (final InterruptedException e)
            {
                evd.value = null;
                throw Errors.interrupted("the waiting thread was interrupted");
            }
            finally
            {
                if (releases == epoch)
                {
                    waiters--;
                }
            }
            evd.value = releases != epoch ? null : lastTriggered;
            return DatStatus.SUCCESS;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The first EVD (round robin) holding a notification. Lock held. */
    private EvdImpl scan()
    {
        final int n = evds.size();
        for (int i = 0; i < n; i++)
        {
            final EvdImpl e = evds.get((scanStart + i) % n);
            if (e.hasNotification())
            {
                scanStart = (scanStart + i + 1) % n;
                return e;
            }
        }
        return null;
    }

    @Override
    public void modifyAgent(final OsWaitProxyAgent newAgent)
    {
        checkLive();
        if (newAgent != null && !newAgent.isValid())
        {
            throw Errors.invalidParameter(DatArg.CNO_AGENT, "an agent with instance data needs a function");
        }
        agent.set(newAgent == null || newAgent.isNull() ? OsWaitProxyAgent.NULL : newAgent);
    }

    @Override
    public void query(final long cnoParamMask, final CnoParam param)
    {
        checkLive();
        Errors.checkQuery(cnoParamMask, CnoParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param != null)
        {
            param.iaHandle = ia;
            param.agent = agent.get();
        }
    }

    @Override
    public void free()
    {
        synchronized (ia.lock)
        {
            checkLive();
            lock.lock();
            try
            {
                if (!evds.isEmpty() || waiters > 0)
                {
                    throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_CNO_IN_USE,
                        evds.size() + " EVDs reference this CNO and " + waiters + " threads wait on it");
                }
                markDestroyed();
            }
            finally
            {
                lock.unlock();
            }
            ia.forget(this);
        }
    }

    /** IA close: waiters and the agent (if still associated) are released with no EVD. IA lock held. */
    void destroy()
    {
        final OsWaitProxyAgent a;
        lock.lock();
        try
        {
            markDestroyed();
            evds.clear();
            if (waiters > 0)
            {
                release();
            }
            a = takeAgent();
        }
        finally
        {
            lock.unlock();
        }
        callAgent(a, null);
    }
}

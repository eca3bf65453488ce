package io.jdat.tools.kit;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemType;
import io.jdat.OsWaitProxyAgent;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.SharedReceiveQueue;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One open IA with a protection zone and an arena for the memory it registers: the starting
 * point of every tool. {@link #close()} closes the IA abruptly (everything it owns goes with it)
 * and frees the memory.
 */
public final class Node implements AutoCloseable
{
    /** The IA. */
    public final InterfaceAdapter ia;
    /** The IA's asynchronous EVD. */
    public final EventDispatcher asyncEvd;
    /** The protection zone every object of the tool lives in. */
    public final ProtectionZone pz;
    /** The IA's address, what peers connect to. */
    public final IaAddress address;
    /** The IA name that was opened. */
    public final String iaName;
    private final Arena arena = Arena.ofShared();
    private final java.util.List<AutoCloseable> shared = new java.util.ArrayList<>();
    private boolean closed;

    private Node(final String iaName, final boolean threadSafe)
    {
        this.iaName = iaName;
        final DatOut<EventDispatcher> async = new DatOut<>();
        this.ia = Dat.iaOpenv(iaName, 16, async, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, threadSafe);
        try
        {
            this.asyncEvd = async.value;
            this.pz = ia.pzCreate();
            final IaAttr attr = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);
            this.address = attr.iaAddress;
        }
        catch (final RuntimeException e)
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
            throw e;
        }
    }

    /** Opens {@code iaName} ({@code dat_ia_open}) and creates a PZ. */
    public static Node open(final String iaName)
    {
        return new Node(iaName, Dat.THREADSAFE);
    }

    /**
     * Opens {@code iaName} from its {@code threadsafe} or, with {@code threadSafe} false, its
     * {@code nonthreadsafe} registry entry ({@code dat_ia_openv}), and creates a PZ. An IA of a
     * {@code nonthreadsafe} entry is for one consumer thread at a time.
     */
    public static Node open(final String iaName, final boolean threadSafe)
    {
        return new Node(iaName, threadSafe);
    }

    /** The IA's attributes (all fields). */
    public IaAttr attributes()
    {
        final IaAttr attr = new IaAttr();
        ia.query(IaAttr.FIELD_ALL, attr, 0, null);
        return attr;
    }

    /** Memory from this node's arena, aligned to a page, zeroed. */
    public MemorySegment allocate(final long size)
    {
        return arena.allocate(Math.max(1, size), 4096);
    }

    /** Registers {@code size} new bytes ({@code dat_lmr_create}) with the given privileges. */
    public Lmr register(final long size, final int privileges)
    {
        final MemorySegment m = allocate(size);
        return ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), pz, privileges);
    }

    /**
     * Registers {@code size} new bytes of the {@code shm} provider's shared memory
     * ({@code DAT_MEM_TYPE_SHARED_VIRTUAL}), under this IA's provider directory; only on an
     * {@code shm} IA. RDMA out of it travels as a reference instead of through the rings.
     */
    public Lmr registerShared(final long size, final int privileges)
    {
        final String dir = attributes().transportAttr("jdat.shm.dir");
        if (dir == null)
        {
            throw new IllegalArgumentException(iaName + " is not an shm IA: it has no shared memory");
        }
        final SharedMemory m = SharedMemory.allocate(java.nio.file.Path.of(dir).getParent(), Math.max(1, size));
        synchronized (this)
        {
            shared.add(m);
        }
        return ia.lmrCreate(MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m.memory(), m.cookie()),
            m.memory().byteSize(), pz, privileges);
    }

    /** {@code dat_evd_create}. */
    public EventDispatcher evd(final int qlen, final Cno cno, final int flags)
    {
        return ia.evdCreate(qlen, cno, flags);
    }

    /** {@code dat_cno_create} without a proxy agent. */
    public Cno cno()
    {
        return ia.cnoCreate(OsWaitProxyAgent.NULL);
    }

    /**
     * An endpoint with its own receive, request and connection EVDs; with {@link Completion#CNO}
     * the two DTO EVDs report to a new CNO.
     */
    public Link link(final String name, final EpAttr attr, final Completion mode, final long timeoutMicros)
    {
        return new Link(this, name, attr, mode, timeoutMicros);
    }

    /**
     * As {@link #link}, the endpoint made with {@code dat_ep_create_with_srq}: it takes its
     * receive buffers from {@code srq} ({@code attr} null: the default attributes).
     */
    public Link link(final String name, final EpAttr attr, final Completion mode, final long timeoutMicros,
        final SharedReceiveQueue srq)
    {
        return new Link(this, name, attr, mode, timeoutMicros, srq);
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        catch (final DatException e)
        {
            // closed already
        }
        arena.close();
        for (final AutoCloseable m : shared)
        {
            try
            {
                m.close();
            }
            catch (final Exception e)
            {
                // the memory's file is removed with its directory at worst
            }
        }
    }

    @Override
    public String toString()
    {
        return iaName + "@" + address;
    }
}

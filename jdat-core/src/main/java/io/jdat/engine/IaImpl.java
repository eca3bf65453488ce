package io.jdat.engine;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpCreatorForPsp;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.IovOwnership;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.NamedAttr;
import io.jdat.OsWaitProxyAgent;
import io.jdat.ProtectionZone;
import io.jdat.ProviderAttr;
import io.jdat.PublicServicePoint;
import io.jdat.PzSupport;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.ReservedServicePoint;
import io.jdat.Rmr;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.engine.channel.TransportContext;
import io.jdat.engine.channel.TransportPort;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An open IA instance: the root of every object created through it. It owns the STag table,
 * the transport port, the async event stream, and (lazily) one timer thread for connect
 * timeouts; closing it ends all of them.
 */
final class IaImpl extends EngineObject implements InterfaceAdapter
{
    private static final AtomicInteger INSTANCE_IDS = new AtomicInteger();

    /** Guards object creation and destruction, and every reference count of this instance. */
    final Object lock = new Object();
    final SoftwareProvider provider;
    final EngineConfig config;
    final String name;
    final int instanceId;
    final MemoryTable memory = new MemoryTable();
    /**
     * Connection requests its service points refused because their CR EVD was full (or an
     * endpoint for the request could not be made): the IA's vendor attribute
     * {@code jdat.cr_refused}.
     */
    final AtomicLong refusedRequests = new AtomicLong();
    /** Whether EVD polls and waits drive the transport on the consumer's thread. */
    final boolean pollsInline;
    /**
     * Whether the {@code dat.conf} entry this instance was opened from says {@code nonthreadsafe}:
     * the consumer promises that one thread at a time calls on each handle (DAT's rule for such a
     * provider, the spec digest's section 1.6; two handles may be called on two threads at once),
     * so the posting side of an endpoint's send or receive queue, or of an SRQ, has one writer and
     * may publish with plain stores instead of an atomic claim, and an EVD has one thread waiting
     * or dequeuing at a time. What several handles share (a request EVD of two endpoints) keeps
     * one writer by its own choice ({@link ConsumerClaims}). It promises nothing about the
     * engine's own threads (a peer placing, a timer, an I/O thread), which keep whatever ordering
     * they need.
     */
    final boolean singleWriter;

    private final TransportPort port;
    private final LinkedHashSet<EngineObject> objects = new LinkedHashSet<>();
    private final int[] counts = new int[HandleType.values().length];
    private final Runnable onClose;
    private final List<Thread> threads = new ArrayList<>();
    /** The async EVD: created by open, shared from another instance, or null when out of scope. */
    private final EvdImpl asyncEvd;
    private ScheduledThreadPoolExecutor timer;
    /** Outstanding RDMA Reads of the whole IA, each direction (guarded by {@link #lock}). */
    int readsIn;
    int readsOut;

    IaImpl(final SoftwareProvider provider, final String name, final int asyncEvdMinQlen, final EventDispatcher given,
        final Runnable onClose)
    {
        super(null, HandleType.IA);
        this.provider = provider;
        this.config = provider.config;
        this.name = name;
        this.instanceId = INSTANCE_IDS.incrementAndGet();
        this.onClose = onClose;
        this.singleWriter = !provider.threadSafe;
        if (given == null)
        {
            if (asyncEvdMinQlen <= 0)
            {
                throw Errors.invalidParameter(DatArg.IA_OPEN_ASYNC_EVD_MIN_QLEN, "async_evd_min_qlen must be positive");
            }
            if (asyncEvdMinQlen > config.maxEvdQlen)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEVD,
                    "async_evd_min_qlen " + asyncEvdMinQlen + " exceeds max_evd_qlen " + config.maxEvdQlen);
            }
            asyncEvd = new EvdImpl(this, asyncEvdMinQlen, null, EvdFlags.ASYNC_FLAG, true);
            asyncEvd.streamRefs++;
            asyncEvd.otherStreams++;
        }
        else if (given == Dat.EVD_ASYNC_EXISTS)
        {
            asyncEvd = null;
        }
        else
        {
            if (!(given instanceof EvdImpl e) || e.isDestroyed() || e.ia.provider != provider
                || (e.flags & EvdFlags.ASYNC_FLAG) == 0)
            {
                throw Errors.invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                    "the async EVD given must be a live async EVD of the same provider");
            }
            asyncEvd = e;
            synchronized (e.ia.lock)
            {
                e.streamRefs++;
                e.otherStreams++;
            }
        }
        final ThreadFactory threadFactory = r ->
        {
            final Thread t = new Thread(r, "jdat-" + name + "-" + instanceId + "-" + threads.size());
            t.setDaemon(true);
            synchronized (threads)
            {
                threads.add(t);
            }
            return t;
        };
        try
        {
            this.port = provider.transport.open(new TransportContext(name, instanceId, threadFactory));
        }
        catch (final RuntimeException e)
        {
            releaseGivenAsyncEvd();
            throw e;
        }
        this.pollsInline = provider.pollsInline;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_IA;
    }

    TransportPort port()
    {
        return port;
    }

    // ------------------------------------------------------------------ bookkeeping

    /** Counts a new object against its limit and remembers it. Lock held. */
    void register(final EngineObject o, final int limit, final DatReturnSubtype resource, final String what)
    {
        final int t = o.type().ordinal();
        if (counts[t] >= limit)
        {
            throw Errors.insufficientResources(resource, "this IA already has " + counts[t] + " " + what
                + " (the limit)");
        }
        counts[t]++;
        objects.add(o);
    }

    /** Checks a limit before creating. Lock held. */
    void checkLimit(final HandleType type, final int limit, final DatReturnSubtype resource, final String what)
    {
        if (counts[type.ordinal()] >= limit)
        {
            throw Errors.insufficientResources(resource, "this IA already has " + counts[type.ordinal()] + " "
                + what + " (the limit)");
        }
    }

    void forget(final EngineObject o)
    {
        synchronized (lock)
        {
            if (objects.remove(o))
            {
                counts[o.type().ordinal()]--;
            }
        }
    }

    int count(final HandleType type)
    {
        synchronized (lock)
        {
            return counts[type.ordinal()];
        }
    }

    /** A timer task on this IA's timer thread (started on first use, ended by close). */
    ScheduledFuture<?> schedule(final Runnable task, final long delayMicros)
    {
        synchronized (lock)
        {
            if (isDestroyed())
            {
                return null;
            }
            if (timer == null)
            {
                timer = new ScheduledThreadPoolExecutor(1, r ->
                {
                    final Thread t = new Thread(r, "jdat-" + name + "-" + instanceId + "-timer");
                    t.setDaemon(true);
                    // counted with the transport's threads, so leak checks see it
                    synchronized (threads)
                    {
                        threads.add(t);
                    }
                    return t;
                });
                timer.setRemoveOnCancelPolicy(true);
                timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            }
            return timer.schedule(task, delayMicros, TimeUnit.MICROSECONDS);
        }
    }

    /**
     * Posts an asynchronous event to this instance's async EVD. An overflow of the async EVD
     * itself is not reported anywhere (there is nowhere left).
     */
    void reportAsync(final EventNumber number, final DatHandle handle, final int reason, final EvdImpl source)
    {
        final EvdImpl a = asyncEvd;
        if (a != null && a != source)
        {
            a.postAsync(number, handle, reason);
        }
    }

    // ------------------------------------------------------------------ DAT calls

    @Override
    public void close(final int closeFlags)
    {
        if (closeFlags != CloseFlags.ABRUPT_FLAG && closeFlags != CloseFlags.GRACEFUL_FLAG)
        {
            checkLive();
            throw Errors.invalidParameter(DatArg.IA_CLOSE_FLAGS, "close flags must be ABRUPT (0) or GRACEFUL (1)");
        }
        final List<Runnable> transportWork = new ArrayList<>();
        final ScheduledThreadPoolExecutor t;
        synchronized (lock)
        {
            checkLive();
            if (closeFlags == CloseFlags.GRACEFUL_FLAG)
            {
                final List<String> left = new ArrayList<>();
                for (final EngineObject o : objects)
                {
                    if (o.type() != HandleType.CR && o != asyncEvd)
                    {
                        left.add(o.type().name());
                    }
                }
                if (!left.isEmpty())
                {
                    throw Errors.invalidState(DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                        "graceful close with objects left: " + left);
                }
            }
            markDestroyed();
            // phased cascade: listeners, requests and endpoints, memory, queues, notification
            destroyAll(HandleType.PSP, transportWork);
            destroyAll(HandleType.RSP, transportWork);
            destroyAll(HandleType.CR, transportWork);
            destroyAll(HandleType.EP, transportWork);
            destroyAll(HandleType.RMR, transportWork);
            destroyAll(HandleType.LMR, transportWork);
            destroyAll(HandleType.SRQ, transportWork);
            destroyAll(HandleType.EVD, transportWork);
            destroyAll(HandleType.CNO, transportWork);
            destroyAll(HandleType.PZ, transportWork);
            memory.clear();
            if (asyncEvd != null && asyncEvd.ia == this)
            {
                asyncEvd.destroy();
            }
            t = timer;
            timer = null;
        }
        releaseGivenAsyncEvd();
        for (final Runnable r : transportWork)
        {
            r.run();
        }
        port.close();
        if (t != null)
        {
            t.shutdownNow();
        }
        provider.closed(this);
        onClose.run();
    }

    private void releaseGivenAsyncEvd()
    {
        if (asyncEvd != null && asyncEvd.ia != this)
        {
            synchronized (asyncEvd.ia.lock)
            {
                asyncEvd.streamRefs--;
                asyncEvd.otherStreams--;
            }
        }
    }

    private void destroyAll(final HandleType type, final List<Runnable> transportWork)
    {
        final List<EngineObject> victims = new ArrayList<>();
        for (final EngineObject o : objects)
        {
            if (o.type() == type)
            {
                victims.add(o);
            }
        }
        for (final EngineObject o : victims)
        {
            objects.remove(o);
            counts[type.ordinal()]--;
            switch (o)
            {
                case ServicePointImpl sp -> transportWork.add(sp.destroy());
                case CrImpl c -> transportWork.add(c.destroy());
                case EpImpl e -> transportWork.add(e.destroy());
                case EvdImpl e -> e.destroy();
                case CnoImpl c -> c.destroy();
                default -> o.markDestroyed();
            }
        }
    }

    /** The threads this instance's transport started and that are still alive. */
    List<Thread> liveThreads()
    {
        synchronized (threads)
        {
            return threads.stream().filter(Thread::isAlive).toList();
        }
    }

    @Override
    public EventDispatcher query(final long iaAttrMask, final IaAttr iaAttr, final long providerAttrMask,
        final ProviderAttr providerAttr)
    {
        checkLive();
        if ((iaAttrMask & ~IaAttr.FIELD_ALL) != 0)
        {
            throw Errors.invalidParameter(DatArg.IA_QUERY_IA_ATTR_MASK,
                "undefined IA attribute mask bits 0x" + Long.toHexString(iaAttrMask & ~IaAttr.FIELD_ALL));
        }
        if (iaAttr == null && iaAttrMask != 0)
        {
            throw Errors.invalidParameter(DatArg.IA_QUERY_IA_ATTR, "no IA attributes to fill for a non-zero mask");
        }
        if ((providerAttrMask & ~ProviderAttr.FIELD_ALL) != 0)
        {
            throw Errors.invalidParameter(DatArg.IA_QUERY_PROVIDER_ATTR_MASK,
                "undefined provider attribute mask bits 0x"
                + Long.toHexString(providerAttrMask & ~ProviderAttr.FIELD_ALL));
        }
        if (providerAttr == null && providerAttrMask != 0)
        {
            throw Errors.invalidParameter(DatArg.IA_QUERY_PROVIDER_ATTR,
                "no provider attributes to fill for a non-zero mask");
        }
        if (iaAttr != null)
        {
            fillIaAttr(iaAttr);
        }
        if (providerAttr != null)
        {
            fillProviderAttr(providerAttr);
        }
        return asyncEvd != null ? asyncEvd : Dat.EVD_OUT_OF_SCOPE;
    }

    private void fillIaAttr(final IaAttr a)
    {
        a.adapterName = name;
        a.vendorName = "jdat";
        a.hardwareVersionMajor = 0;
        a.hardwareVersionMinor = 1;
        a.firmwareVersionMajor = 0;
        a.firmwareVersionMinor = 1;
        a.iaAddress = port.address();
        a.maxEps = config.maxEps;
        a.maxDtoPerEp = config.maxDtoPerEp;
        a.maxRdmaReadPerEpIn = config.maxRdmaReadPerEp;
        a.maxRdmaReadPerEpOut = config.maxRdmaReadPerEp;
        a.maxEvds = config.maxEvds;
        a.maxEvdQlen = config.maxEvdQlen;
        a.maxIovSegmentsPerDto = config.maxIov;
        a.maxLmrs = config.maxLmrs;
        a.maxLmrBlockSize = config.maxLmrBlockSize;
        a.maxLmrVirtualAddress = -1L;
        a.maxPzs = config.maxPzs;
        a.maxMessageSize = config.maxMessageSize;
        a.maxRdmaSize = config.maxRdmaSize;
        a.maxRmrs = config.maxRmrs;
        a.maxRmrTargetAddress = -1L;
        a.maxSrqs = config.maxSrqs;
        a.maxEpPerSrq = config.maxEpPerSrq;
        a.maxRecvPerSrq = config.maxRecvPerSrq;
        a.maxIovSegmentsPerRdmaRead = config.maxIov;
        a.maxIovSegmentsPerRdmaWrite = config.maxIov;
        a.maxRdmaReadIn = config.maxRdmaReadPerIa;
        a.maxRdmaReadOut = config.maxRdmaReadPerIa;
        a.maxRdmaReadPerEpInGuaranteed = true;
        a.maxRdmaReadPerEpOutGuaranteed = true;
        a.transportAttr = provider.transportAttributes(port).toArray(new NamedAttr[0]);
        a.numTransportAttr = a.transportAttr.length;
        a.vendorAttr = new NamedAttr[] {new NamedAttr("jdat.cr_refused", Long.toString(refusedRequests.get()))};
        a.numVendorAttr = a.vendorAttr.length;
    }

    private void fillProviderAttr(final ProviderAttr p)
    {
        p.providerName = "jdat-" + provider.transport.name();
        p.providerVersionMajor = 0;
        p.providerVersionMinor = 1;
        p.daplVersionMajor = Dat.VERSION_MAJOR;
        p.daplVersionMinor = Dat.VERSION_MINOR;
        p.lmrMemTypesSupported = MemType.bit(MemType.VIRTUAL) | MemType.bit(MemType.LMR)
            | MemType.bit(MemType.SHARED_VIRTUAL);
        p.iovOwnershipOnReturn = IovOwnership.CONSUMER;
        p.datQosSupported = Qos.BEST_EFFORT;
        p.completionFlagsSupported = CompletionFlags.SUPPRESS_FLAG | CompletionFlags.SOLICITED_WAIT_FLAG
            | CompletionFlags.UNSIGNALLED_FLAG | CompletionFlags.BARRIER_FENCE_FLAG
            | CompletionFlags.EVD_THRESHOLD_FLAG;
        p.isThreadSafe = provider.threadSafe;
        p.maxPrivateDataSize = port.maxPrivateDataSize();
        p.supportsMultipath = false;
        p.epCreator = EpCreatorForPsp.IFASKED;
        p.pzSupport = PzSupport.SHAREABLE;
        p.optimalBufferAlignment = Dat.OPTIMAL_ALIGNMENT;
        for (final boolean[] row : p.evdStreamMergingSupported)
        {
            java.util.Arrays.fill(row, true);
        }
        p.srqSupported = true;
        p.srqWatermarksSupported = 1;
        p.srqEpPzDifferenceSupported = true;
        p.srqInfoSupported = 1;
        p.epRecvInfoSupported = 1;
        p.lmrSyncReq = false;
        p.dtoAsyncReturnGuaranteed = false;
        p.rdmaWriteForRdmaReadReq = false;
        p.providerSpecificAttr = provider.providerAttributes().toArray(new NamedAttr[0]);
        p.numProviderSpecificAttr = p.providerSpecificAttr.length;
    }

    @Override
    public ProtectionZone pzCreate()
    {
        synchronized (lock)
        {
            checkLive();
            final PzImpl pz = new PzImpl(this);
            register(pz, config.maxPzs, DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN, "PZs");
            return pz;
        }
    }

    @Override
    public Lmr lmrCreate(final int memType, final RegionDescription region, final long length,
        final ProtectionZone pzHandle, final int memPrivileges)
    {
        synchronized (lock)
        {
            checkLive();
            if (memType == MemType.SO_VIRTUAL)
            {
                throw Errors.modelNotSupported("DAT_MEM_TYPE_SO_VIRTUAL (Solaris strong ordering) is not supported");
            }
            if (memType != MemType.VIRTUAL && memType != MemType.LMR && memType != MemType.SHARED_VIRTUAL)
            {
                throw Errors.invalidParameter(DatArg.LMR_CREATE_MEM_TYPE, "unknown memory type " + memType);
            }
            final PzImpl pz = cast(pzHandle, PzImpl.class, this, DatReturnSubtype.INVALID_HANDLE_PZ, false, "pz");
            if ((memPrivileges & ~(MemPriv.ALL_FLAG | MemPriv.RO_DISABLE_FLAG)) != 0)
            {
                throw Errors.invalidParameter(DatArg.LMR_CREATE_PRIVILEGES,
                    String.format("unknown privilege bits 0x%x", memPrivileges));
            }
            final MemorySegment memory = switch (memType)
            {
                case MemType.LMR ->
                {
                    if (!(region instanceof RegionDescription.OfLmr(final Lmr source)))
                    {
                        throw Errors.invalidParameter(DatArg.LMR_CREATE_REGION_DESCRIPTION,
                            "DAT_MEM_TYPE_LMR needs RegionDescription.forLmr");
                    }
                    yield cast(source, LmrImpl.class, this, DatReturnSubtype.INVALID_HANDLE_LMR, false,
                        "for_lmr_handle").region.memory;
                }
                case MemType.SHARED_VIRTUAL ->
                {
                    if (!(region instanceof RegionDescription.Shared(final MemorySegment m, final byte[] cookie)))
                    {
                        throw Errors.invalidParameter(DatArg.LMR_CREATE_REGION_DESCRIPTION,
                            "DAT_MEM_TYPE_SHARED_VIRTUAL needs RegionDescription.forSharedMemory");
                    }
                    if (cookie == null || cookie.length != Dat.LMR_COOKIE_SIZE)
                    {
                        throw Errors.invalidParameter(DatArg.LMR_CREATE_REGION_DESCRIPTION,
                            "the shared memory id must be " + Dat.LMR_COOKIE_SIZE
                            + " bytes");
                    }
                    yield virtualMemory(m, length);
                }
                default ->
                {
                    if (!(region instanceof RegionDescription.Va(final MemorySegment m)))
                    {
                        throw Errors.invalidParameter(DatArg.LMR_CREATE_REGION_DESCRIPTION,
                            "DAT_MEM_TYPE_VIRTUAL needs RegionDescription.forVa");
                    }
                    yield virtualMemory(m, length);
                }
            };
            if (memType == MemType.SHARED_VIRTUAL)
            {
                provider.checkSharedMemory(memory, ((RegionDescription.Shared) region).sharedMemoryId());
            }
            checkLimit(HandleType.LMR, config.maxLmrs, DatReturnSubtype.RESOURCE_MEMORY_REGION, "LMRs");
            final int stag = memory().reserve();
            if (stag < 0)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_MEMORY_REGION, "the STag table is full");
            }
            final LmrImpl lmr = new LmrImpl(this, pz, memType, region, memory, memPrivileges, stag);
            memory().publish(lmr.region);
            register(lmr, config.maxLmrs, DatReturnSubtype.RESOURCE_MEMORY_REGION, "LMRs");
            pz.addUser();
            return lmr;
        }
    }

    private MemoryTable memory()
    {
        return memory;
    }

    private MemorySegment virtualMemory(final MemorySegment m, final long length)
    {
        if (m == null)
        {
            throw Errors.invalidParameter(DatArg.LMR_CREATE_REGION_DESCRIPTION, "the region's memory is null");
        }
        if (length == 0)
        {
            // dapltest's FFT expects a length error for a zero-length registration
            throw Errors.lengthError("cannot register 0 bytes");
        }
        if (length < 0 || length > m.byteSize())
        {
            throw Errors.invalidParameter(DatArg.LMR_CREATE_LENGTH,
                "length " + length + " is outside the segment's " + m.byteSize()
                + " bytes");
        }
        if (length > config.maxLmrBlockSize)
        {
            throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_MEMORY_REGION,
                "length " + length + " exceeds max_lmr_block_size " + config.maxLmrBlockSize);
        }
        if (!m.scope().isAlive())
        {
            throw Errors.invalidParameter(DatArg.LMR_CREATE_REGION_DESCRIPTION,
                "the region's memory was already released");
        }
        return m.asSlice(0, length);
    }

    Rmr rmrCreate(final PzImpl pzHandle)
    {
        synchronized (lock)
        {
            checkLive();
            final PzImpl pz = cast(pzHandle, PzImpl.class, this, DatReturnSubtype.INVALID_HANDLE_PZ, false, "pz");
            checkLimit(HandleType.RMR, config.maxRmrs, DatReturnSubtype.RESOURCE_MEMORY_REGION, "RMRs");
            final int stag = memory.reserve();
            if (stag < 0)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_MEMORY_REGION, "the STag table is full");
            }
            final RmrImpl rmr = new RmrImpl(this, pz, stag);
            register(rmr, config.maxRmrs, DatReturnSubtype.RESOURCE_MEMORY_REGION, "RMRs");
            pz.addUser();
            return rmr;
        }
    }

    @Override
    public void lmrSyncRdmaRead(final LmrTriplet[] localSegments, final long numSegments)
    {
        checkSync(localSegments, numSegments);
    }

    @Override
    public void lmrSyncRdmaWrite(final LmrTriplet[] localSegments, final long numSegments)
    {
        checkSync(localSegments, numSegments);
    }

    /** JVM memory is coherent: validate the segments (any LMR of this IA, any PZ) and succeed. */
    private void checkSync(final LmrTriplet[] segments, final long n)
    {
        checkLive();
        if (n < 0 || n > 0 && (segments == null || n > segments.length))
        {
            throw Errors.invalidParameter(DatArg.LMR_SYNC_NUM_SEGMENTS,
                "num_segments " + n + " does not match the array");
        }
        for (int i = 0; i < n; i++)
        {
            final LmrTriplet t = segments[i];
            if (t == null)
            {
                throw Errors.invalidParameter(DatArg.LMR_SYNC_LOCAL_SEGMENTS, "segment " + i + " is null");
            }
            if (t.segmentLength == 0)
            {
                continue;
            }
            final MemoryRegion r = memory.lookup(t.lmrContext);
            if (r == null || r.window)
            {
                throw Errors.invalidParameter(DatArg.LMR_SYNC_LOCAL_SEGMENTS,
                    String.format("segment %d: lmr_context 0x%08x names no LMR", i,
                    t.lmrContext));
            }
            if (r.offsetOf(t.virtualAddress, t.segmentLength) < 0)
            {
                throw Errors.invalidParameter(DatArg.LMR_SYNC_LOCAL_SEGMENTS, "segment " + i + " lies outside its LMR");
            }
        }
    }

    @Override
    public EventDispatcher evdCreate(final int evdMinQlen, final Cno cnoHandle, final int evdFlags)
    {
        synchronized (lock)
        {
            checkLive();
            if (evdMinQlen <= 0)
            {
                throw Errors.invalidParameter(DatArg.EVD_CREATE_MIN_QLEN, "evd_min_qlen must be positive");
            }
            if (evdMinQlen > config.maxEvdQlen)
            {
                throw Errors.insufficientResources(DatReturnSubtype.RESOURCE_TEVD,
                    "evd_min_qlen " + evdMinQlen + " exceeds max_evd_qlen " + config.maxEvdQlen);
            }
            final CnoImpl cno = cast(cnoHandle, CnoImpl.class, this, DatReturnSubtype.INVALID_HANDLE_CNO, true, "cno");
            if (evdFlags == 0 || (evdFlags & ~EvdFlags.ALL_FLAGS) != 0)
            {
                throw Errors.invalidParameter(DatArg.EVD_CREATE_FLAGS, String.format("bad EVD flags 0x%x", evdFlags));
            }
            checkLimit(HandleType.EVD, config.maxEvds, DatReturnSubtype.RESOURCE_TEVD, "EVDs");
            final EvdImpl evd = new EvdImpl(this, evdMinQlen, cno, evdFlags, false);
            register(evd, config.maxEvds, DatReturnSubtype.RESOURCE_TEVD, "EVDs");
            if (cno != null)
            {
                cno.attach(evd);
            }
            return evd;
        }
    }

    @Override
    public Cno cnoCreate(final OsWaitProxyAgent agent)
    {
        synchronized (lock)
        {
            checkLive();
            if (agent != null && !agent.isValid())
            {
                throw Errors.invalidParameter(DatArg.CNO_AGENT, "an agent with instance data needs a function");
            }
            final CnoImpl cno = new CnoImpl(this, agent);
            register(cno, config.maxCnos, DatReturnSubtype.RESOURCE_ERROR_HANDLER, "CNOs");
            return cno;
        }
    }

    @Override
    public Endpoint epCreate(final ProtectionZone pz, final EventDispatcher recvEvd, final EventDispatcher requestEvd,
        final EventDispatcher connectEvd, final EpAttr attributes)
    {
        return EpImpl.create(this, pz, recvEvd, requestEvd, connectEvd, null, attributes, false);
    }

    @Override
    public Endpoint epCreateWithSrq(final ProtectionZone pz, final EventDispatcher recvEvd,
        final EventDispatcher requestEvd, final EventDispatcher connectEvd, final SharedReceiveQueue srq,
        final EpAttr attributes)
    {
        return EpImpl.create(this, pz, recvEvd, requestEvd, connectEvd, srq, attributes, true);
    }

    @Override
    public PublicServicePoint pspCreate(final long connQual, final EventDispatcher evd, final int pspFlags)
    {
        return PspImpl.create(this, connQual, false, evd, pspFlags);
    }

    @Override
    public PublicServicePoint pspCreateAny(final EventDispatcher evd, final int pspFlags)
    {
        return PspImpl.create(this, 0, true, evd, pspFlags);
    }

    @Override
    public ReservedServicePoint rspCreate(final long connQual, final Endpoint ep, final EventDispatcher evd)
    {
        return RspImpl.create(this, connQual, ep, evd);
    }

    @Override
    public SharedReceiveQueue srqCreate(final ProtectionZone pz, final SrqAttr attributes)
    {
        return SrqImpl.create(this, pz, attributes);
    }

    @Override
    public String toString()
    {
        return "IA[" + name + "#" + instanceId + " " + port.address() + "]";
    }
}

package io.jdat;

/**
 * An open instance of an interface adapter ({@code DAT_IA_HANDLE}), made by {@code dat_ia_open}
 * ({@link Dat#iaOpen}) and closed by {@code dat_ia_close}; the calls that create objects
 * ({@code dat_pz_create}, {@code dat_evd_create}, {@code dat_ep_create}, {@code dat_psp_create} and
 * the others) are its methods. It is the root of every object created through it; closing it
 * releases them all.
 */
public interface InterfaceAdapter extends DatHandle
{
    /**
     * {@code dat_ia_close}. {@link CloseFlags#ABRUPT_FLAG}: destroys every object of this
     * instance (waiters return {@code DAT_ABORT}, CNO waiters are released, connections are torn
     * down) and always succeeds. {@link CloseFlags#GRACEFUL_FLAG}: closes only if the consumer
     * already freed everything it created (the provider-created async EVD is exempt), else
     * {@code DAT_INVALID_STATE} and nothing happens.
     */
    void close(int closeFlags);

    /**
     * {@code dat_ia_query}: fills the masked fields of the IA and provider attributes (either
     * may be {@code null} when its mask is 0) and returns this instance's async EVD, or
     * {@link Dat#EVD_OUT_OF_SCOPE}.
     */
    EventDispatcher query(long iaAttrMask, IaAttr iaAttr, long providerAttrMask, ProviderAttr providerAttr);

    /** {@code dat_pz_create}. */
    ProtectionZone pzCreate();

    /**
     * {@code dat_lmr_create}: registers memory. The LMR's contexts, registered size and
     * registered address are on the returned {@link Lmr}.
     *
     * @param memType       a {@link MemType}
     * @param region        what to register, matching {@code memType}
     * @param length        bytes to register (ignored for {@link MemType#LMR})
     * @param memPrivileges {@link MemPriv} bits; no remote right unless asked
     */
    Lmr lmrCreate(int memType, RegionDescription region, long length, ProtectionZone pz, int memPrivileges);

    /**
     * {@code dat_lmr_sync_rdma_read}: makes CPU writes to these segments visible to incoming
     * RDMA Reads. JVM memory is coherent ({@code lmr_sync_req} is false), so this validates
     * the segments and returns.
     */
    void lmrSyncRdmaRead(LmrTriplet[] localSegments, long numSegments);

    /** {@code dat_lmr_sync_rdma_write}: the same for incoming RDMA Writes. */
    void lmrSyncRdmaWrite(LmrTriplet[] localSegments, long numSegments);

    /**
     * {@code dat_evd_create}: a queue of at least {@code evdMinQlen} events, fed by the streams
     * {@code evdFlags} ({@link EvdFlags}) names, optionally notifying a CNO.
     */
    EventDispatcher evdCreate(int evdMinQlen, Cno cno, int evdFlags);

    /** {@code dat_cno_create}; {@code agent} may be {@code null} or {@link OsWaitProxyAgent#NULL}. */
    Cno cnoCreate(OsWaitProxyAgent agent);

    /**
     * {@code dat_ep_create}: an endpoint in {@link EpState#UNCONNECTED}. Any EVD may be
     * {@code null} ("not interested for now"); {@code attributes == null} picks the provider's
     * defaults (query them).
     */
    Endpoint epCreate(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
        EventDispatcher connectEvd, EpAttr attributes);

    /**
     * {@code dat_ep_create_with_srq}: an endpoint that takes its receive buffers from
     * {@code srq}. The attributes must not be {@code null}.
     */
    Endpoint epCreateWithSrq(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
        EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttr attributes);

    /**
     * {@code dat_psp_create}: a persistent listener on {@code connQual}; each request arrives as
     * a {@link EventNumber#CONNECTION_REQUEST_EVENT} on {@code evd}.
     *
     * @param pspFlags {@link PspFlags}
     */
    PublicServicePoint pspCreate(long connQual, EventDispatcher evd, int pspFlags);

    /**
     * {@code dat_psp_create_any}: as {@link #pspCreate} on a qualifier the provider picks;
     * {@link PublicServicePoint#connQual()} tells which.
     */
    PublicServicePoint pspCreateAny(EventDispatcher evd, int pspFlags);

    /**
     * {@code dat_rsp_create}: a one-shot listener bound to {@code ep} (which must be
     * {@link EpState#UNCONNECTED}; it becomes {@link EpState#RESERVED}).
     */
    ReservedServicePoint rspCreate(long connQual, Endpoint ep, EventDispatcher evd);

    /** {@code dat_srq_create}: a shared receive queue of at least the requested size. */
    SharedReceiveQueue srqCreate(ProtectionZone pz, SrqAttr attributes);
}

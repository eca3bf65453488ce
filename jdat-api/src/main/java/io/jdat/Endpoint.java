package io.jdat;

/**
 * An endpoint ({@code DAT_EP_HANDLE}) made by {@code dat_ep_create}: one end of one reliable
 * connection, with a receive queue and a request queue ({@code dat_ep_connect},
 * {@code dat_ep_post_send}, {@code dat_ep_post_recv}, {@code dat_ep_post_rdma_read},
 * {@code dat_ep_post_rdma_write}, {@code dat_ep_disconnect} and the other {@code dat_ep_*} calls).
 * The post calls never block and, in steady state, never allocate; they copy the triplets, so the
 * {@code iov} array is the consumer's again on return (the memory it describes is not, until the
 * DTO completes).
 */
public interface Endpoint extends DatHandle
{
    /**
     * {@code dat_ep_free}: in any state but {@link EpState#RESERVED},
     * {@link EpState#PASSIVE_CONNECTION_PENDING} and {@link EpState#TENTATIVE_CONNECTION_PENDING};
     * a live connection is torn down abruptly.
     */
    void free();

    /** {@code dat_ep_query}. */
    void query(long epParamMask, EpParam param);

    /** {@code dat_ep_modify}: changes the masked parameters, all or nothing. */
    void modify(long epParamMask, EpParam param);

    /**
     * {@code dat_ep_connect}: asks whatever listens on {@code remoteConnQual} at
     * {@code remoteIaAddress} to connect. Returns with the EP in
     * {@link EpState#ACTIVE_CONNECTION_PENDING}; the outcome arrives on the connect EVD.
     *
     * @param timeoutMicros positive, or {@link Dat#TIMEOUT_INFINITE}
     * @param privateData   delivered whole to the remote consumer; {@code null} means none
     * @param qos           {@link Qos}
     * @param connectFlags  {@link ConnectFlags}
     */
    void connect(IaAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
        int qos, int connectFlags);

    /**
     * {@code dat_ep_dup_connect}: connects to the same remote end as the connected endpoint
     * {@code dupEp} (same address, qualifier and connect flags it was connected with).
     */
    void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos);

    /**
     * {@code dat_ep_disconnect}. {@link CloseFlags#ABRUPT_FLAG} flushes what is outstanding;
     * {@link CloseFlags#GRACEFUL_FLAG} lets posted requests finish first (state
     * {@link EpState#DISCONNECT_PENDING}). Either ends in {@code DISCONNECTED} on the connect EVD.
     */
    void disconnect(int disconnectFlags);

    /** {@code dat_ep_get_status}: a snapshot of the state and of whether the queues are idle. */
    void getStatus(EpStatus status);

    /** {@code dat_ep_reset}: {@code DISCONNECTED} → {@code UNCONNECTED}; a no-op when {@code UNCONNECTED}. */
    void reset();

    /**
     * {@code dat_ep_post_send}: sends the bytes of {@code iov[0..numSegments)} in order.
     *
     * @param completionFlags {@link CompletionFlags}: SUPPRESS, SOLICITED_WAIT, UNSIGNALLED, BARRIER_FENCE
     */
    void postSend(int numSegments, LmrTriplet[] iov, long userCookie, int completionFlags);

    /** {@code dat_ep_post_recv}: a buffer for one incoming message; allowed in every state. */
    void postRecv(int numSegments, LmrTriplet[] iov, long userCookie, int completionFlags);

    /** {@code dat_ep_post_rdma_read}: reads the whole remote buffer into {@code iov}, in order. */
    void postRdmaRead(int numSegments, LmrTriplet[] iov, long userCookie, RmrTriplet remoteBuffer,
        int completionFlags);

    /** {@code dat_ep_post_rdma_write}: writes the bytes of {@code iov} into the remote buffer. */
    void postRdmaWrite(int numSegments, LmrTriplet[] iov, long userCookie, RmrTriplet remoteBuffer,
        int completionFlags);

    /**
     * {@code dat_ep_recv_query}: how many receive buffers this EP holds whose completion is not
     * yet generated, and how many more successful receive completions it could produce. Either
     * argument may be {@code null}.
     */
    void recvQuery(DatCount nbufsAllocated, DatCount bufsAllocSpan);

    /**
     * {@code dat_ep_set_watermark}: arms the soft and hard high watermarks on the number of
     * receive buffers the EP holds ({@link Dat#WATERMARK_INFINITE} disarms one).
     */
    void setWatermark(int softHighWatermark, int hardHighWatermark);
}

package io.jdat;

/**
 * A consumer notification object ({@code DAT_CNO_HANDLE}) made by {@code dat_cno_create}: one place
 * to block on several EVDs of one IA ({@code dat_cno_wait}, {@code dat_cno_query},
 * {@code dat_cno_modify_agent}, {@code dat_cno_free}). It carries no events; the EVD it returns is
 * a hint, so poll every EVD feeding it.
 */
public interface Cno extends DatHandle
{
    /** {@code dat_cno_free}; {@code DAT_INVALID_STATE} while an EVD references it or a thread waits. */
    void free();

    /** {@code dat_cno_query}. */
    void query(long cnoParamMask, CnoParam param);

    /**
     * {@code dat_cno_wait}: blocks until an EVD feeding this CNO notifies.
     *
     * @param evd receives the notifying EVD (a hint), or {@code null} when released because the
     *     IA was closed or every EVD of this CNO was freed
     * @return {@link DatStatus#SUCCESS}, or {@link DatStatus#QUEUE_EMPTY} when the timeout expired
     */
    DatStatus wait(long timeoutMicros, DatOut<EventDispatcher> evd);

    /**
     * {@code dat_cno_modify_agent}: the agent is called on the next trigger (or with no EVD when
     * the IA closes or the last EVD lets go) and is then no longer associated with this CNO;
     * {@link OsWaitProxyAgent#NULL} detaches.
     */
    void modifyAgent(OsWaitProxyAgent agent);
}

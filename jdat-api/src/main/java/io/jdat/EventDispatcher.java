package io.jdat;

/**
 * An event dispatcher ({@code DAT_EVD_HANDLE}) made by {@code dat_evd_create}: a queue fed by event
 * streams, read with {@code dat_evd_wait} and {@code dat_evd_dequeue}. The normal outcomes of
 * {@link #dequeue}, {@link #wait(long, int, DatEvent, DatCount)} and {@link #postSe} are returned
 * as preallocated {@link DatStatus} values; nothing on those paths allocates.
 */
public interface EventDispatcher extends DatHandle
{
    /** {@code dat_evd_free}; {@code DAT_INVALID_STATE} while a stream still feeds it. */
    void free();

    /** {@code dat_evd_query}. */
    void query(long evdParamMask, EvdParam param);

    /**
     * {@code dat_evd_wait}: blocks until at least {@code threshold} events are queued (counting
     * notification events), then moves the first into {@code event} and writes the number
     * still queued into {@code nmore}.
     *
     * @param timeoutMicros microseconds, 0 to poll, {@link Dat#TIMEOUT_INFINITE} for ever
     * @return {@link DatStatus#SUCCESS}, or {@link DatStatus#TIMEOUT_EXPIRED} (nothing dequeued,
     *     {@code nmore} valid)
     * @throws DatException {@code DAT_INVALID_STATE} for a second waiter or an unwaitable EVD,
     *     {@code DAT_ABORT} if the IA closes or the EVD is freed under the waiter,
     *     {@code DAT_INTERRUPTED_CALL} if the thread is interrupted, {@code DAT_INVALID_PARAMETER}
     *     for a bad timeout or threshold
     */
    DatStatus wait(long timeoutMicros, int threshold, DatEvent event, DatCount nmore);

    /**
     * {@code dat_evd_dequeue}: takes the first event without blocking.
     *
     * @return {@link DatStatus#SUCCESS} or {@link DatStatus#QUEUE_EMPTY}
     */
    DatStatus dequeue(DatEvent event);

    /**
     * {@code dat_evd_post_se}: queues a copy of a {@link EventNumber#SOFTWARE_EVENT}.
     *
     * @return {@link DatStatus#SUCCESS} or {@link DatStatus#QUEUE_FULL} (not queued; not an overflow)
     */
    DatStatus postSe(DatEvent event);

    /** {@code dat_evd_enable}: arrivals may trigger the CNO again. */
    void enable();

    /** {@code dat_evd_disable}: arrivals stop triggering the CNO (events still queue). */
    void disable();

    /**
     * {@code dat_evd_set_unwaitable}: {@link #wait(long, int, DatEvent, DatCount)} fails, and a blocked waiter returns.
     */
    void setUnwaitable();

    /** {@code dat_evd_clear_unwaitable}. */
    void clearUnwaitable();

    /** {@code dat_evd_modify_cno}; {@code null} detaches. */
    void modifyCno(Cno cno);

    /** {@code dat_evd_resize}: keeps every queued event. */
    void resize(int evdMinQlen);
}

package io.jdat;

/**
 * A connection request ({@code DAT_CR_HANDLE}), delivered by a
 * {@link EventNumber#CONNECTION_REQUEST_EVENT} and answered with {@code dat_cr_accept},
 * {@code dat_cr_reject} or {@code dat_cr_handoff} ({@code dat_cr_query} reports it). A successful
 * accept, a reject or a handoff destroys it.
 */
public interface ConnectionRequest extends DatHandle
{
    /** {@code dat_cr_query}. */
    void query(long crParamMask, CrParam param);

    /**
     * {@code dat_cr_accept}: accepts on {@code ep} (a consumer-model PSP), or on the endpoint the
     * request already names ({@code ep} must then be {@code null}). Asynchronous: the result is
     * {@code ESTABLISHED} or {@code ACCEPT_COMPLETION_ERROR} on the endpoint's connect EVD.
     */
    void accept(Endpoint ep, byte[] privateData);

    /** {@code dat_cr_reject}: the active side sees {@code PEER_REJECTED}. */
    void reject();

    /** {@code dat_cr_handoff}: passes the request to the service point on {@code handoffConnQual}. */
    void handoff(long handoffConnQual);
}

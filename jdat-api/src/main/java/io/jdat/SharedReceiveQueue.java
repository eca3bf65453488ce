package io.jdat;

/**
 * A shared receive queue ({@code DAT_SRQ_HANDLE}) made by {@code dat_srq_create}: receive buffers
 * for many endpoints, posted with {@code dat_srq_post_recv}.
 */
public interface SharedReceiveQueue extends DatHandle
{
    /** {@code dat_srq_free}; {@code DAT_INVALID_STATE} while an endpoint uses it. */
    void free();

    /** {@code dat_srq_post_recv}: a buffer any connected endpoint of this SRQ may take. */
    void postRecv(int numSegments, LmrTriplet[] iov, long userCookie);

    /** {@code dat_srq_query}. */
    void query(long srqParamMask, SrqParam param);

    /** {@code dat_srq_resize}: never loses a buffer. */
    void resize(int srqMaxRecvDto);

    /**
     * {@code dat_srq_set_lw}: arms the low watermark; the first time the available count falls
     * below it (at once if it already is) an asynchronous event goes to the IA's async EVD.
     */
    void setLw(int lowWatermark);
}

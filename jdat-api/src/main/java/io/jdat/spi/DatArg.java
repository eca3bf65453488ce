package io.jdat.spi;

/**
 * Argument positions of the DAT calls ({@code dat_ep_connect}, {@code dat_lmr_create}, ...),
 * counted from 1 as {@code DAT_INVALID_ARGn} counts them. They follow uDAPL 1.2's C signatures,
 * the handle first, for a provider's {@code DAT_INVALID_PARAMETER}: its subtype says which
 * argument was wrong ({@link io.jdat.DatReturnSubtype#invalidArg}). One constant per argument a
 * provider checks, named CALL_ARGUMENT after the C call and its parameter.
 */
public final class DatArg
{
    /** dat_ia_open(ia_name, async_evd_min_qlen, async_evd_handle, ia_handle). */
    public static final int IA_OPEN_ASYNC_EVD_MIN_QLEN = 2;
    /** dat_ia_close(ia_handle, ia_flags). */
    public static final int IA_CLOSE_FLAGS = 2;
    /** dat_ia_query(ia_handle, async_evd_handle, ia_attr_mask, ia_attr, provider_attr_mask, provider_attr). */
    public static final int IA_QUERY_IA_ATTR_MASK = 3;
    public static final int IA_QUERY_IA_ATTR = 4;
    public static final int IA_QUERY_PROVIDER_ATTR_MASK = 5;
    public static final int IA_QUERY_PROVIDER_ATTR = 6;
    /** dat_xxx_query(handle, param_mask, param): every object's query. */
    public static final int QUERY_PARAM = 3;

    /** dat_lmr_create(ia_handle, mem_type, region_description, length, pz_handle, privileges, ...). */
    public static final int LMR_CREATE_MEM_TYPE = 2;
    public static final int LMR_CREATE_REGION_DESCRIPTION = 3;
    public static final int LMR_CREATE_LENGTH = 4;
    public static final int LMR_CREATE_PRIVILEGES = 6;
    /** dat_lmr_sync_rdma_read / _write(ia_handle, local_segments, num_segments). */
    public static final int LMR_SYNC_LOCAL_SEGMENTS = 2;
    public static final int LMR_SYNC_NUM_SEGMENTS = 3;
    /** dat_rmr_bind(rmr_handle, lmr_triplet, mem_privileges, ep_handle, user_cookie, completion_flags, ...). */
    public static final int RMR_BIND_LMR_TRIPLET = 2;
    public static final int RMR_BIND_MEM_PRIVILEGES = 3;
    public static final int RMR_BIND_COMPLETION_FLAGS = 6;

    /** dat_evd_create(ia_handle, evd_min_qlen, cno_handle, evd_flags, evd_handle). */
    public static final int EVD_CREATE_MIN_QLEN = 2;
    public static final int EVD_CREATE_FLAGS = 4;
    /** dat_evd_resize(evd_handle, evd_min_qlen). */
    public static final int EVD_RESIZE_MIN_QLEN = 2;
    /** dat_evd_post_se(evd_handle, event). */
    public static final int EVD_POST_SE_EVD = 1;
    public static final int EVD_POST_SE_EVENT = 2;
    /** dat_evd_dequeue(evd_handle, event). */
    public static final int EVD_DEQUEUE_EVENT = 2;
    /** dat_evd_wait(evd_handle, timeout, threshold, event, nmore). */
    public static final int EVD_WAIT_TIMEOUT = 2;
    public static final int EVD_WAIT_THRESHOLD = 3;
    public static final int EVD_WAIT_EVENT = 4;
    /** dat_cno_create(ia_handle, agent, cno_handle) and dat_cno_modify_agent(cno_handle, agent). */
    public static final int CNO_AGENT = 2;
    /** dat_cno_wait(cno_handle, timeout, evd_handle). */
    public static final int CNO_WAIT_TIMEOUT = 2;
    public static final int CNO_WAIT_EVD = 3;

    /** dat_ep_create(ia_handle, pz_handle, recv_evd, request_evd, connect_evd, ep_attributes, ep_handle). */
    public static final int EP_CREATE_RECV_EVD = 3;
    public static final int EP_CREATE_REQUEST_EVD = 4;
    public static final int EP_CREATE_CONNECT_EVD = 5;
    public static final int EP_CREATE_ATTRIBUTES = 6;
    /** dat_ep_create_with_srq(ia_handle, pz_handle, recv_evd, request_evd, connect_evd, srq, ep_attributes, ...). */
    public static final int EP_CREATE_WITH_SRQ_ATTRIBUTES = 7;
    /** dat_ep_modify(ep_handle, ep_param_mask, ep_param). */
    public static final int EP_MODIFY_MASK = 2;
    public static final int EP_MODIFY_PARAM = 3;
    /** dat_ep_set_watermark(ep_handle, soft_high_watermark, hard_high_watermark). */
    public static final int EP_SET_WATERMARK_SOFT = 2;
    /**
     * dat_ep_connect(ep_handle, remote_ia_address, remote_conn_qual, timeout, private_data_size,
     * private_data, qos, connect_flags).
     */
    public static final int EP_CONNECT_REMOTE_CONN_QUAL = 3;
    public static final int EP_CONNECT_TIMEOUT = 4;
    public static final int EP_CONNECT_PRIVATE_DATA_SIZE = 5;
    public static final int EP_CONNECT_QOS = 7;
    public static final int EP_CONNECT_FLAGS = 8;
    /** dat_ep_dup_connect(ep_handle, dup_ep_handle, timeout, private_data_size, private_data, qos). */
    public static final int EP_DUP_CONNECT_DUP_EP = 2;
    public static final int EP_DUP_CONNECT_TIMEOUT = 3;
    public static final int EP_DUP_CONNECT_PRIVATE_DATA_SIZE = 4;
    public static final int EP_DUP_CONNECT_QOS = 6;
    /** dat_ep_disconnect(ep_handle, disconnect_flags). */
    public static final int EP_DISCONNECT_FLAGS = 2;
    /** dat_ep_post_send / _recv / _rdma_read / _rdma_write(ep_handle, num_segments, local_iov, user_cookie, ...). */
    public static final int POST_NUM_SEGMENTS = 2;
    public static final int POST_LOCAL_IOV = 3;
    /** dat_ep_post_recv(ep_handle, num_segments, local_iov, user_cookie, completion_flags). */
    public static final int POST_RECV_COMPLETION_FLAGS = 5;
    /** dat_ep_post_rdma_read / _write(ep_handle, num_segments, local_iov, user_cookie, remote_iov, flags). */
    public static final int POST_RDMA_REMOTE_IOV = 5;

    /** dat_psp_create(ia_handle, conn_qual, evd_handle, psp_flags, psp_handle). */
    public static final int PSP_CREATE_CONN_QUAL = 2;
    public static final int PSP_CREATE_FLAGS = 4;
    /** dat_cr_accept(cr_handle, ep_handle, private_data_size, private_data). */
    public static final int CR_ACCEPT_PRIVATE_DATA_SIZE = 3;
    /** dat_cr_handoff(cr_handle, handoff). */
    public static final int CR_HANDOFF_HANDOFF = 2;

    /** dat_srq_create(ia_handle, pz_handle, srq_attr, srq_handle). */
    public static final int SRQ_CREATE_ATTR = 3;
    /** dat_srq_resize(srq_handle, srq_max_recv_dto). */
    public static final int SRQ_RESIZE_MAX_RECV_DTO = 2;
    /** dat_srq_set_lw(srq_handle, low_watermark). */
    public static final int SRQ_SET_LW_LOW_WATERMARK = 2;

    private DatArg()
    {
    }
}

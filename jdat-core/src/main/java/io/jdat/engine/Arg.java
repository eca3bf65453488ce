package io.jdat.engine;

/**
 * Argument positions of the DAT calls, counted from 1 as {@code DAT_INVALID_ARGn} counts them
 * (uDAPL 1.2's C signatures, the handle first): the subtype of a {@code DAT_INVALID_PARAMETER}
 * says which argument was wrong. One constant per argument the engine checks, named
 * CALL_ARGUMENT after the C call and parameter.
 */
final class Arg
{
    /** dat_ia_open(ia_name, async_evd_min_qlen, async_evd_handle, ia_handle). */
    static final int IA_OPEN_ASYNC_EVD_MIN_QLEN = 2;
    /** dat_ia_close(ia_handle, ia_flags). */
    static final int IA_CLOSE_FLAGS = 2;
    /** dat_ia_query(ia_handle, async_evd_handle, ia_attr_mask, ia_attr, provider_attr_mask, provider_attr). */
    static final int IA_QUERY_IA_ATTR = 4;
    static final int IA_QUERY_PROVIDER_ATTR = 6;
    /** dat_xxx_query(handle, param_mask, param): every object's query. */
    static final int QUERY_PARAM = 3;

    /** dat_lmr_create(ia_handle, mem_type, region_description, length, pz_handle, privileges, ...). */
    static final int LMR_CREATE_MEM_TYPE = 2;
    static final int LMR_CREATE_REGION_DESCRIPTION = 3;
    static final int LMR_CREATE_LENGTH = 4;
    static final int LMR_CREATE_PRIVILEGES = 6;
    /** dat_lmr_sync_rdma_read / _write(ia_handle, local_segments, num_segments). */
    static final int LMR_SYNC_LOCAL_SEGMENTS = 2;
    static final int LMR_SYNC_NUM_SEGMENTS = 3;
    /** dat_rmr_bind(rmr_handle, lmr_triplet, mem_privileges, ep_handle, user_cookie, completion_flags, ...). */
    static final int RMR_BIND_LMR_TRIPLET = 2;
    static final int RMR_BIND_MEM_PRIVILEGES = 3;
    static final int RMR_BIND_COMPLETION_FLAGS = 6;

    /** dat_evd_create(ia_handle, evd_min_qlen, cno_handle, evd_flags, evd_handle). */
    static final int EVD_CREATE_MIN_QLEN = 2;
    static final int EVD_CREATE_FLAGS = 4;
    /** dat_evd_resize(evd_handle, evd_min_qlen). */
    static final int EVD_RESIZE_MIN_QLEN = 2;
    /** dat_evd_post_se(evd_handle, event). */
    static final int EVD_POST_SE_EVD = 1;
    static final int EVD_POST_SE_EVENT = 2;
    /** dat_evd_dequeue(evd_handle, event). */
    static final int EVD_DEQUEUE_EVENT = 2;
    /** dat_evd_wait(evd_handle, timeout, threshold, event, nmore). */
    static final int EVD_WAIT_TIMEOUT = 2;
    static final int EVD_WAIT_THRESHOLD = 3;
    static final int EVD_WAIT_EVENT = 4;
    /** dat_cno_create(ia_handle, agent, cno_handle) and dat_cno_modify_agent(cno_handle, agent). */
    static final int CNO_AGENT = 2;
    /** dat_cno_wait(cno_handle, timeout, evd_handle). */
    static final int CNO_WAIT_TIMEOUT = 2;
    static final int CNO_WAIT_EVD = 3;

    /** dat_ep_create(ia_handle, pz_handle, recv_evd, request_evd, connect_evd, ep_attributes, ep_handle). */
    static final int EP_CREATE_CONNECT_EVD = 5;
    static final int EP_CREATE_ATTRIBUTES = 6;
    /** dat_ep_create_with_srq(ia_handle, pz_handle, recv_evd, request_evd, connect_evd, srq, ep_attributes, ...). */
    static final int EP_CREATE_WITH_SRQ_ATTRIBUTES = 7;
    /** dat_ep_modify(ep_handle, ep_param_mask, ep_param). */
    static final int EP_MODIFY_MASK = 2;
    static final int EP_MODIFY_PARAM = 3;
    /** dat_ep_set_watermark(ep_handle, soft_high_watermark, hard_high_watermark). */
    static final int EP_SET_WATERMARK_SOFT = 2;
    /**
     * dat_ep_connect(ep_handle, remote_ia_address, remote_conn_qual, timeout, private_data_size,
     * private_data, qos, connect_flags).
     */
    static final int EP_CONNECT_TIMEOUT = 4;
    static final int EP_CONNECT_PRIVATE_DATA_SIZE = 5;
    static final int EP_CONNECT_QOS = 7;
    static final int EP_CONNECT_FLAGS = 8;
    /** dat_ep_dup_connect(ep_handle, dup_ep_handle, timeout, private_data_size, private_data, qos). */
    static final int EP_DUP_CONNECT_DUP_EP = 2;
    /** dat_ep_disconnect(ep_handle, disconnect_flags). */
    static final int EP_DISCONNECT_FLAGS = 2;
    /** dat_ep_post_send / _recv / _rdma_read / _rdma_write(ep_handle, num_segments, local_iov, user_cookie, ...). */
    static final int POST_LOCAL_IOV = 3;
    /** dat_ep_post_recv(ep_handle, num_segments, local_iov, user_cookie, completion_flags). */
    static final int POST_RECV_COMPLETION_FLAGS = 5;
    /** dat_ep_post_rdma_read / _write(ep_handle, num_segments, local_iov, user_cookie, remote_iov, flags). */
    static final int POST_RDMA_REMOTE_IOV = 5;

    /** dat_psp_create(ia_handle, conn_qual, evd_handle, psp_flags, psp_handle). */
    static final int PSP_CREATE_FLAGS = 4;
    /** dat_cr_accept(cr_handle, ep_handle, private_data_size, private_data). */
    static final int CR_ACCEPT_PRIVATE_DATA = 4;
    /** dat_cr_handoff(cr_handle, handoff). */
    static final int CR_HANDOFF_HANDOFF = 2;

    /** dat_srq_create(ia_handle, pz_handle, srq_attr, srq_handle). */
    static final int SRQ_CREATE_ATTR = 3;
    /** dat_srq_resize(srq_handle, srq_max_recv_dto). */
    static final int SRQ_RESIZE_MAX_RECV_DTO = 2;
    /** dat_srq_set_lw(srq_handle, low_watermark). */
    static final int SRQ_SET_LW_LOW_WATERMARK = 2;

    private Arg()
    {
    }
}

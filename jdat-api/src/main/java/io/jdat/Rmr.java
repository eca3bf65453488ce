package io.jdat;

/**
 * A remote memory region, a memory window ({@code DAT_RMR_HANDLE}): made by {@code dat_rmr_create},
 * bound to an LMR with {@code dat_rmr_bind}, queried with {@code dat_rmr_query} and freed with
 * {@code dat_rmr_free}.
 */
public interface Rmr extends DatHandle
{
    /**
     * {@code dat_rmr_bind}: binds this window to {@code [lmrTriplet.virtualAddress, +length)}
     * of an LMR through {@code ep}, and returns the new {@code rmr_context} at once; the
     * completion arrives as {@link EventNumber#RMR_BIND_COMPLETION_EVENT} on the EP's request
     * EVD. A zero-length triplet unbinds. Every later Send, RDMA and bind on {@code ep} is
     * fenced behind the bind.
     *
     * @param memPrivileges   remote rights only ({@link MemPriv#REMOTE_READ_FLAG}, {@link MemPriv#REMOTE_WRITE_FLAG})
     * @param userCookie      returned in the completion
     * @param completionFlags {@link CompletionFlags}
     */
    int bind(LmrTriplet lmrTriplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags);

    /** {@code dat_rmr_free}; unbinds first if bound. */
    void free();

    /** {@code dat_rmr_query}. */
    void query(long rmrParamMask, RmrParam param);
}

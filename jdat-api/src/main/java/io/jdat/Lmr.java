package io.jdat;

import java.lang.foreign.MemorySegment;

/**
 * A local memory region ({@code DAT_LMR_HANDLE}): memory registered with {@code dat_lmr_create},
 * queried with {@code dat_lmr_query} and released with {@code dat_lmr_free}.
 */
public interface Lmr extends DatHandle
{
    /** {@code dat_lmr_free}; {@code DAT_INVALID_STATE} while an RMR is bound into it. */
    void free();

    /** {@code dat_lmr_query}. */
    void query(long lmrParamMask, LmrParam param);

    /** The {@code lmr_context} {@code dat_lmr_create} returned: use it in {@link LmrTriplet}s. */
    int lmrContext();

    /** The {@code rmr_context} {@code dat_lmr_create} returned (0 without remote rights). */
    int rmrContext();

    /** {@code registered_size}. */
    long registeredSize();

    /** {@code registered_address}: the virtual address of the first registered byte. */
    long registeredAddress();

    /** The registered memory, {@code registeredSize()} bytes starting at {@code registeredAddress()}. */
    MemorySegment memory();
}

package io.jdat;

/** A protection zone ({@code DAT_PZ_HANDLE}): which memory which endpoints may touch. */
public interface ProtectionZone extends DatHandle
{
    /** {@code dat_pz_free}; {@code DAT_INVALID_STATE} while an EP, LMR, RMR or SRQ uses it. */
    void free();

    /** {@code dat_pz_query}. */
    void query(long pzParamMask, PzParam param);

    /** {@code dat_rmr_create}: an unbound memory window in this zone. */
    Rmr rmrCreate();
}

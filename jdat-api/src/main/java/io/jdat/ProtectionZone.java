package io.jdat;

/**
 * A protection zone ({@code DAT_PZ_HANDLE}) made by {@code dat_pz_create}: which memory which
 * endpoints may touch ({@code dat_pz_query}, {@code dat_pz_free}, and {@code dat_rmr_create} in
 * it).
 */
public interface ProtectionZone extends DatHandle
{
    /** {@code dat_pz_free}; {@code DAT_INVALID_STATE} while an EP, LMR, RMR or SRQ uses it. */
    void free();

    /** {@code dat_pz_query}. */
    void query(long pzParamMask, PzParam param);

    /** {@code dat_rmr_create}: an unbound memory window in this zone. */
    Rmr rmrCreate();
}

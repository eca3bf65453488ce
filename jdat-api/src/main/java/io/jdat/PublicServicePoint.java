package io.jdat;

/**
 * A public service point ({@code DAT_PSP_HANDLE}) made by {@code dat_psp_create} or
 * {@code dat_psp_create_any}: a persistent listener ({@code dat_psp_query}, {@code dat_psp_free}).
 */
public non-sealed interface PublicServicePoint extends ServicePoint
{
    /**
     * {@code dat_psp_free}: later requests for the qualifier are refused as if nobody listened;
     * connection requests already delivered stay valid.
     */
    void free();

    /** {@code dat_psp_query}. */
    void query(long pspParamMask, PspParam param);

    /** The connection qualifier this PSP listens on (what {@code dat_psp_create_any} returns). */
    long connQual();
}

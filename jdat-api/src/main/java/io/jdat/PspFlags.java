package io.jdat;

/**
 * {@code DAT_PSP_FLAGS}: who supplies the endpoint for a PSP's connection requests, given to
 * {@code dat_psp_create} and {@code dat_psp_create_any}.
 */
public final class PspFlags
{
    /** The consumer gives an endpoint to {@code dat_cr_accept}. */
    public static final int CONSUMER_FLAG = 0x00;
    /** The provider creates an endpoint for each connection request. */
    public static final int PROVIDER_FLAG = 0x01;

    private PspFlags()
    {
    }
}

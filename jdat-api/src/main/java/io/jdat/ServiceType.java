package io.jdat;

/**
 * {@code DAT_SERVICE_TYPE}, an endpoint attribute of {@code dat_ep_create} and
 * {@code dat_ep_query}: uDAPL 1.2 defines reliable connections only.
 */
public final class ServiceType
{
    public static final int RC = 0;

    private ServiceType()
    {
    }
}

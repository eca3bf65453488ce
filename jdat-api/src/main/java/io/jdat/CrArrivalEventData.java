package io.jdat;

/**
 * {@code DAT_CR_ARRIVAL_EVENT_DATA}: a connection request arrived on a service point, to be
 * answered with {@code dat_cr_accept} or {@code dat_cr_reject}.
 */
public final class CrArrivalEventData
{
    /** The PSP or RSP the request arrived on (for an RSP: that RSP, never null). */
    public ServicePoint spHandle;
    /** The local IA address the request arrived on. */
    public IaAddress localIaAddress;
    /** The local connection qualifier. */
    public long connQual;
    public ConnectionRequest crHandle;

    /** An empty one; a {@link DatEvent} holds one of each. */
    public CrArrivalEventData()
    {
    }

    public void set(final ServicePoint sp, final IaAddress local, final long connQual, final ConnectionRequest cr)
    {
        this.spHandle = sp;
        this.localIaAddress = local;
        this.connQual = connQual;
        this.crHandle = cr;
    }

    @Override
    public String toString()
    {
        return "CR_ARRIVAL[qual=" + connQual + "]";
    }
}

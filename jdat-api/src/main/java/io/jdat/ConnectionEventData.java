package io.jdat;

/**
 * {@code DAT_CONNECTION_EVENT_DATA}, the data of a connection event that {@code dat_evd_wait} or
 * {@code dat_evd_dequeue} returns after {@code dat_ep_connect}, {@code dat_cr_accept} or
 * {@code dat_ep_disconnect}. The private data is meaningful only in the active side's
 * {@code ESTABLISHED} event (the acceptor's data); otherwise its size is 0. jdat hands out an
 * immutable copy, so its lifetime is the consumer's.
 */
public final class ConnectionEventData
{
    private static final byte[] NONE = new byte[0];

    public Endpoint epHandle;
    public int privateDataSize;
    public byte[] privateData = NONE;

    /** An empty one; a {@link DatEvent} holds one of each. */
    public ConnectionEventData()
    {
    }

    public void set(final Endpoint ep, final byte[] privateData)
    {
        this.epHandle = ep;
        this.privateData = privateData == null ? NONE : privateData;
        this.privateDataSize = this.privateData.length;
    }

    @Override
    public String toString()
    {
        return "CONNECTION[privateData=" + privateDataSize + " bytes]";
    }
}

package io.jdat;

/**
 * {@code DAT_EVENT_NUMBER}: which kind of event a {@link DatEvent} holds after {@code dat_evd_wait}
 * or {@code dat_evd_dequeue}, with the 1.2 values.
 *
 * <p>uDAPL 1.2 defines the reasons {@code DAT_SRQ_LOW_WATERMARK_EVENT} and
 * {@code DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT} but no event number to carry them; jdat uses two
 * numbers of its own in the asynchronous range for them, {@link #JDAT_ASYNC_SRQ_LOW_WATERMARK}
 * and {@link #JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK}, with {@link AsyncErrorEventData}.
 */
public enum EventNumber
{
    DTO_COMPLETION_EVENT(0x00001),
    RMR_BIND_COMPLETION_EVENT(0x01001),
    CONNECTION_REQUEST_EVENT(0x02001),
    CONNECTION_EVENT_ESTABLISHED(0x04001),
    CONNECTION_EVENT_PEER_REJECTED(0x04002),
    CONNECTION_EVENT_NON_PEER_REJECTED(0x04003),
    CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR(0x04004),
    CONNECTION_EVENT_DISCONNECTED(0x04005),
    CONNECTION_EVENT_BROKEN(0x04006),
    CONNECTION_EVENT_TIMED_OUT(0x04007),
    CONNECTION_EVENT_UNREACHABLE(0x04008),
    ASYNC_ERROR_EVD_OVERFLOW(0x08001),
    ASYNC_ERROR_IA_CATASTROPHIC(0x08002),
    ASYNC_ERROR_EP_BROKEN(0x08003),
    ASYNC_ERROR_TIMED_OUT(0x08004),
    ASYNC_ERROR_PROVIDER_INTERNAL_ERROR(0x08005),
    /** jdat extension: an SRQ's available count fell below its low watermark. */
    JDAT_ASYNC_SRQ_LOW_WATERMARK(0x08006),
    /** jdat extension: an EP holds more receive buffers than its soft high watermark. */
    JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK(0x08007),
    SOFTWARE_EVENT(0x10001);

    private static final EventNumber[] VALUES = values();

    private final int value;

    EventNumber(final int value)
    {
        this.value = value;
    }

    public int value()
    {
        return value;
    }

    /** True for the {@code DAT_CONNECTION_EVENT_*} numbers. */
    public boolean isConnectionEvent()
    {
        return (value & 0xFF000) == 0x04000;
    }

    /** True for the {@code DAT_ASYNC_ERROR_*} numbers and jdat's two asynchronous extensions. */
    public boolean isAsyncEvent()
    {
        return (value & 0xFF000) == 0x08000;
    }

    /** The event number with this value, or {@code null}. */
    public static EventNumber fromValue(final int value)
    {
        for (final EventNumber n : VALUES)
        {
            if (n.value == value)
            {
                return n;
            }
        }
        return null;
    }
}

package io.jdat;

/**
 * {@code DAT_EVENT}: a consumer-allocated event record that {@code dat_evd_dequeue} and
 * {@code dat_evd_wait} fill. Allocate one (or a few) and reuse it for every dequeue; the
 * provider fills all of it, and the member of the union that
 * {@link #eventNumber} selects is valid:
 * <ul>
 *   <li>{@link EventNumber#DTO_COMPLETION_EVENT} → {@link #dto}</li>
 *   <li>{@link EventNumber#RMR_BIND_COMPLETION_EVENT} → {@link #rmrBind}</li>
 *   <li>{@link EventNumber#CONNECTION_REQUEST_EVENT} → {@link #crArrival}</li>
 *   <li>{@code CONNECTION_EVENT_*} → {@link #connection}</li>
 *   <li>{@code ASYNC_ERROR_*} and jdat's watermark events → {@link #asyncError}</li>
 *   <li>{@link EventNumber#SOFTWARE_EVENT} → {@link #software}</li>
 * </ul>
 */
public final class DatEvent
{
    /** The raw {@code DAT_EVENT_NUMBER}. */
    public int eventNumber;
    /** The EVD this event was dequeued from. */
    public EventDispatcher evdHandle;

    public final DtoCompletionEventData dto = new DtoCompletionEventData();
    public final RmrBindCompletionEventData rmrBind = new RmrBindCompletionEventData();
    public final CrArrivalEventData crArrival = new CrArrivalEventData();
    public final ConnectionEventData connection = new ConnectionEventData();
    public final AsyncErrorEventData asyncError = new AsyncErrorEventData();
    public final SoftwareEventData software = new SoftwareEventData();

    /** An empty event record, for a dequeue or a wait to fill. */
    public DatEvent()
    {
    }

    /** The event number as an enum, or {@code null} if unknown. */
    public EventNumber number()
    {
        return EventNumber.fromValue(eventNumber);
    }

    /** True if this event has the given number. */
    public boolean is(final EventNumber number)
    {
        return eventNumber == number.value();
    }

    /** Makes this a software event carrying {@code pointer}, ready for {@code dat_evd_post_se}. */
    public DatEvent software(final Object pointer)
    {
        this.eventNumber = EventNumber.SOFTWARE_EVENT.value();
        this.software.pointer = pointer;
        return this;
    }

    @Override
    public String toString()
    {
        final EventNumber n = number();
        final Object data;
        if (n == null)
        {
            data = "?";
        }
        else
        {
            data = switch (n)
            {
                case DTO_COMPLETION_EVENT -> dto;
                case RMR_BIND_COMPLETION_EVENT -> rmrBind;
                case CONNECTION_REQUEST_EVENT -> crArrival;
                case SOFTWARE_EVENT -> software;
                default -> n.isConnectionEvent() ? connection : asyncError;
            };
        }
        return (n == null ? String.format("0x%05x", eventNumber) : n.name()) + " " + data;
    }
}

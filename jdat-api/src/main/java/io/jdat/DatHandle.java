package io.jdat;

/**
 * Every DAT object: {@code DAT_HANDLE}, with the calls that work on any handle
 * ({@code dat_get_handle_type}, {@code dat_set_consumer_context},
 * {@code dat_get_consumer_context}). The Java object is the handle; a handle of a destroyed object
 * stays invalid forever ({@code DAT_INVALID_HANDLE}), it is never reused.
 */
public interface DatHandle
{
    /** {@code dat_get_handle_type}. */
    HandleType handleType();

    /**
     * {@code dat_set_consumer_context}: associates one opaque value with this object, replacing
     * the previous one; {@code null} disassociates. The provider never looks at it.
     */
    void setConsumerContext(Object context);

    /** {@code dat_get_consumer_context}: the value last set, initially {@code null}. */
    Object getConsumerContext();
}

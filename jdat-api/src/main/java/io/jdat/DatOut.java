package io.jdat;

/**
 * An OUT (or INOUT) handle argument such as the async EVD of {@code dat_ia_open}: a
 * consumer-allocated reference the provider writes, as C passes {@code DAT_EVD_HANDLE *}.
 *
 * @param <T> the handle type
 */
public final class DatOut<T>
{
    public T value;

    public DatOut()
    {
    }

    public DatOut(final T value)
    {
        this.value = value;
    }

    @Override
    public String toString()
    {
        return String.valueOf(value);
    }
}

package io.jdat;

/**
 * A DAT call failed, {@code dat_ep_post_send} or any other: the exception carries the call's
 * {@code DAT_RETURN}, which {@code dat_strerror} names. {@link #status()} is the {@code DAT_RETURN}
 * the C API would have returned; compare its {@link DatStatus#type() type}.
 */
public class DatException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient DatStatus status;

    public DatException(final DatStatus status, final String message)
    {
        super(status + (message == null || message.isEmpty() ? "" : ": " + message));
        this.status = status;
    }

    public DatException(final DatReturnType type, final DatReturnSubtype subtype, final String message)
    {
        this(DatStatus.error(type, subtype), message);
    }

    public DatException(final DatReturnType type, final String message)
    {
        this(DatStatus.error(type), message);
    }

    /** The {@code DAT_RETURN} of the failed call. */
    public DatStatus status()
    {
        return status;
    }

    /** Shorthand for {@code status().type()}. */
    public DatReturnType type()
    {
        return status.type();
    }

    /** Shorthand for {@code status().subtype()}. */
    public DatReturnSubtype subtype()
    {
        return status.subtype();
    }
}

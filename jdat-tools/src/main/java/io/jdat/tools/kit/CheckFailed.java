package io.jdat.tools.kit;

/**
 * A check of a tool failed: a completion with the wrong status, cookie, length or endpoint, data
 * that differs from what was sent, an unexpected event or a timeout. The message names the
 * operation, the endpoint and what was seen.
 */
public final class CheckFailed extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** A failed check described in one line. */
    public CheckFailed(final String message)
    {
        super(message);
    }

    /** A failed check caused by {@code cause}. */
    public CheckFailed(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

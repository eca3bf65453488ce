package io.jdat;

/**
 * The type part of a {@code DAT_RETURN} (bits 29..16), with the values of uDAPL 1.2's
 * {@code dat_error.h}. Compare types, never whole return values: an error also carries the
 * error class bit and usually a subtype ({@link DatStatus#type()}).
 */
public enum DatReturnType
{
    SUCCESS(0x00000000),
    /** The IA was closed or the EVD destroyed under a waiter. */
    ABORT(0x00010000),
    CONN_QUAL_IN_USE(0x00020000),
    INSUFFICIENT_RESOURCES(0x00030000),
    INTERNAL_ERROR(0x00040000),
    INVALID_HANDLE(0x00050000),
    INVALID_PARAMETER(0x00060000),
    INVALID_STATE(0x00070000),
    LENGTH_ERROR(0x00080000),
    MODEL_NOT_SUPPORTED(0x00090000),
    /** Also known by its 1.0 name {@code DAT_NAME_NOT_FOUND}. */
    PROVIDER_NOT_FOUND(0x000A0000),
    /** Memory access rights are missing (the man pages' meaning, not the header comment's). */
    PRIVILEGES_VIOLATION(0x000B0000),
    /** Protection zone mismatch. */
    PROTECTION_VIOLATION(0x000C0000),
    QUEUE_EMPTY(0x000D0000),
    QUEUE_FULL(0x000E0000),
    TIMEOUT_EXPIRED(0x000F0000),
    PROVIDER_ALREADY_REGISTERED(0x00100000),
    PROVIDER_IN_USE(0x00110000),
    INVALID_ADDRESS(0x00120000),
    INTERRUPTED_CALL(0x00130000),
    CONN_QUAL_UNAVAILABLE(0x00140000),
    /** The uDAPL 1.2 value; DAT 2.0 moved it to 0x3FFF0000. */
    NOT_IMPLEMENTED(0x0FFF0000);

    private final int value;

    DatReturnType(final int value)
    {
        this.value = value;
    }

    /** The numeric value, already shifted into bits 29..16. */
    public int value()
    {
        return value;
    }

    /** The C identifier, for example {@code DAT_INVALID_HANDLE}. */
    public String cName()
    {
        return "DAT_" + name();
    }

    /**
     * The type with this (shifted) value, or {@code null} if uDAPL 1.2 defines none.
     *
     * @param value the type bits of a return value, {@code value & 0x3FFF0000}
     */
    public static DatReturnType fromValue(final int value)
    {
        for (final DatReturnType t : VALUES)
        {
            if (t.value == value)
            {
                return t;
            }
        }
        return null;
    }

    private static final DatReturnType[] VALUES = values();
}

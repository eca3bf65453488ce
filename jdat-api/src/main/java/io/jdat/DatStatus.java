package io.jdat;

/**
 * A {@code DAT_RETURN} value, what every {@code dat_*} call returns (and {@code dat_strerror}
 * names): class bits 31..30, type bits 29..16, subtype bits 15..0.
 * <pre>
 *   31 30 29                        16 15                         0
 *  +-----+----------------------------+----------------------------+
 *  |class|            type            |          subtype           |
 *  +-----+----------------------------+----------------------------+
 * </pre>
 * Errors always carry {@link #CLASS_ERROR}; {@link #SUCCESS} is exactly 0. Compare with
 * {@link #type()}, never with {@code ==} on whole values.
 *
 * <p>jdat returns the normal outcomes of its hot calls ({@code DAT_SUCCESS},
 * {@code DAT_QUEUE_EMPTY}, {@code DAT_TIMEOUT_EXPIRED}, {@code DAT_QUEUE_FULL}) as preallocated
 * instances of this class, and raises every other outcome as a {@link DatException} that
 * carries one.
 */
public final class DatStatus
{
    public static final int CLASS_ERROR = 0x80000000;
    public static final int CLASS_WARNING = 0x40000000;
    public static final int CLASS_SUCCESS = 0;
    public static final int TYPE_MASK = 0x3FFF0000;
    public static final int SUBTYPE_MASK = 0x0000FFFF;

    public static final DatStatus SUCCESS = new DatStatus(0);
    public static final DatStatus QUEUE_EMPTY = error(DatReturnType.QUEUE_EMPTY);
    public static final DatStatus QUEUE_FULL = error(DatReturnType.QUEUE_FULL);
    public static final DatStatus TIMEOUT_EXPIRED = error(DatReturnType.TIMEOUT_EXPIRED);

    private final int value;

    private DatStatus(final int value)
    {
        this.value = value;
    }

    /** The status with this raw {@code DAT_RETURN} value. */
    public static DatStatus of(final int value)
    {
        return value == 0 ? SUCCESS : new DatStatus(value);
    }

    /** {@code DAT_ERROR(type, DAT_NO_SUBTYPE)}. */
    public static DatStatus error(final DatReturnType type)
    {
        return error(type, DatReturnSubtype.NO_SUBTYPE);
    }

    /** {@code DAT_ERROR(type, subtype)}: the error class bit, the type and the subtype. */
    public static DatStatus error(final DatReturnType type, final DatReturnSubtype subtype)
    {
        if (type == DatReturnType.SUCCESS)
        {
            return SUCCESS;
        }
        return new DatStatus(CLASS_ERROR | type.value() | subtype.value());
    }

    /** The raw 32-bit {@code DAT_RETURN}. */
    public int value()
    {
        return value;
    }

    /** {@code DAT_GET_TYPE}: the type, or {@code null} if the bits name no 1.2 type. */
    public DatReturnType type()
    {
        return DatReturnType.fromValue(value & TYPE_MASK);
    }

    /** {@code DAT_GET_SUBTYPE}: the subtype, or {@code null} if the bits name no 1.2 subtype. */
    public DatReturnSubtype subtype()
    {
        return DatReturnSubtype.fromValue(value & SUBTYPE_MASK);
    }

    public boolean isSuccess()
    {
        return value == 0;
    }

    public boolean isError()
    {
        return (value & CLASS_ERROR) != 0;
    }

    /** {@code DAT_IS_WARNING}. */
    public boolean isWarning()
    {
        return (value & CLASS_WARNING) != 0;
    }

    /** True if this status has the given type, whatever its class and subtype. */
    public boolean is(final DatReturnType type)
    {
        return (value & TYPE_MASK) == type.value();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof DatStatus s && s.value == value;
    }

    @Override
    public int hashCode()
    {
        return value;
    }

    /** For example {@code DAT_INVALID_HANDLE(DAT_INVALID_HANDLE_EP) 0x8005000c}. */
    @Override
    public String toString()
    {
        final DatReturnType t = type();
        final DatReturnSubtype s = subtype();
        final String typeName = t == null ? "unknown type" : t.cName();
        final String sub = s == null ? "unknown subtype"
            : s == DatReturnSubtype.NO_SUBTYPE ? null : s.cName();
        return typeName + (sub == null ? "" : "(" + sub + ")") + String.format(" 0x%08x", value);
    }
}

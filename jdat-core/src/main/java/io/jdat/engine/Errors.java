package io.jdat.engine;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;

/** Builds the {@link DatException}s the engine throws, so every call site reads as the spec does. */
final class Errors
{
    private Errors()
    {
    }

    static DatException invalidHandle(final DatReturnSubtype subtype, final String message)
    {
        return new DatException(DatReturnType.INVALID_HANDLE, subtype, message);
    }

    static DatException invalidParameter(final int argument, final String message)
    {
        return new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.invalidArg(argument), message);
    }

    static DatException invalidParameter(final String message)
    {
        return new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, message);
    }

    static DatException invalidState(final DatReturnSubtype subtype, final String message)
    {
        return new DatException(DatReturnType.INVALID_STATE, subtype, message);
    }

    static DatException insufficientResources(final DatReturnSubtype subtype, final String message)
    {
        return new DatException(DatReturnType.INSUFFICIENT_RESOURCES, subtype, message);
    }

    static DatException modelNotSupported(final String message)
    {
        return new DatException(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE, message);
    }

    static DatException privileges(final DatReturnSubtype subtype, final String message)
    {
        return new DatException(DatReturnType.PRIVILEGES_VIOLATION, subtype, message);
    }

    static DatException protection(final DatReturnSubtype subtype, final String message)
    {
        return new DatException(DatReturnType.PROTECTION_VIOLATION, subtype, message);
    }

    static DatException lengthError(final String message)
    {
        return new DatException(DatReturnType.LENGTH_ERROR, DatReturnSubtype.NO_SUBTYPE, message);
    }

    static DatException abort(final String message)
    {
        return new DatException(DatReturnType.ABORT, DatReturnSubtype.NO_SUBTYPE, message);
    }

    static DatException interrupted(final String message)
    {
        return new DatException(DatReturnType.INTERRUPTED_CALL, DatReturnSubtype.SUB_INTERRUPTED, message);
    }

    /** Checks a DAT_TIMEOUT: 0..0xFFFFFFFF microseconds (0xFFFFFFFF is infinite). */
    static void checkTimeout(final long timeoutMicros, final int argument)
    {
        if (timeoutMicros < 0 || timeoutMicros > io.jdat.Dat.TIMEOUT_INFINITE)
        {
            throw invalidParameter(argument, "timeout " + timeoutMicros + " µs is outside 0..0xFFFFFFFF");
        }
    }

    /** Checks that a query mask names only defined fields and that the output is given. */
    static void checkQuery(final long mask, final long all, final Object param, final int paramArgument)
    {
        if ((mask & ~all) != 0)
        {
            throw invalidParameter(paramArgument - 1, String.format("mask 0x%x has undefined bits", mask));
        }
        if (param == null && mask != 0)
        {
            throw invalidParameter(paramArgument, "the parameter structure is null");
        }
    }
}

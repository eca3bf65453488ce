package io.jdat.verbs;

import io.jdat.DatException;
import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.HandleType;
import io.jdat.spi.DatArg;

/** What every object of this provider shares: its handle type, consumer context and IA. */
abstract class VerbsObject implements DatHandle
{
    final VerbsIa ia;
    private final HandleType type;
    private volatile Object consumerContext;
    /** Set once the object is destroyed: its handle is invalid from then on. */
    volatile boolean freed;

    VerbsObject(final VerbsIa ia, final HandleType type)
    {
        this.ia = ia;
        this.type = type;
    }

    @Override
    public final HandleType handleType()
    {
        checkValid();
        return type;
    }

    @Override
    public final void setConsumerContext(final Object context)
    {
        checkValid();
        consumerContext = context;
    }

    @Override
    public final Object getConsumerContext()
    {
        checkValid();
        return consumerContext;
    }

    final void checkValid()
    {
        if (freed)
        {
            throw new DatException(DatReturnType.INVALID_HANDLE, subtype(), type + " handle was freed");
        }
    }

    /** Marks this handle freed under its lock; false when it already was, so a release runs once. */
    final synchronized boolean markFreed()
    {
        if (freed)
        {
            return false;
        }
        freed = true;
        return true;
    }

    /**
     * The mask checks every {@code dat_*_query} of an object with optional fields makes: bits
     * beyond {@code fieldAll} are DAT_INVALID_PARAMETER, as is a null param with fields asked for.
     * Returns whether there is a param to fill.
     */
    static boolean queryWanted(final String function, final long mask, final long fieldAll, final Object param)
    {
        if ((mask & ~fieldAll) != 0)
        {
            throw invalidParameter(DatArg.QUERY_PARAM - 1, function + ": undefined mask bits 0x"
                + Long.toHexString(mask & ~fieldAll));
        }
        if (param == null && mask != 0)
        {
            throw invalidParameter(DatArg.QUERY_PARAM, function + ": no param for mask 0x" + Long.toHexString(mask));
        }
        return param != null;
    }

    private DatReturnSubtype subtype()
    {
        return switch (type)
        {
            case IA -> DatReturnSubtype.INVALID_HANDLE_IA;
            case PZ -> DatReturnSubtype.INVALID_HANDLE_PZ;
            case LMR -> DatReturnSubtype.INVALID_HANDLE_LMR;
            case EVD -> DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST;
            case EP -> DatReturnSubtype.INVALID_HANDLE_EP;
            case PSP -> DatReturnSubtype.INVALID_HANDLE_PSP;
            case CR -> DatReturnSubtype.INVALID_HANDLE_CR;
            case SRQ -> DatReturnSubtype.INVALID_HANDLE_SRQ;
            default -> DatReturnSubtype.NO_SUBTYPE;
        };
    }

    /** DAT_NOT_IMPLEMENTED for a call this provider does not carry out (docs/dat-mapping.md lists them). */
    static DatException notImplemented(final String function)
    {
        return new DatException(DatReturnType.NOT_IMPLEMENTED, function + " is not implemented by the verbs provider");
    }

    /** {@code DAT_INVALID_PARAMETER} for argument {@code arg} ({@link io.jdat.spi.DatArg}). */
    static DatException invalidParameter(final int arg, final String message)
    {
        return new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.invalidArg(arg), message);
    }

    static DatException invalidState(final DatReturnSubtype subtype, final String message)
    {
        return new DatException(DatReturnType.INVALID_STATE, subtype, message);
    }

    static DatException nativeFailure(final DatReturnType type, final String call, final int errno)
    {
        return new DatException(type, call + " failed: " + Native.describe(errno));
    }
}

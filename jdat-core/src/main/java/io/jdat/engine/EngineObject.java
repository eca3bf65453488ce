package io.jdat.engine;

import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.HandleType;

/**
 * What every engine object has: its type, its IA, whether it was destroyed, and the consumer's
 * context. A destroyed object stays destroyed; its handle is never reused.
 */
abstract class EngineObject implements DatHandle
{
    final IaImpl ia;
    private final HandleType type;
    private volatile boolean destroyed;
    private volatile Object consumerContext;

    EngineObject(final IaImpl ia, final HandleType type)
    {
        // an IA owns itself
        this.ia = ia != null ? ia : (IaImpl) this;
        this.type = type;
    }

    /** The subtype of {@code DAT_INVALID_HANDLE} that names this kind of object. */
    abstract DatReturnSubtype invalidHandleSubtype();

    final HandleType type()
    {
        return type;
    }

    final boolean isDestroyed()
    {
        return destroyed;
    }

    final void markDestroyed()
    {
        destroyed = true;
    }

    /** Throws {@code DAT_INVALID_HANDLE} if this object was freed (or its IA closed). */
    final void checkLive()
    {
        if (destroyed)
        {
            throw Errors.invalidHandle(invalidHandleSubtype(), type.cName().substring(16) + " handle was freed");
        }
    }

    @Override
    public final HandleType handleType()
    {
        checkLive();
        return type;
    }

    @Override
    public final void setConsumerContext(final Object context)
    {
        checkLive();
        consumerContext = context;
    }

    @Override
    public final Object getConsumerContext()
    {
        checkLive();
        return consumerContext;
    }

    /**
     * The live engine object behind a handle argument, of this IA.
     *
     * @param handle   what the consumer passed
     * @param type     the expected class
     * @param ia       the IA it must belong to, or null for any
     * @param subtype  the subtype for the error
     * @param nullable whether {@code null} is allowed (then returned)
     */
    static <T extends EngineObject> T cast(final Object handle, final Class<T> type, final IaImpl ia,
        final DatReturnSubtype subtype, final boolean nullable, final String what)
    {
        if (handle == null)
        {
            if (nullable)
            {
                return null;
            }
            throw Errors.invalidHandle(subtype, what + " is DAT_HANDLE_NULL");
        }
        if (!type.isInstance(handle))
        {
            throw Errors.invalidHandle(subtype, what + " is not a " + type.getSimpleName().replace("Impl", "")
                + " of this provider");
        }
        final T t = type.cast(handle);
        if (t.isDestroyed())
        {
            throw Errors.invalidHandle(subtype, what + " was freed");
        }
        if (ia != null && t.ia != ia)
        {
            throw Errors.invalidHandle(subtype, what + " belongs to another IA instance");
        }
        return t;
    }
}

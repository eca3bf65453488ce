package io.jdat;

import io.jdat.registry.Registry;
import io.jdat.spi.DatProvider;

/**
 * The entry to DAT: the registry calls ({@code dat_ia_open}, {@code dat_registry_*}), the
 * helpers that work on any handle ({@code dat_strerror}, {@code dat_get_handle_type},
 * {@code dat_set/get_consumer_context}) and DAT's special values. Everything else is a method
 * of the object it acts on: {@code dat_ep_post_send(ep, …)} is {@code ep.postSend(…)}.
 *
 * <p>Failures are thrown as {@link DatException} carrying the {@link DatStatus} the C call
 * would have returned; the normal outcomes of the hot calls (queue empty, timeout, queue full)
 * are returned.
 */
public final class Dat
{
    /** {@code DAT_VERSION_MAJOR}. */
    public static final int VERSION_MAJOR = 1;
    /** {@code DAT_VERSION_MINOR}. */
    public static final int VERSION_MINOR = 2;
    /** {@code DAT_THREADSAFE}: jdat consumers ask for thread-safe providers (every jdat provider is). */
    public static final boolean THREADSAFE = true;

    /** {@code DAT_TIMEOUT_INFINITE}: 0xFFFFFFFF microseconds means for ever, not 71 minutes. */
    public static final long TIMEOUT_INFINITE = 0xFFFF_FFFFL;
    /** {@code DAT_VALUE_UNKNOWN}: a query result that is not available. */
    public static final int VALUE_UNKNOWN = -2;
    /** {@code DAT_WATERMARK_INFINITE}: no watermark event. */
    public static final int WATERMARK_INFINITE = -1;
    /** {@code DAT_HW_DEFAULT}. */
    public static final int HW_DEFAULT = -1;
    /** {@code DAT_SRQ_LW_DEFAULT}: no low-watermark event. */
    public static final int SRQ_LW_DEFAULT = 0;
    /** {@code DAT_OPTIMAL_ALIGNMENT}: portable buffer alignment. */
    public static final int OPTIMAL_ALIGNMENT = 256;
    /** {@code DAT_LMR_COOKIE_SIZE}: bytes in a shared-memory cookie. */
    public static final int LMR_COOKIE_SIZE = 40;
    /** {@code DAT_NAME_MAX_LENGTH}, including C's terminating NUL: names have at most 255 characters. */
    public static final int NAME_MAX_LENGTH = 256;
    /** Prefix of an IA name from a consumer that copes with relaxed ordering (Solaris); stripped. */
    public static final String RO_AWARE_PREFIX = "RO_AWARE_";

    /**
     * {@code DAT_EVD_ASYNC_EXISTS}: passed to {@link #iaOpen} to say an async EVD for the IA
     * exists elsewhere on the host.
     */
    public static final EventDispatcher EVD_ASYNC_EXISTS = new SpecialEvd("DAT_EVD_ASYNC_EXISTS");
    /** {@code DAT_EVD_OUT_OF_SCOPE}: {@code dat_ia_query}'s answer when the async EVD is out of reach. */
    public static final EventDispatcher EVD_OUT_OF_SCOPE = new SpecialEvd("DAT_EVD_OUT_OF_SCOPE");

    private Dat()
    {
    }

    /**
     * {@code dat_ia_open}: opens a new instance of the IA registered as {@code iaName}.
     *
     * @param asyncEvd INOUT: {@code null} or a holder of {@code null} asks the provider to create
     *     the async EVD (returned in the holder); a holder of an existing async EVD of the same
     *     provider shares it; {@link #EVD_ASYNC_EXISTS} says it lives elsewhere
     */
    public static InterfaceAdapter iaOpen(final String iaName, final int asyncEvdMinQlen,
        final DatOut<EventDispatcher> asyncEvd)
    {
        return iaOpenv(iaName, asyncEvdMinQlen, asyncEvd, VERSION_MAJOR, VERSION_MINOR, THREADSAFE);
    }

    /** {@code dat_ia_openv}: {@link #iaOpen} with an explicit registry key. */
    public static InterfaceAdapter iaOpenv(final String iaName, final int asyncEvdMinQlen,
        final DatOut<EventDispatcher> asyncEvd, final int datMajor, final int datMinor, final boolean threadSafety)
    {
        final EventDispatcher given = asyncEvd == null ? null : asyncEvd.value;
        final InterfaceAdapter ia = Registry.get().iaOpen(iaName, asyncEvdMinQlen, given, datMajor, datMinor,
            threadSafety);
        if (asyncEvd != null)
        {
            asyncEvd.value = ia.query(0, null, 0, null);
        }
        return ia;
    }

    /**
     * {@code dat_registry_list_providers}: copies the static registry's entries into
     * {@code providerList}. When the array is too small (or {@code maxToReturn} is 0) it throws
     * {@code DAT_INVALID_PARAMETER} after writing the number of entries into
     * {@code numberEntries}, so the consumer can size the array.
     */
    public static void registryListProviders(final int maxToReturn, final DatCount numberEntries,
        final ProviderInfo[] providerList)
    {
        Registry.get().listProviders(maxToReturn, numberEntries, providerList);
    }

    /** {@code dat_registry_add_provider} (provider side): declares one IA name. */
    public static void registryAddProvider(final DatProvider provider, final ProviderInfo providerInfo)
    {
        Registry.get().addProvider(provider, providerInfo);
    }

    /** {@code dat_registry_remove_provider} (provider side): prevents new opens of the name. */
    public static void registryRemoveProvider(final DatProvider provider, final ProviderInfo providerInfo)
    {
        Registry.get().removeProvider(provider, providerInfo);
    }

    /**
     * {@code dat_strerror}: the names of the type and the subtype of a return value.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if either part is not a uDAPL 1.2 value
     */
    public static ErrorStrings strerror(final int value)
    {
        final DatReturnType type = DatReturnType.fromValue(value & DatStatus.TYPE_MASK);
        final DatReturnSubtype subtype = DatReturnSubtype.fromValue(value & DatStatus.SUBTYPE_MASK);
        if (type == null || subtype == null)
        {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                String.format("0x%08x is not a uDAPL 1.2 return value", value));
        }
        return new ErrorStrings(type.cName(), subtype == DatReturnSubtype.NO_SUBTYPE ? "" : subtype.cName());
    }

    /** {@code dat_strerror} of a status. */
    public static ErrorStrings strerror(final DatStatus status)
    {
        return strerror(status.value());
    }

    /** {@code dat_get_handle_type}: {@code DAT_INVALID_HANDLE} for anything that is not a live handle. */
    public static HandleType getHandleType(final Object handle)
    {
        return asHandle(handle).handleType();
    }

    /** {@code dat_set_consumer_context}. */
    public static void setConsumerContext(final Object handle, final Object context)
    {
        asHandle(handle).setConsumerContext(context);
    }

    /** {@code dat_get_consumer_context}. */
    public static Object getConsumerContext(final Object handle)
    {
        return asHandle(handle).getConsumerContext();
    }

    private static DatHandle asHandle(final Object handle)
    {
        if (handle instanceof DatHandle h && !(handle instanceof SpecialEvd))
        {
            return h;
        }
        throw new DatException(DatReturnType.INVALID_HANDLE,
            handle == null ? "DAT_HANDLE_NULL" : handle.getClass().getName() + " is not a DAT handle");
    }

    /** The special EVD handle values: not objects, so every call on them is an invalid handle. */
    private record SpecialEvd(String name) implements EventDispatcher
    {
        private DatException invalid()
        {
            return new DatException(DatReturnType.INVALID_HANDLE, name + " is not an EVD");
        }

        @Override
        public HandleType handleType()
        {
            throw invalid();
        }

        @Override
        public void setConsumerContext(final Object context)
        {
            throw invalid();
        }

        @Override
        public Object getConsumerContext()
        {
            throw invalid();
        }

        @Override
        public void free()
        {
            throw invalid();
        }

        @Override
        public void query(final long evdParamMask, final EvdParam param)
        {
            throw invalid();
        }

        @Override
        public DatStatus wait(final long timeoutMicros, final int threshold, final DatEvent event,
            final DatCount nmore)
        {
            throw invalid();
        }

        @Override
        public DatStatus dequeue(final DatEvent event)
        {
            throw invalid();
        }

        @Override
        public DatStatus postSe(final DatEvent event)
        {
            throw invalid();
        }

        @Override
        public void enable()
        {
            throw invalid();
        }

        @Override
        public void disable()
        {
            throw invalid();
        }

        @Override
        public void setUnwaitable()
        {
            throw invalid();
        }

        @Override
        public void clearUnwaitable()
        {
            throw invalid();
        }

        @Override
        public void modifyCno(final Cno cno)
        {
            throw invalid();
        }

        @Override
        public void resize(final int evdMinQlen)
        {
            throw invalid();
        }

        @Override
        public String toString()
        {
            return name;
        }
    }
}
